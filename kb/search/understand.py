"""The concepts a question names and the rules' forms of its words.

The concepts come from the corpus itself, computed at build time (:func:`concept_table`): each
English glossary entry's names with the rules its definition cites ("Dies ... See rule 700.4"),
each titled rule's title ("Lifelink" -> 702.15) and each term base concept's English names with
its rules. A question naming a concept, in any language (French and Japanese through the term
base), raises that concept's rules; how much depends on how specific the concept is (how few
rules contain its words), so "creature" raises nothing and "lifelink" a lot; the rule opening a
concept (702.33a for kicker) leads its siblings. :meth:`Concepts.name_words` gives the words
naming a concept, which the ranking levels across the concept's family so that the rest of a
question picks the sibling.

Players' words also differ from the rules' in form: number words for digits ("zero life"), the
negation prefix ("tapped" / "untapped"), agent nouns ("blockers" / "blocking") and other
inflections that Snowball stems apart ("sacrificed" / "sacrifices", :func:`inflection_stems`)
(:func:`word_variants`). What the question's wording itself says (frames, sentences, names) is
:mod:`kb.search.wording`'s.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from kb.knowledge.model import KnowledgeBase
from kb.search.analysis import terms
from kb.text.normal import stem_en, word_forms
from kb.text.rulenum import try_parse

# ---- word variants ---------------------------------------------------------------------

#: Number words a player types where the rules write digits ("zero life": "0 or less life").
_NUMBER_WORDS = {
    "en": ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
    "fr": ["zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix"],
}
#: Share of a word's weight its variants match with: related, not the same word.
VARIANT_WEIGHT = 0.5


def word_variants(word: str, tok: str, lang: str) -> list[tuple[str, float]]:
    """Analysed words the rules use for a question's word ``word`` (analysed ``tok``), with
    their weight: the digit for a number word, and in English the word with its negation
    prefix ("tapped" / "untapped"), the action of an agent noun ("blockers" / "blocking") and
    the stems of the word's other inflections. The caller keeps those the index knows."""
    out: list[tuple[str, float]] = []
    numbers = _NUMBER_WORDS.get(lang, [])
    low = word.lower()
    if low in numbers:
        return [] if (lang, low) == ("fr", "un") else [(str(numbers.index(low)), 1.0)]
    if lang == "en" and tok.isalpha():
        # "tapped" also finds "untapped"; not the other way round: a question saying
        # "noncombat" asks about the opposite of the rules saying "combat".
        if not tok.startswith(("non", "un")):
            out.extend((prefix + tok, VARIANT_WEIGHT) for prefix in ("un", "non"))
        if tok.endswith("er") and len(tok) > 5:
            out.append((tok[:-2], VARIANT_WEIGHT))
        out.extend((s, INFLECTION_WEIGHT) for s in sorted(inflection_stems(low)) if s != tok)
    return out


#: Weight of another inflection's stem: the same word.
INFLECTION_WEIGHT = 1.0


def _bases(word: str) -> set[str]:
    """The possible uninflected forms of an English word ("sacrificed" -> "sacrifice",
    "sacrific"; "tapped" -> "tap"), itself included."""
    out = {word}
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            out |= {base, base + "e"}
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeiosl":
                out.add(base[:-1])
            if suffix in ("ed", "es") and base.endswith("i"):
                out.add(base[:-1] + "y")
            break
    return out


def inflection_stems(word: str) -> set[str]:
    """The stems of every inflection of ``word``'s possible base forms: Snowball stems some
    forms of one verb apart ("sacrificed" -> "sacrif", "sacrifices" -> "sacrific"), so a
    question's form must also find the rules' other forms."""
    if not word.isalpha() or len(word) < 5:
        return set()
    return {stem_en(form) for base in _bases(word) for form in word_forms(base, "en")}


# ---- concepts ----------------------------------------------------------------------------

#: Longest concept name, in analysed words.
MAX_WORDS = 5
#: A concept found in at most this many current English rules counts in full; a commoner one
#: counts in proportion (SPECIFIC / rules containing it).
SPECIFIC = 40


def concept_table(
    kb: KnowledgeBase, titles: dict[str, str], rule_words: dict[str, set[str]]
) -> list[list[Any]]:
    """``[words, rules, df]`` rows: the analysed English name of a concept, the rules it
    names, and in how many current English rules all its words occur.

    ``titles`` maps the canonical number of each titled current English rule to its title,
    ``rule_words`` each current English rule's canonical number to its analysed words.
    """
    names: dict[tuple[str, ...], list[str]] = {}

    def add(name: str, rules: Iterable[str]) -> None:
        words = tuple(terms(name, "en"))
        if words and len(words) <= MAX_WORDS:
            row = names.setdefault(words, [])
            row.extend(r for r in rules if r not in row)

    english = kb.glossary_edition("en")
    for entry in kb.glossary.get(english.id, {}).values() if english else ():
        if entry.rule_refs:
            for name in (entry.term, *entry.aliases):
                add(name, entry.rule_refs)
    for number, title in titles.items():
        if len(number) >= 3:  # not the chapters ("7. Additional Rules")
            add(title, [number])
    for term in kb.terms:
        if term.rules:
            for name in term.en:
                add(name, term.rules)
    index: dict[str, set[str]] = {}
    for number, words in rule_words.items():
        for w in words:
            index.setdefault(w, set()).add(number)
    rows = []
    for words, rules in names.items():
        if not rules:
            continue
        sets = sorted((index.get(w, set()) for w in words), key=len)
        common = set(sets[0]).intersection(*sets[1:]) if sets else set()
        rows.append([list(words), rules, len(common)])
    return rows


def rule_ranks(groups: Sequence[str]) -> list[int]:
    """Each document's place in the rules' order, from its group (``r:<canonical number>``):
    702.9a before 702.10, a rule's texts in document order, documents that are no rule (or
    have no canonical number) after every rule, in document order."""
    keys: dict[str, tuple[int, int, int]] = {}
    last = (1_000_000, 0, 0)
    for group in set(groups):
        number = try_parse(group[2:]) if group.startswith("r:") else None
        keys[group] = number.sort_key() if number is not None else last
    # Groups of one key (documents that are no rule) share a place: their documents stay in order.
    places = {key: i for i, key in enumerate(sorted(set(keys.values())))}
    of_doc = list(map(places.__getitem__, map(keys.__getitem__, groups)))
    order = sorted(range(len(groups)), key=of_doc.__getitem__)  # stable: ties in doc order
    rank = [0] * len(groups)
    for i, doc in enumerate(order):
        rank[doc] = i
    return rank


class Concepts:
    """The concept table as the searcher asks it, and rule subtrees as document sets."""

    def __init__(self, rows: Sequence[Sequence[Any]], groups: Sequence[str], stop: int) -> None:
        self._rows: dict[tuple[str, ...], tuple[tuple[str, ...], int]] = {
            tuple(words): (tuple(rules), int(df)) for words, rules, df in rows
        }
        #: Rule -> the analysed English words of the concepts naming it ("702.15" ->
        #: {"lifelink"}): words every rule of that family is about (see :meth:`name_words`).
        self._words_of: dict[str, frozenset[str]] = {}
        for words, rules, _df in rows:
            for rule in rules:
                self._words_of[rule] = self._words_of.get(rule, frozenset()) | frozenset(words)
        # Current rule documents by canonical number, sorted for subtree lookups.
        pairs = sorted(
            (g[2:], d)
            for d, g in enumerate(groups[:stop])
            if g.startswith("r:") and g[2:3].isdigit()
        )
        self._numbers = [n for n, _ in pairs]
        self._docs = [d for _, d in pairs]
        #: Current rule document -> its canonical number (every language's text of a rule).
        self.number_of: dict[int, str] = {d: n for n, d in pairs}
        self._subtrees: dict[str, frozenset[int]] = {}
        #: Document -> its place in the rules' order (:meth:`kb.text.rulenum.RuleNumber.sort_key`;
        #: a rule's texts, and the documents that are no rule after every rule, in document
        #: order): equal scores are ranked by it.
        self.rule_rank: list[int] = rule_ranks(groups)

    def find(self, words: Sequence[str]) -> list[tuple[tuple[str, ...], tuple[str, ...], int]]:
        """The concepts named in ``words`` (analysed English), longest first at each place:
        ``(name, rules, df)``."""
        out = []
        i = 0
        n = len(words)
        while i < n:
            for j in range(min(n, i + MAX_WORDS), i, -1):
                key = tuple(words[i:j])
                row = self._rows.get(key)
                if row is not None:
                    out.append((key, row[0], row[1]))
                    i = j
                    break
            else:
                i += 1
        return out

    def name_words(self, root: str) -> frozenset[str]:
        """The analysed English words of the concepts naming rule ``root``."""
        return self._words_of.get(root, frozenset())

    def named(self, words: Sequence[str]) -> tuple[tuple[str, ...], int] | None:
        """The rules and document frequency of the concept whose whole name is ``words``."""
        return self._rows.get(tuple(words))

    def opening(self, root: str) -> frozenset[int]:
        """Current documents of the rule opening ``root``: its first subrule ("702.33a") or,
        for a section or chapter, its first rule ("724.1"), in every language."""
        first = f"{root}a" if "." in root else f"{root}.1"
        found = self._subtrees.get("open:" + first)
        if found is None:
            i = bisect_left(self._numbers, first)
            docs = []
            while i < len(self._numbers) and self._numbers[i] == first:
                docs.append(self._docs[i])
                i += 1
            found = frozenset(docs)
            if len(self._subtrees) < 4096:
                self._subtrees["open:" + first] = found
        return found

    @staticmethod
    def weight(df: int) -> float:
        """How specific a concept is, 0..1: 1 up to :data:`SPECIFIC` rules, less beyond."""
        if df <= SPECIFIC:
            return 1.0
        return max(0.0, math.log(1 + SPECIFIC) / math.log(1 + df)) ** 4

    def subtree(self, root: str) -> frozenset[int]:
        """Current documents of rule ``root`` and every rule below it."""
        found = self._subtrees.get(root)
        if found is not None:
            return found
        numbers = self._numbers
        i = bisect_left(numbers, root)
        docs = []
        size = len(root)
        while i < len(numbers) and numbers[i].startswith(root):
            number = numbers[i]
            if len(number) == size or number[size] == "." or number[size].isalpha():
                docs.append(self._docs[i])
            i += 1
        found = frozenset(docs)
        if len(self._subtrees) < 4096:
            self._subtrees[root] = found
        return found
