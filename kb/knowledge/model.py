"""The knowledge base as pure data: editions, rules, glossary entries, commentary and their links.

Assembled in memory by :mod:`kb.build`, stored as ``kb.sqlite`` by :mod:`kb.store`, whose
:class:`~kb.store.StoredKnowledgeBase` gives the CLI, the search index and the web app this same
interface over the database. ``save``/``load`` (a whole-KB JSON file) remain for tests and tools.
Nothing here reads a corpus file or does I/O beyond (de)serialising.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kb.base.cachemap import shared_cache
from kb.knowledge.asks import Ask, asks_by_rule, page_asks
from kb.text.normal import LANGS
from kb.text.references import Ref
from kb.text.rulenum import RuleNumber, try_parse


@dataclass(slots=True)
class Edition:
    """One edition of one language: keyed by language and effective date (``en-2025-11-14``).

    ``kind`` is ``full`` (a complete text) or ``partial`` (quotes on a page). ``numbering`` is the
    id of the English edition whose numbering the rules follow (for English: itself, for a partial
    text of unknown date: the English editions it ``fits``).
    """

    id: str
    lang: str
    date: str | None
    kind: str
    numbering: str | None
    sources: list[str]
    version: str | None = None
    translates: str | None = None
    fits: list[str] = field(default_factory=list)
    title: str = ""
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Rule:
    """A numbered node of one edition: section (``1``), rule (``117``) or subrule (``117.3a``)."""

    edition: str
    lang: str
    number: str
    kind: str  # "section" | "rule" | "subrule"
    text: str
    title: str | None = None
    examples: list[str] = field(default_factory=list)
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    example_refs: list[list[Ref]] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)  # glossary keys of terms the text uses
    #: where those terms stand in ``text``: [glossary key, start, end], found once at build time
    term_spans: list[list[Any]] = field(default_factory=list)
    canonical: str | None = None  # number in the newest English edition; None if deleted
    lineage: str = ""  # groups the rule across editions: canonical, or "<edition>:<number>"
    change: str | None = None  # vs the previous edition of its language: same/moved/edited/created
    source: str = ""
    line: int = 0
    flags: list[str] = field(default_factory=list)

    @property
    def key(self) -> RuleNumber:
        """The parsed number (for ordering)."""
        num = parsed_number(self.number)
        assert num is not None, self.number
        return num


@dataclass(slots=True)
class GlossaryEntry:
    """A glossary entry of one edition; ``key`` is the lower-cased term, used in URLs."""

    edition: str
    lang: str
    key: str
    term: str
    definition: str
    aliases: list[str] = field(default_factory=list)
    obsolete: bool = False
    see: list[str] = field(default_factory=list)
    rule_refs: list[str] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    source: str = ""
    line: int = 0


@dataclass(slots=True)
class Commentary:
    """Wiki prose about rules or terms: not a rule, attached to the canonical rules it explains."""

    id: str
    lang: str
    text: str
    source: str
    line: int = 0
    heading: str | None = None
    about_rules: list[str] = field(default_factory=list)
    about_terms: list[str] = field(default_factory=list)


@dataclass(slots=True)
class TournamentRule:
    """One item of the Magic Tournament Rules (MTR), e.g. a tournament shortcut of 4.2."""

    id: str
    lang: str
    section: str
    text: str
    source: str
    line: int = 0
    flags: list[str] = field(default_factory=list)
    #: The section's name ("Tactical Shortcuts", "Raccourcis de tournoi"): searched and shown
    #: with the section's number, since a bullet's own text rarely names what it is about.
    title: str = ""

    @property
    def heading(self) -> str:
        """The section's number and name ("4.2 Raccourcis de tournoi")."""
        return f"{self.section} {self.title}".strip()


@dataclass(slots=True)
class Term:
    """One game concept in three languages (priority = priorité = 優先権), from ``terms.toml``."""

    id: str
    en: list[str]
    fr: list[str] = field(default_factory=list)
    ja: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)

    def names(self, lang: str) -> list[str]:
        """The names of the concept in one language (first is preferred)."""
        return list(getattr(self, lang, []) or [])


@dataclass(slots=True)
class ExampleInfo:
    """An executable example (``corpus/examples``): its rules, outcome and engine trace."""

    id: str
    title: str
    path: str
    rules: list[str]
    markdown: str
    passed: bool
    trace: list[dict[str, Any]] = field(default_factory=list)
    trace_text: str = ""
    #: the title and the prose (Markdown, no game blocks) by language; English is ``title`` too
    titles: dict[str, str] = field(default_factory=dict)
    prose: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Change:
    """What happened to one rule between two editions of a language."""

    change: str  # "same" | "moved" | "edited" | "created" | "deleted"
    old: str | None
    new: str | None


@dataclass
class KnowledgeBase:
    """All editions of all languages and the links between them; read-only once built."""

    editions: dict[str, Edition] = field(default_factory=dict)
    rules: dict[str, dict[str, Rule]] = field(default_factory=dict)
    glossary: dict[str, dict[str, GlossaryEntry]] = field(default_factory=dict)
    commentary: list[Commentary] = field(default_factory=list)
    tournament: list[TournamentRule] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)
    examples: list[ExampleInfo] = field(default_factory=list)
    #: "Players ask" (corpus/asks): questions in players' words citing canonical rules
    asks: list[Ask] = field(default_factory=list)
    #: canonical number -> {edition id: number in that edition}
    concordance: dict[str, dict[str, str]] = field(default_factory=dict)
    #: "from-id..to-id" -> list of changes between two editions of one language
    changes: dict[str, list[Change]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    content_hash: str = ""

    # ---- editions ------------------------------------------------------------------------
    def editions_of(self, lang: str, *, full_only: bool = False) -> list[Edition]:
        """Editions of a language, oldest first (an undated quote where its wording fits).

        Cached once the knowledge base is loaded (read-only); computed afresh while it is built.
        """
        cache = self.__dict__.get("_editions_of")
        if cache is not None and (lang, full_only) in cache:
            return list(cache[(lang, full_only)])
        eds = [e for e in self.editions.values() if e.lang == lang]
        if full_only:
            eds = [e for e in eds if e.kind == "full"]
        eds.sort(key=lambda e: (self.sort_date(e), e.id))
        if cache is not None:
            cache[(lang, full_only)] = eds
        return list(eds)

    def glossary_edition(self, lang: str) -> Edition | None:
        """The newest edition of a language that has a glossary (None: the language has none)."""
        for ed in reversed(self.editions_of(lang)):
            if self.glossary.get(ed.id):
                return ed
        return None

    def resolve_edition(self, spec: str, lang: str | None = None) -> Edition | None:
        """An edition from what a user typed: an id (``en-2019-06-14``), or a date, version or date
        prefix in ``lang`` (default: English)."""
        spec = spec.strip()
        if spec in self.editions:
            return self.editions[spec]
        if lang is None and spec[:3] in ("en-", "fr-", "ja-"):
            return self.edition(spec[:2], spec[3:])
        return self.edition(lang or "en", spec)

    def sort_date(self, ed: Edition) -> str:
        """Where an edition stands in time: its date, else the oldest edition it fits or follows."""
        if ed.date:
            return ed.date
        dates = [self.editions[f].date or "" for f in ed.fits if f in self.editions]
        if not dates and ed.translates in self.editions:
            return self.sort_date(self.editions[ed.translates])
        if not dates and ed.numbering and ed.numbering[:4].isdigit():
            dates = [ed.numbering[:10]]  # the start of the numbering range it follows
        return min(dates) if dates else ""

    def newest(self, lang: str) -> Edition | None:
        """The newest edition of a language: a full text if there is one, else any."""
        full = self.editions_of(lang, full_only=True)
        if full:
            return full[-1]
        eds = self.editions_of(lang)
        return eds[-1] if eds else None

    def edition(self, lang: str, spec: str | None) -> Edition | None:
        """Find an edition of ``lang`` by id, ISO date, version, the date in its file's name
        (``2019-06-12`` for the text of 2019-06-14) or a date prefix of a year or a month
        (``2019``, ``2019-07``: the newest that matches); None: newest."""
        if not spec:
            return self.newest(lang)
        matches = self.edition_matches(lang, spec)
        return matches[-1] if matches else None

    def edition_matches(self, lang: str, spec: str) -> list[Edition]:
        """Every edition of ``lang`` a typed ``spec`` names, oldest first (see :meth:`edition`):
        an exact id, date, version or file date names one; a year or month prefix may name
        several, which a caller names back when it wants one."""
        spec = spec.strip()
        if spec in self.editions and self.editions[spec].lang == lang:
            return [self.editions[spec]]
        eds = self.editions_of(lang)
        exact = [e for e in eds if e.id == f"{lang}-{spec}" or e.date == spec or e.version == spec]
        if not exact and _ISO_DATE.fullmatch(spec):
            exact = [e for e in eds if any(spec in _file_date(s) for s in e.sources)]
        if exact or not _DATE_PREFIX.fullmatch(spec):
            return exact
        return [e for e in eds if e.date and e.date.startswith(spec + "-")]

    # ---- rules ---------------------------------------------------------------------------
    def rule(self, edition_id: str, number: str) -> Rule | None:
        """The rule with that number in one edition, or None."""
        return self.rules.get(edition_id, {}).get(number)

    def in_edition(self, canonical: str, edition_id: str) -> Rule | None:
        """The rule of one edition that is (or became) the given canonical rule."""
        number = self.concordance.get(canonical, {}).get(edition_id)
        return self.rule(edition_id, number) if number else None

    def find(self, lang: str, number: str, edition: str | None = None) -> Rule | None:
        """Look a rule up by language and number: in a pinned edition, or newest that has it."""
        if edition:
            ed = self.edition(lang, edition)
            return self.rule(ed.id, number) if ed else None
        for ed in reversed(self.editions_of(lang)):
            if ed.kind == "full" and number in self.rules.get(ed.id, {}):
                return self.rules[ed.id][number]
        for ed in reversed(self.editions_of(lang)):
            if number in self.rules.get(ed.id, {}):
                return self.rules[ed.id][number]
        return None

    def current(self, canonical: str, lang: str) -> Rule | None:
        """The newest rule of ``lang`` that maps to a canonical number."""
        editions = self.concordance.get(canonical, {})
        for ed in reversed(self.editions_of(lang)):
            if ed.id in editions:
                return self.rule(ed.id, editions[ed.id])
        return None

    def counterparts(self, rule: Rule) -> dict[str, Rule]:
        """The same rule in each other language: the newest text there of its lineage."""
        lineage = rule.lineage or rule.canonical
        out: dict[str, Rule] = {}
        for lang in LANGS:
            other = self.current(lineage, lang) if lineage and lang != rule.lang else None
            if other is not None:
                out[lang] = other
        return out

    def subtree(self, rule: Rule) -> list[Rule]:
        """The rule and everything below it, in document order."""
        out = [rule]
        for child in rule.children:
            node = self.rule(rule.edition, child)
            if node:
                out.extend(self.subtree(node))
        return out

    def neighbours(self, rule: Rule) -> tuple[Rule | None, Rule | None]:
        """The previous and next rule of the same edition in document order."""
        numbers = self.ordered_numbers(rule.edition)
        try:
            pos = numbers.index(rule.number)
        except ValueError:
            return None, None
        table = self.rules[rule.edition]
        prev = table[numbers[pos - 1]] if pos > 0 else None
        nxt = table[numbers[pos + 1]] if pos + 1 < len(numbers) else None
        return prev, nxt

    def ordered_numbers(self, edition_id: str) -> list[str]:
        """All numbers of one edition, sorted numerically (cached per edition)."""
        cache = self.__dict__.setdefault("_order", {})
        if edition_id not in cache:
            table = self.rules.get(edition_id, {})
            cache[edition_id] = sorted(table, key=lambda n: table[n].key.sort_key())
        return cache[edition_id]

    def history(self, canonical: str, lang: str) -> list[dict[str, Any]]:
        """The rule across every edition of ``lang``: ``{edition, date, number, change}``."""
        out: list[dict[str, Any]] = []
        numbers = self.concordance.get(canonical, {})
        for ed in self.editions_of(lang):
            if ed.id in numbers:
                rule = self.rule(ed.id, numbers[ed.id])
                out.append(
                    {
                        "edition": ed.id,
                        "date": ed.date,
                        "number": numbers[ed.id],
                        "change": rule.change if rule else None,
                    }
                )
        return out

    def history_texts(self, canonical: str, lang: str) -> list[dict[str, Any]]:
        """:meth:`history` with each edition's ``title``, ``text`` and ``examples`` of the rule:
        what a page needs to show its word diffs, in one lookup instead of one per edition."""
        out = []
        for entry in self.history(canonical, lang):
            rule = self.rule(entry["edition"], entry["number"])
            if rule is not None:
                out.append(
                    {**entry, "title": rule.title, "text": rule.text, "examples": rule.examples}
                )
        return out

    def referenced_by(self, rule: Rule) -> list[str]:
        """Numbers of the rules of the same edition whose text refers to this rule."""
        index = self.__dict__.setdefault("_backrefs", {})
        if rule.edition not in index:
            back: dict[str, list[str]] = {}
            for other in self.rules.get(rule.edition, {}).values():
                for ref in other.refs:
                    back.setdefault(ref.number, [])
                    if other.number not in back[ref.number]:
                        back[ref.number].append(other.number)
            index[rule.edition] = back
        return index[rule.edition].get(rule.number, [])

    def examples_for(self, canonical: str) -> list[ExampleInfo]:
        """Executable examples that cite this canonical rule (or a rule below it), in the list's
        order: from an index of the examples by the numbers they cite, made once on a loaded
        knowledge base (read-only) rather than a scan of every example per page."""
        cache = shared_cache(self, "_examples_citing")
        index = cache.get("index") if cache is not None else None
        if index is None or index[0] is not self.examples:
            fit = examples_fit(self.editions.values())  # else no number names an example's rule
            index = (self.examples, _citing(self.examples) if fit else {})
            if cache is not None:  # else being built: the list may still change
                cache["index"] = index
        examples, at = index
        return [examples[i] for i in at.get(canonical, ())]

    def asks_for(self, canonical: str, lang: str) -> tuple[str, list[Ask], int]:
        """The questions players ask that cite ``canonical``, in ``lang`` else in English: the
        language shown, the first few and how many more (:func:`kb.knowledge.asks.page_asks`;
        indexed once on a loaded knowledge base)."""
        cache = shared_cache(self, "_asks_citing")
        index = cache.get("index") if cache is not None else None
        if index is None or index[0] is not self.asks:
            index = (self.asks, asks_by_rule(self.asks))
            if cache is not None:
                cache["index"] = index
        return page_asks(index[0], index[1], canonical, lang)

    # ---- glossary ------------------------------------------------------------------------
    def glossary_lookup(
        self, term: str, lang: str, edition: str | None = None
    ) -> GlossaryEntry | None:
        """A glossary entry by term or alias, case-insensitively, in the newest edition having it."""
        wanted = term.strip().lower()
        eds = [self.edition(lang, edition)] if edition else list(reversed(self.editions_of(lang)))
        for ed in eds:
            if ed is None:
                continue
            table = self.glossary.get(ed.id, {})
            if wanted in table:
                return table[wanted]
            for entry in table.values():
                if wanted in (a.lower() for a in entry.aliases):
                    return entry
        return None

    # ---- (de)serialisation ----------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of everything (the ``kb.json`` artefact)."""
        return {
            "format": 1,
            "content_hash": self.content_hash,
            "editions": [_plain(e) for e in self.editions.values()],
            "rules": {ed: [_plain(r) for r in table.values()] for ed, table in self.rules.items()},
            "glossary": {
                ed: [_plain(g) for g in table.values()] for ed, table in self.glossary.items()
            },
            "commentary": [_plain(c) for c in self.commentary],
            "tournament": [_plain(t) for t in self.tournament],
            "terms": [_plain(t) for t in self.terms],
            "examples": [asdict(x) for x in self.examples],
            "asks": [asdict(a) for a in self.asks],
            "concordance": self.concordance,
            "changes": {k: [_plain(c) for c in v] for k, v in self.changes.items()},
            "warnings": self.warnings,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KnowledgeBase:
        """Rebuild a knowledge base from :meth:`to_json` output."""

        def rule(d: dict[str, Any]) -> Rule:
            d = dict(d)
            d["refs"] = [Ref(**r) for r in d["refs"]]
            d["example_refs"] = [[Ref(**r) for r in refs] for refs in d["example_refs"]]
            return Rule(**d)

        def gloss(d: dict[str, Any]) -> GlossaryEntry:
            d = dict(d)
            d["refs"] = [Ref(**r) for r in d["refs"]]
            return GlossaryEntry(**d)

        kb = cls(
            editions={e["id"]: Edition(**e) for e in data["editions"]},
            rules={ed: {r["number"]: rule(r) for r in rs} for ed, rs in data["rules"].items()},
            glossary={ed: {g["key"]: gloss(g) for g in gs} for ed, gs in data["glossary"].items()},
            commentary=[Commentary(**c) for c in data["commentary"]],
            tournament=[TournamentRule(**t) for t in data["tournament"]],
            terms=[Term(**t) for t in data["terms"]],
            examples=[ExampleInfo(**x) for x in data["examples"]],
            asks=[Ask(**a) for a in data.get("asks", [])],
            concordance=data["concordance"],
            changes={k: [Change(**c) for c in v] for k, v in data["changes"].items()},
            warnings=data["warnings"],
            content_hash=data["content_hash"],
        )
        kb.__dict__["_editions_of"] = {}  # loaded means read-only: lookups may be cached
        return kb

    def save(self, path: Path) -> None:
        """Write ``kb.json`` (compact UTF-8)."""
        path.write_text(json.dumps(self.to_json(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> KnowledgeBase:
        """Read ``kb.json``."""
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))


#: The numbering the executable examples (``corpus/examples``) cite rules by: the one in force
#: since the edition of July 12, 2019, which made Timing and Priority rule 117.
EXAMPLES_NUMBERING = "2019-07-12"
#: The first edition of the M10 numbering; full editions before it follow another numbering.
M10_FIRST_DATE = "2009-07-11"


def examples_fit(editions: Iterable[Edition]) -> bool:
    """True when the knowledge base's canonical numbers follow the examples' numbering: its newest
    full English edition of the M10 numbering is dated on or after :data:`EXAMPLES_NUMBERING`, or
    it has none (partial texts follow the numbering their manifest declares). Otherwise "117.3b"
    names another rule there, and no example may be attached by number."""
    dates = [
        e.date
        for e in editions
        if e.lang == "en" and e.kind == "full" and e.date and e.date >= M10_FIRST_DATE
    ]
    return not dates or max(dates) >= EXAMPLES_NUMBERING


@lru_cache(maxsize=1 << 16)
def parsed_number(number: str) -> RuleNumber | None:
    """A rule number parsed once (an archive repeats the same numbers in every edition)."""
    return try_parse(number)


@lru_cache(maxsize=1 << 16)
def number_order(number: str) -> tuple[int, int, int]:
    """The sort key of a valid rule number (:meth:`RuleNumber.sort_key`), once per number."""
    num = parsed_number(number)
    assert num is not None, number
    return num.sort_key()


@lru_cache(maxsize=1 << 16)
def ancestor_numbers(number: str) -> tuple[str, ...]:
    """The numbers above rule ``number``, nearest first, once per number (none if it is not a
    rule number).

    A number in its short form (``117.3b``, :class:`kb.text.rulenum.RuleNumber`'s ``str``, as every
    rule carries it) has its prefixes as ancestors, cut as text (2 µs) rather than parsed
    (20 µs, paid by a search on each subrule's first hit); any other spelling is parsed."""
    short = _SHORT_NUMBER.fullmatch(number)
    if short is not None:
        rule, subrule, letter = short.groups()
        if subrule is None:
            return (rule[0],)
        return (f"{rule}.{subrule}", rule, rule[0]) if letter else (rule, rule[0])
    num = parsed_number(number)
    return tuple(str(a) for a in num.ancestors()) if num is not None else ()


#: A rule number in its short form: a rule (100-999), a subrule, a lettered subrule.
_SHORT_NUMBER = re.compile(r"([1-9][0-9][0-9])(?:\.(0|[1-9][0-9]{0,2})([a-z]?))?")


def _plain(obj: Any) -> Any:
    """A slotted dataclass as plain dicts and lists (``asdict`` deep-copies: five times slower)."""
    if hasattr(obj, "__slots__") and hasattr(obj, "__dataclass_fields__"):
        return {name: _plain(getattr(obj, name)) for name in obj.__dataclass_fields__}
    if isinstance(obj, list):
        return [_plain(x) for x in obj]
    return obj


def _citing(examples: list[ExampleInfo]) -> dict[str, list[int]]:
    """The examples' positions, in order, by each number they cite and each number above those
    (the page of 117 shows the examples citing 117.3b)."""
    at: dict[str, list[int]] = {}
    for i, ex in enumerate(examples):
        above = {str(a) for r in ex.rules if (num := try_parse(r)) for a in num.ancestors()}
        for key in {*ex.rules, *above}:
            at.setdefault(key, []).append(i)
    return at


# What --edition may abbreviate: a year or a year and month ("2" or "201" named any edition).
_DATE_PREFIX = re.compile(r"\d{4}(?:-\d{2})?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _file_date(source: str) -> list[str]:
    """The ISO dates in a source file's name (``MagicCompRules-2019-06-12.txt``, or
    ``MagicCompRules 20190612.txt``), which may differ from its edition's effective date."""
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    return [
        f"{y}-{m}-{d}" for y, m, d in re.findall(r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?!\d)", name)
    ]
