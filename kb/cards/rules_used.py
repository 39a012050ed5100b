"""The rules a card uses, computed from its Oracle text and type line against one edition's rules.

Nothing here lists cards or mechanics by hand; every link comes from matching words of the card
to names the rules text itself gives:

* keyword abilities and actions: the names of rules 702.N and 701.N (their heading, "702.9.
  Flying"), matched in the text and in the keywords the source lists; "Tap and Untap" gives both
  verbs. Why: ``keyword`` (702) or ``action`` (701).
* glossary terms: every glossary term and alias matched in the text links to the rules its
  definition names ("See rule 700.4"); an entry that only redirects ("See Kicker") gives its
  target's rules. Why: ``term``.
* card types: the type sections (300-315) whose titles are the plural of a type on the type line
  ("Artifacts"); subtypes: the lists of rules 205.3g-205.3q ("The artifact types are Attraction
  (see rule 717), Blood, ...": a subtype links to the rule named in its parentheses, else to the
  list); supertypes: 205.4a's list and the 205.4 rule about "the supertype “legendary”". Why:
  ``type``, ``subtype``, ``supertype``.
* ability words: the list of 207.2c ("The ability words are adamant, addendum, …"), which says
  they have no rules of their own, so they link to that list. Why: ``ability word``.
* layout: the source's layout name (MTGJSON/Scryfall: ``split``, ``modal_dfc``...) matched to
  the titles of rules and glossary entries: its words, in order, must begin the title's words (a
  word as the title word less an ending of up to three letters: ``adventure`` -> "Adventurer
  Cards", ``transform`` -> "Transforming Double-Faced Cards", but ``battle`` is not
  "Battlefield"; an abbreviation as initials: ``dfc`` -> "Double-Faced Cards"), and what is
  left of the title must be nothing or end with "Card(s)". Why: ``layout``. The layouts of the
  2022 AtomicCards that match nothing: ``normal``, ``planar`` ("Planes"/"Planechase" are not
  spelt so), ``host`` and ``augment`` (Un-cards, in no rule), ``reversible_card``.

Words are matched whole, case-folded, with simple English inflections (``destroys``,
``destroyed``, ``cards``); the card's own names are masked first ("Storm Crow" does not use
storm) and reminder text in parentheses is not read, as it restates the rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import NamedTuple, Protocol

from kb.knowledge.model import Edition, GlossaryEntry, Rule
from kb.sources.card_model import Card

__all__ = ["RuleIndex", "RuleLink", "RulesSource", "rules_used"]

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_REMINDER = re.compile(r"\([^()]*\)")
_NAMED = re.compile(r"^70([12])\.(\d+)$")
_TYPE_SECTION = re.compile(r"^3(0\d|1\d)$")
_SUBTYPE_LIST = re.compile(r"^205\.3[g-z]$")
_SUPERTYPE_RULE = re.compile(r"^205\.4[a-z]$")
_LIST = re.compile(r"(?:types? (?:are|is)|long:|supertypes are|words are)\s+(.+?)\.(?=\s|$)")
_ITEM = re.compile(r"^(.+?)(?:\s*\(see rules? ([0-9]+(?:\.[0-9]+[a-z]?)?)[^)]*\))?$")
_QUOTED_SUPERTYPE = re.compile(r"supertype “(\w+)”")
_ORDER = {
    "keyword": 0,
    "action": 1,
    "ability word": 2,
    "layout": 3,
    "type": 4,
    "supertype": 5,
    "subtype": 6,
}


class RulesSource(Protocol):
    """What :meth:`RuleIndex.from_kb` reads: a KnowledgeBase built in memory or the stored one
    (kb.store), whose ``rules`` and ``glossary`` are mappings by edition id."""

    @property
    def rules(self) -> Mapping[str, Mapping[str, Rule]]: ...

    @property
    def glossary(self) -> Mapping[str, Mapping[str, GlossaryEntry]]: ...

    def newest(self, lang: str) -> Edition | None: ...


class RuleLink(NamedTuple):
    """One rule a card uses and why: ``why`` is keyword, action, ability word, term, type,
    subtype, supertype or layout; ``label`` the word or name that made the link; ``face`` where
    it was found (None: the card as a whole)."""

    number: str
    why: str
    label: str
    face: str | None = None


def _fold(text: str) -> str:
    return text.replace("’", "'").replace("‘", "'").lower()


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(_fold(text)))


def _inflect(word: str) -> set[str]:
    """The word and its regular English forms (plural, third person, past, -ing)."""
    forms = {word, word + "s", word + "es", word + "d", word + "ed", word + "ing"}
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    if word.endswith("y") and len(word) > 2:
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}
    if word.endswith("ie"):
        forms.add(word[:-2] + "ying")
    if word.endswith("s") and len(word) > 3:  # "dies" -> "die", "died"
        forms |= {word[:-1], word[:-1] + "d"}
    if len(word) >= 3 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou":
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}  # tapped, tapping
    return forms


def _variants(words: tuple[str, ...]) -> set[tuple[str, ...]]:
    """A name's word tuples with its first (verb) or last (noun) word inflected."""
    if not words:
        return set()
    out = {words}
    out |= {(form, *words[1:]) for form in _inflect(words[0])}
    out |= {(*words[:-1], form) for form in _inflect(words[-1])}
    return out


def _heading(rule: Rule) -> str | None:
    """A rule's name: its title, or its text where the text is only a heading ("Flying")."""
    if rule.title:
        return rule.title
    text = rule.text.strip()
    if text and len(text.split()) <= 6 and not text.endswith((".", ":", "”")):
        return text
    return None


class RuleIndex:
    """Names from one edition's rules and glossary, ready to match card texts against."""

    def __init__(self) -> None:
        #: word tuple -> [(number, why, label)]
        self.phrases: dict[tuple[str, ...], list[tuple[str, str, str]]] = {}
        self.type_rules: dict[str, list[tuple[str, str]]] = {}  # folded type -> (number, why)
        self.titles: list[tuple[tuple[str, ...], str, str]] = []  # (words, number, title)
        self.numbers: set[str] = set()
        self._longest: dict[str, int] = {}  # first word -> most words of a phrase it starts
        self._layouts: dict[str, list[RuleLink]] = {}
        self._keywords: dict[str, list[RuleLink]] = {}

    # ---- building ----------------------------------------------------------------------------
    @classmethod
    def from_kb(cls, kb: RulesSource, edition_id: str | None = None) -> RuleIndex:
        """The index of an edition of ``kb`` (default: the newest full English edition)."""
        if edition_id is None:
            newest = kb.newest("en")
            if newest is None:
                raise ValueError("the knowledge base has no English edition")
            edition_id = newest.id
        rules = kb.rules.get(edition_id, {}).values()
        return cls.from_rules(rules, kb.glossary.get(edition_id, {}).values())

    @classmethod
    def from_rules(cls, rules: Iterable[Rule], glossary: Iterable[GlossaryEntry]) -> RuleIndex:
        """The index of one edition given its rules and glossary entries."""
        index = cls()
        rules = list(rules)
        index.numbers = {r.number for r in rules}
        for rule in rules:
            name = _heading(rule)
            named = _NAMED.match(rule.number)
            if named and name and rule.number not in ("701.1", "702.1"):
                why = "action" if named[1] == "1" else "keyword"
                parts = (
                    name.split(" and ") if " and " in name and len(name.split()) == 3 else [name]
                )
                for part in parts:
                    index._add(_words(part), rule.number, why, part)
            if (name and len(rule.number) == 3) or (named and name):
                index.titles.append((_words(name or ""), rule.number, name or ""))
            if _TYPE_SECTION.match(rule.number) and rule.title and rule.number != "300":
                for form in _singulars(_fold(rule.title)):
                    index.type_rules.setdefault(form, []).append((rule.number, "type"))
            if rule.text.startswith("An ability word") and "ability words are" in rule.text:
                for word, _ in _list_items(rule.text):
                    index._add((_fold(word),), rule.number, "ability word", word)
            if _SUBTYPE_LIST.match(rule.number):
                index._add_list(rule, "subtype")
            if _SUPERTYPE_RULE.match(rule.number):
                index._add_list(rule, "supertype")
                for word in _QUOTED_SUPERTYPE.findall(rule.text):
                    index.type_rules.setdefault(_fold(word), []).append((rule.number, "supertype"))
        index._add_glossary(list(glossary))
        return index

    def _add(self, words: tuple[str, ...], number: str, why: str, label: str) -> None:
        for variant in _variants(words):
            targets = self.phrases.setdefault(variant, [])
            if not any(t[0] == number for t in targets):
                targets.append((number, why, label))
            first = variant[0]
            self._longest[first] = max(self._longest.get(first, 0), len(variant))

    def _add_list(self, rule: Rule, why: str) -> None:
        for name, target in _list_items(rule.text):
            pairs = self.type_rules.setdefault(_fold(name), [])
            pairs.append((rule.number, why))
            if target and target in self.numbers:
                pairs.append((target, why))

    def _add_glossary(self, entries: list[GlossaryEntry]) -> None:
        by_name = {_fold(n): e for e in entries for n in [e.term, *e.aliases]}
        for entry in entries:
            refs = list(entry.rule_refs)
            if not refs:
                for target in entry.see:
                    other = by_name.get(_fold(target))
                    refs.extend(r for r in (other.rule_refs if other else []) if r not in refs)
            for name in [entry.term, *entry.aliases]:
                self.titles.extend((_words(name), ref, name) for ref in refs[:1])
                for ref in refs:
                    self._add(_words(name), ref, "term", name)

    # ---- matching ----------------------------------------------------------------------------
    def text_links(self, text: str, face: str | None = None) -> Iterator[RuleLink]:
        """Links for the names found in a text (longest match first, matches do not overlap)."""
        words = _words(_REMINDER.sub(" ", text))
        i = 0
        while i < len(words):
            longest = self._longest.get(words[i], 0)
            for n in range(min(longest, len(words) - i), 0, -1):
                targets = self.phrases.get(words[i : i + n])
                if targets:
                    for number, why, label in targets:
                        yield RuleLink(number, why, label, face)
                    i += n
                    break
            else:
                i += 1

    def keyword_links(self, keyword: str) -> list[RuleLink]:
        """The keyword ability or action rules a keyword the source lists names; cached."""
        found = self._keywords.get(keyword)
        if found is None:
            found = [
                RuleLink(number, why, label)
                for number, why, label in self.phrases.get(_words(keyword), [])
                if why in ("keyword", "action")
            ]
            self._keywords[keyword] = found
        return found

    def type_links(self, names: Iterable[str], why: str, face: str | None) -> Iterator[RuleLink]:
        """Links for card types, subtypes or supertypes (by the rules' own lists and titles)."""
        for name in names:
            for number, found in self.type_rules.get(_fold(name), []):
                yield RuleLink(number, found if why != "type" else why, name, face)

    def layout_links(self, layout: str) -> list[RuleLink]:
        """The rules a layout name matches by title (see the module's docstring); cached."""
        if layout not in self._layouts:
            tokens = tuple(t for t in re.split(r"[_\s-]+", layout.lower()) if t)
            found: list[RuleLink] = []
            for words, number, title in self.titles:
                if tokens and tokens != ("normal",) and _starts(tokens, _split(words)):
                    link = RuleLink(number, "layout", f"{layout}: {title}")
                    if all(f.number != number for f in found):
                        found.append(link)
            self._layouts[layout] = found
        return self._layouts[layout]


def _list_items(text: str) -> Iterator[tuple[str, str | None]]:
    """The items of the lists a rule gives ("The land types are Cave, Desert, …, and Urza’s."),
    each with the rule its parentheses name ("Equipment (see rule 301.5)"), if any."""
    for segment in _LIST.findall(text):
        for item in re.split(r",\s*(?:and\s+)?|\s+and\s+", segment):
            match = _ITEM.match(item.strip())
            if match:
                yield match[1].strip(), match[2]


def _split(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part for word in words for part in word.split("-") if part)


def _starts(tokens: tuple[str, ...], title: tuple[str, ...]) -> bool:
    """Whether layout tokens begin a title's words (prefix or initials) and the rest is card(s)."""
    at = 0
    for token in tokens:
        if (
            at < len(title)
            and title[at].startswith(token)
            and len(token) >= 3
            and len(title[at]) - len(token) <= 3  # an ending (-s, -r, -ing), not a compound
        ):
            at += 1
            continue
        span = title[at : at + len(token)]
        if len(span) == len(token) > 1 and "".join(w[0] for w in span) == token:
            at += len(token)
            continue
        return False
    rest = title[at:]
    return not rest or rest[-1] in ("card", "cards")


def _singulars(title: str) -> set[str]:
    """``artifacts`` -> artifact, ``sorceries`` -> sorcery: what a plural title may name."""
    forms = {title}
    if title.endswith("ies"):
        forms.add(title[:-3] + "y")
    if title.endswith("s"):
        forms.add(title[:-1])
    return forms


def _mask(text: str, names: Iterable[str]) -> str:
    """The text with the card's own names (and a legend's short name) blanked out."""
    for name in sorted(set(names), key=len, reverse=True):
        if name:
            text = text.replace(name, " ")
            short = name.split(",")[0]
            if short != name and len(short) > 2:
                text = text.replace(short, " ")
    return text


def rules_used(card: Card, index: RuleIndex) -> list[RuleLink]:
    """Every rule ``card`` uses, each once with the first reason found, in a stable order:
    layout, keywords and actions, types, then terms (by rule number within each reason)."""
    links: list[RuleLink] = list(index.layout_links(card.layout))
    names = card.names("en")
    for keyword in card.keywords:
        links.extend(index.keyword_links(keyword))
    for face in card.faces:
        links.extend(index.type_links(face.supertypes, "supertype", face.name))
        links.extend(index.type_links(face.types, "type", face.name))
        links.extend(index.type_links(face.subtypes, "subtype", face.name))
        links.extend(index.text_links(_mask(face.text, names), face.name))
    seen: dict[str, RuleLink] = {}
    for link in links:
        if link.number not in seen:
            seen[link.number] = link
    return sorted(seen.values(), key=lambda k: (_ORDER.get(k.why, 9), _number_key(k.number)))


@lru_cache(maxsize=8192)
def _number_key(number: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else ord(p[0]) for p in re.findall(r"\d+|[a-z]", number))
