"""Questions about the knowledge base that every reader asks: which edition a visitor means,
which rule a number stands for now, how far a translation lags, which glossary entry a word names.

Pure functions of a :class:`~kb.knowledge.model.KnowledgeBase` (no web, no I/O), shared by the CLI, the
web pages and exports.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import difflib
from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kb.knowledge.model import LANGS, Edition, GlossaryEntry, KnowledgeBase, Rule, ancestor_numbers
from kb.knowledge.printed import printed_rule
from kb.text.normal import nfkc
from kb.text.rulenum import LETTERS, try_parse

if TYPE_CHECKING:
    from kb.knowledge.terms import TermIndex

__all__ = [
    "GlossaryMatch",
    "canonical_for",
    "edition_rule",
    "find_glossary",
    "followed_editions",
    "glossary_edition",
    "glossary_match",
    "glossary_shadowed",
    "glossary_suggestions",
    "lag",
    "lineage_number",
    "listed_editions",
    "local_term",
    "lookup_rule",
    "move_runs",
    "nearest_rules",
    "neighbour_numbers",
    "old_rule",
    "resolve_edition",
    "rule_context",
    "rule_edition",
    "rules_many",
    "term_entry",
    "toc_edition",
]


def resolve_edition(kb: KnowledgeBase, spec: str, lang: str) -> Edition | None:
    """An edition from a URL: an id (any language), else a date or version in ``lang``, else in
    English (``/ja/2011-09-30/…`` shows the English text when Japanese has no such edition)."""
    return kb.resolve_edition(spec, lang) or kb.resolve_edition(spec, "en")


def rule_edition(kb: KnowledgeBase, spec: str, lang: str, number: str) -> Edition | None:
    """The edition ``spec`` names for rule ``number``: that of :func:`resolve_edition`, except
    that a date or version naming a partial translation without that rule (the 14 rules of the
    Japanese wiki page of 2023-11-17) names the official (English) edition of that date, as a
    date names an official edition. An edition id is kept."""
    ed = resolve_edition(kb, spec, lang)
    if ed is None or ed.kind == "full" or ed.lang == "en" or spec.strip() == ed.id:
        return ed
    if edition_rule(kb, ed, number) is not None:
        return ed
    return kb.resolve_edition(spec, "en") or ed


def edition_rule(kb: KnowledgeBase, ed: Edition, number: str) -> Rule | None:
    """Rule ``number`` of edition ``ed``, or the rule a misprint of it names (505.54 of
    2010-06-18 is its 505.5: :func:`kb.knowledge.printed.printed_rule`)."""
    return kb.rule(ed.id, number) or printed_rule(kb, ed.lang, number, ed.id)


def old_rule(kb: KnowledgeBase, spec: str, lang: str, number: str) -> Rule | None:
    """The rule an old number names in a named edition (:func:`rule_edition`; its
    ``canonical`` is the current rule it became, None if deleted); None when the edition or the
    number is unknown."""
    ed = rule_edition(kb, spec, lang, number)
    return edition_rule(kb, ed, number) if ed else None


def rules_many(
    kb: KnowledgeBase,
    pairs: Iterable[tuple[str, str]],
    heads: Collection[tuple[str, str]] = (),
) -> dict[tuple[str, str], Any]:
    """Rules by ``(edition, number)``, None where there is none: in one query from a database
    (:meth:`kb.store.StoredKnowledgeBase.rules_many`, which keeps them for the next
    :meth:`~kb.knowledge.model.KnowledgeBase.rule`), one by one from a knowledge base in memory.

    ``heads``: pairs only linked to (number, title, text, canonical): from a database, those
    it has not decoded already come as a lighter :class:`kb.store.reader.RuleHead`."""
    many = getattr(kb, "rules_many", None)
    if many is not None:
        return many(pairs, heads) if heads else many(pairs)  # type: ignore[no-any-return]
    return {pair: kb.rule(*pair) for pair in [*pairs, *heads]}


def neighbour_numbers(kb: KnowledgeBase, rule: Rule) -> tuple[str | None, str | None]:
    """The numbers of the rules before and after ``rule`` in its edition's numeric order
    (what :meth:`~kb.knowledge.model.KnowledgeBase.neighbours` gives, without reading the rules)."""
    numbers = getattr(kb, "neighbour_numbers", None)
    if numbers is not None:
        return numbers(rule)  # type: ignore[no-any-return]
    prev, nxt = kb.neighbours(rule)
    return (prev.number if prev else None), (nxt.number if nxt else None)


def followed_editions(kb: KnowledgeBase, ed: Edition) -> list[str]:
    """The editions whose numbering a text follows, nearest first: itself, what it translates,
    the editions its wording fits (newest first), the edition its numbering names.

    Kept per knowledge base object once it is loaded (read-only; a rebuild replaces it): every
    reference of every rule page asks. A copy is returned."""
    if "_editions_of" not in kb.__dict__ or kb.editions.get(ed.id) is not ed:
        return _followed_editions(kb, ed)  # being built, or an edition of another
    cache = kb.__dict__.setdefault("_followed", {})
    found = cache.get(ed.id)
    if found is None:
        found = cache[ed.id] = _followed_editions(kb, ed)
    return list(found)


def _followed_editions(kb: KnowledgeBase, ed: Edition) -> list[str]:
    out = [ed.id]
    node = ed
    for _step in range(4):
        nxt = [node.translates] if node.translates else []
        nxt += list(reversed(node.fits))
        if node.numbering in kb.editions:
            nxt.append(node.numbering)
        nxt = [n for n in nxt if n and n in kb.editions and n not in out]
        if not nxt:
            break
        out.extend(nxt)
        node = kb.editions[nxt[0]]
    return out


def lag(kb: KnowledgeBase, ed: Edition) -> dict[str, Any]:
    """How far a text is behind the newest full English edition, in full English editions and
    days, measured from the text it follows (the original it translates, else itself).

    Undated: ``editions`` is the least number of full editions published after the end of its
    numbering range (``at_least``), ``days`` None; nothing known: both None.
    """
    chain = followed_editions(kb, ed)
    follows = kb.editions[chain[1]] if ed.translates and len(chain) > 1 else ed
    full = kb.editions_of("en", full_only=True)
    out: dict[str, Any] = {
        "follows": follows.id,
        "follows_date": follows.date,
        "numbering": follows.numbering,
        "editions": None,
        "days": None,
        "at_least": False,
    }
    if not full:
        return out
    if follows.date:
        out["editions"] = sum(1 for e in full if e.date and e.date > follows.date)
        newest = full[-1].date
        if newest:
            days = dt.date.fromisoformat(newest) - dt.date.fromisoformat(follows.date)
            out["days"] = max(0, days.days)
        return out
    _start, _sep, end = (follows.numbering or "").partition("..")
    if end[:4].isdigit():
        out["editions"] = sum(1 for e in full if e.date and e.date > end)
        out["at_least"] = True
    return out


def listed_editions(kb: KnowledgeBase, lang: str) -> list[Edition]:
    """The editions of a language as lists show them to a reader (``kb editions``, the editions
    page and its comparison selectors, the search form): dated ones oldest first, then the
    undated, which have no place in time (an undated wiki quote is not of October 2010)."""
    eds = kb.editions_of(lang)
    return [e for e in eds if e.date] + [e for e in eds if not e.date]


def toc_edition(kb: KnowledgeBase, locale: str) -> Edition | None:
    """The edition whose sections and rules make the table of contents for a locale."""
    own = kb.newest(locale)
    if own is not None and own.kind == "full":
        return own
    return kb.newest("en") or own


def lookup_rule(kb: KnowledgeBase, locale: str, key: str) -> tuple[Rule, bool] | None:
    """The current rule for a canonical number in the locale's language (or English, flagged)."""
    if key in kb.concordance:
        for lang in (locale, "en", *LANGS):
            rule = kb.current(key, lang)
            if rule is not None:
                return rule, rule.lang != locale
    rule = kb.find(locale, key)
    if rule is not None:
        return rule, False
    rule = kb.find("en", key)
    if rule is not None:
        return rule, locale != "en"
    return None


def canonical_for(kb: KnowledgeBase, locale: str, key: str) -> str | None:
    """The current rule a visitor's number stands for: the number itself when it is a canonical
    id; else an old number's canonical, from the newest edition that printed it (the visitor's
    language first, then English, then the others); None when no live rule has that number."""
    if key in kb.concordance:
        return key
    for lang in dict.fromkeys((locale, "en", *LANGS)):
        rule = kb.find(lang, key)
        if rule is not None and rule.canonical:
            return rule.canonical
    return None


def glossary_edition(kb: KnowledgeBase, locale: str) -> Edition | None:
    """The glossary a locale shows: its language's newest, else the English one."""
    return kb.glossary_edition(locale) or kb.glossary_edition("en")


def find_glossary(kb: KnowledgeBase, locale: str, key: str) -> GlossaryEntry | None:
    """The entry a word names for a reader of ``locale`` (:func:`glossary_match`), or None: a
    page's address never leads to a guess (the caller offers it among the suggestions)."""
    found = glossary_match(kb, key, locale)
    return found.entry if found and not found.guessed else None


@dataclass(frozen=True, slots=True)
class GlossaryMatch:
    """What :func:`glossary_match` found: the entry, and how."""

    entry: GlossaryEntry
    #: The English name the term base gave for the words (None: the words name the entry).
    via: str | None = None
    #: True when the term base only found a concept *inside* the words (a guess).
    guessed: bool = False


def glossary_match(kb: KnowledgeBase, text: str, lang: str) -> GlossaryMatch | None:
    """The glossary entry ``text`` names for a reader of ``lang``: the one lookup of the CLI's
    ``kb glossary`` and the web's ``/<lang>/glossary/<key>``.

    Nearest first: an entry of ``lang``'s glossary, then a name of the term base in ``lang``
    (``joueur actif``, ``pile``, ``優先権``), then an English entry, each as typed, then the same
    up to case, accents and singular/plural (``state-based action``), then a name in another
    language; only then a concept the term base finds inside the words (a guess).
    """
    wanted = nfkc(text).strip()
    if not wanted or len(wanted) > 200 or lang not in LANGS:
        return None
    others = [code for code in LANGS if code != lang]
    entry = kb.glossary_lookup(wanted, lang)
    if entry is not None:
        return GlossaryMatch(entry)
    found = _term_glossary(kb, _term_index(kb, lang).get(wanted.lower()), lang)
    if found is not None:
        return found
    if lang != "en" and (entry := kb.glossary_lookup(wanted, "en")) is not None:
        return GlossaryMatch(entry)
    for code in dict.fromkeys((lang, "en")):
        key = _glossary_stems(kb, code).get(_name_key(wanted, code))
        if key is not None and (entry := kb.glossary_lookup(key, code)) is not None:
            return GlossaryMatch(entry)
        if code == lang:
            found = _term_glossary(kb, _term_stems(kb, lang).get(_name_key(wanted, lang)), lang)
            if found is not None:
                return found
    for code in others:
        position = _term_index(kb, code).get(wanted.lower())
        if position is None:
            position = _term_stems(kb, code).get(_name_key(wanted, code))
        found = _term_glossary(kb, position, lang)
        if found is not None:
            return found
    index = _term_base_index(kb)
    for src in (lang, *others):
        for name in index.translate(wanted, src, "en"):
            entry = kb.glossary_lookup(name, lang) or kb.glossary_lookup(name, "en")
            if entry is not None:
                return GlossaryMatch(entry, name, guessed=True)
    return None


def _name_key(text: str, lang: str) -> object:
    """The comparison key of a name (stems for EN/FR: case, accents and plural ignored)."""
    from kb.knowledge.terms import normalize_name

    return normalize_name(text, lang)


def _term_glossary(kb: KnowledgeBase, position: int | None, lang: str) -> GlossaryMatch | None:
    """The entry of the term base's concept at ``position``: by its English names, in ``lang``'s
    glossary, else the English one."""
    if position is None:
        return None
    for name in kb.terms[position].names("en"):
        entry = kb.glossary_lookup(name, lang) or kb.glossary_lookup(name, "en")
        if entry is not None:
            return GlossaryMatch(entry, name)
    return None


def _glossary_stems(kb: KnowledgeBase, lang: str) -> dict[object, str]:
    """Comparison key -> entry key, of the keys and aliases of ``lang``'s newest glossary
    (built once per knowledge base object)."""
    cache = kb.__dict__.setdefault("_glossary_stems", {})
    table = cache.get(lang)
    if table is None:
        table = {}
        ed = kb.glossary_edition(lang)
        for key, entry in (kb.glossary.get(ed.id, {}) if ed else {}).items():
            for name in (key, *entry.aliases):
                table.setdefault(_name_key(name, lang), key)
        cache[lang] = table
    return table


def _term_base_index(kb: KnowledgeBase) -> TermIndex:
    """The term base's phrase index (built once per knowledge base: 5 ms a build, and a page
    for a mistyped glossary key would pay it on every request)."""
    from kb.knowledge.terms import TermIndex

    index = kb.__dict__.get("_term_base_index")
    if index is None:
        index = kb.__dict__["_term_base_index"] = TermIndex(kb.terms)
    return index


def _term_stems(kb: KnowledgeBase, lang: str) -> dict[object, int]:
    """Comparison key -> position of the first Term with that ``lang`` name (built once)."""
    cache = kb.__dict__.setdefault("_term_stems", {})
    table = cache.get(lang)
    if table is None:
        table = {}
        for position, term in enumerate(kb.terms):
            for name in term.names(lang):
                table.setdefault(_name_key(name, lang), position)
        cache[lang] = table
    return table


def glossary_shadowed(kb: KnowledgeBase, locale: str) -> frozenset[str]:
    """Keys of the English glossary that name another entry for a reader of ``locale`` (in
    French, ``pile`` is the stack, not the English entry "Pile"): their links say the entry's
    language. Built once per knowledge base object and locale."""
    if locale == "en":
        return frozenset()
    cache = kb.__dict__.setdefault("_glossary_shadowed", {})
    found = cache.get(locale)
    if found is None:
        names = set(_term_index(kb, locale)) | set(_term_stems(kb, locale))
        ed = kb.glossary_edition("en")
        keys = set()
        own = kb.glossary_edition(locale) is not None
        for key in kb.glossary.get(ed.id, {}) if ed else {}:
            if own or key in names or _name_key(key, locale) in names:
                match = glossary_match(kb, key, locale)
                if match is None or match.entry.key != key or match.entry.lang != "en":
                    keys.add(key)
        found = cache[locale] = frozenset(keys)
    return found


#: Entries :func:`term_entry` keeps per knowledge base (the oldest looked up go first).
TERM_ENTRY_CACHE = 8192


def term_entry(
    kb: KnowledgeBase, key: str, lang: str, edition: str | None = None
) -> GlossaryEntry | None:
    """The entry a term of a ``lang`` text names: as its own edition defined it (a 2016 rule, the
    2016 glossary), else its language's newest glossary, else the English."""
    cache = kb.__dict__.get("_term_entries")
    if cache is None:
        cache = kb.__dict__.setdefault("_term_entries", OrderedDict())
    wanted = (key, lang, edition)
    if wanted in cache:
        return cache[wanted]
    own = kb.glossary.get(edition or "", {}).get(key)
    found = own or kb.glossary_lookup(key, lang) or kb.glossary_lookup(key, "en")
    # Kept per knowledge base object (a rebuild replaces it): a page names a dozen terms, and
    # the same few hundred recur on every page of an edition.
    cache[wanted] = found
    if len(cache) > TERM_ENTRY_CACHE:
        with contextlib.suppress(KeyError):  # another thread emptied it first
            cache.popitem(last=False)
    return found


def local_term(kb: KnowledgeBase, entry: GlossaryEntry, locale: str) -> str | None:
    """The name of a glossary entry's concept in ``locale`` from the term base (the Term whose
    English names hold the entry's key, term or an alias), None when it is already in that
    language or the term base has no name there."""
    if entry.lang == locale:
        return None
    names = {entry.key.lower(), entry.term.lower(), *(a.lower() for a in entry.aliases)}
    index = _term_index(kb, entry.lang)
    first = min((index[n] for n in names if n in index), default=None)
    if first is None:
        return None
    local = kb.terms[first].names(locale)
    return local[0] if local else None


def _term_index(kb: KnowledgeBase, lang: str) -> dict[str, int]:
    """Lower-cased name in ``lang`` -> position of the first Term that has it (built once per
    knowledge base object: the term base is a list, and rule pages look names up by the dozen)."""
    cache = kb.__dict__.setdefault("_term_index", {})
    index = cache.get(lang)
    if index is None:
        index = {}
        for position, term in enumerate(kb.terms):
            for name in term.names(lang):
                index.setdefault(name.lower(), position)
        cache[lang] = index
    return index


def glossary_suggestions(
    kb: KnowledgeBase, text: str, lang: str, limit: int = 8
) -> list[GlossaryEntry]:
    """Entries a reader may have meant by ``text`` that names none, best first, one per key.

    The tolerance of search, for a list of 700 names: an entry whose words start with the
    words typed (``APNAP`` -> "APNAP Order", ``declare att`` -> "Declare Attackers Step"), then
    entries within a typo or two (``stak`` -> "Stack", by :func:`difflib.get_close_matches`).
    Only the newest glossary of ``lang`` and of English are read, never every edition's.
    """
    wanted = nfkc(text).strip().casefold()
    if not wanted or len(wanted) > 80:
        return []
    entries: dict[str, GlossaryEntry] = {}
    for code in dict.fromkeys((lang, "en")):
        ed = kb.glossary_edition(code)
        for key, entry in (kb.glossary.get(ed.id, {}) if ed else {}).items():
            entries.setdefault(key.casefold(), entry)
    words = wanted.split()
    found: list[str] = []
    for key in entries:
        names = [key, *(a.casefold() for a in entries[key].aliases)]
        if key != wanted and any(_words_start(name.split(), words) for name in names):
            found.append(key)
    found.sort(key=lambda k: (len(k), k))
    close = difflib.get_close_matches(wanted, list(entries), n=limit, cutoff=0.75)
    ordered = list(dict.fromkeys([*found, *close]))
    return [entries[k] for k in ordered[:limit]]


def _words_start(name: list[str], typed: list[str]) -> bool:
    """True when the typed words begin the name's words, in order (``declare att``)."""
    return len(typed) <= len(name) and all(
        n.startswith(t) for n, t in zip(name, typed, strict=False)
    )


def nearest_rules(kb: KnowledgeBase, edition_id: str, number: str, n: int = 5) -> list[str]:
    """Numbers of one edition near an unknown one, for "did you mean": its deepest ancestor
    that exists, then the numbers of the same depth around where it would stand in the
    document under it (999.9 -> 9, 905.4, 905.5, 905.6 ...; 117.3z -> 117.3, 117.3a ... 117.3d).
    When that ancestor holds too few of that depth, shallower numbers fill in (117.3b in
    2003-03-15, whose section 1 has no lettered subrule: 1, 103.2, 103.1, 103 ...)."""
    wanted = try_parse(number)
    table = kb.rules.get(edition_id, {})
    if wanted is None or not table:
        return []
    out: list[str] = []
    for anc in wanted.ancestors():
        if str(anc) in table:
            out.append(str(anc))
            break
    scope = try_parse(out[0]) if out else None
    under = [
        (num, m)
        for m in kb.ordered_numbers(edition_id)
        if (num := try_parse(m)) and (scope is None or scope in num.ancestors())
    ]
    for depth in range(wanted.depth, 0, -1):
        same_depth = [m for num, m in under if num.depth == depth]
        keys = [parse_key(m) for m in same_depth]
        at = bisect.bisect_left(keys, wanted.sort_key())
        # Alternate after/before the insertion point, nearest first.
        before, after = at - 1, at
        while len(out) < n and (before >= 0 or after < len(same_depth)):
            if before >= 0:
                out.append(same_depth[before])
                before -= 1
            if after < len(same_depth) and len(out) < n:
                out.append(same_depth[after])
                after += 1
        if len(out) >= n:
            break
    near = sorted(dict.fromkeys(out), key=parse_key)[:n]
    same = lineage_number(kb, edition_id, number)
    if same is not None:
        # The same rule under that edition's numbering (117.3b was 115.3b in 2009) comes first:
        # the numbers near 117.3b there belong to other rules.
        near = [same, *(m for m in near if m != same)][:n]
    return near


def lineage_number(kb: KnowledgeBase, edition_id: str, number: str) -> str | None:
    """The number the current rule ``number`` had in an edition (the concordance: 117.3b was
    115.3b in 2009), None when ``number`` is not current, the edition lacks it, or it is the same."""
    found = kb.concordance.get(number, {}).get(edition_id)
    return found if found and found != number else None


def parse_key(number: str) -> tuple[int, int, int]:
    """The document-order key of a rule number (unparsable numbers last)."""
    num = try_parse(number)
    return num.sort_key() if num else (10**6, 0, 0)


def rule_context(kb: KnowledgeBase, rule: Rule | None) -> str:
    """What a rule is about, for a list of numbers: its title, else its nearest titled
    ancestor's (117.3b: "Timing and Priority")."""
    if rule is None:
        return ""
    return rule.title or ancestor_title(kb, rule)


def ancestor_title(kb: KnowledgeBase, rule: Rule) -> str:
    """The title of the nearest titled rule above (a subrule shows its rule's title)."""
    for number in ancestor_numbers(rule.number):
        node = kb.rule(rule.edition, number)
        if node is not None and node.title:
            return node.title
    return ""


def _move_step(old: str, new: str) -> tuple[int, ...] | None:
    """How a rule number moved, when it moved at one level only: ``(0, d)`` for the rule
    number (``115.1a`` -> ``116.1a``), ``(1, major, d)`` for the subrule number (``702.30`` ->
    ``702.31``, ``702.30a`` -> ``702.31a``), ``(2, major, minor, d)`` for the letter, counted as
    the rules letter (no "l" or "o"). None for any other move (two levels, a change of depth)."""
    a, b = try_parse(old), try_parse(new)
    if a is None or b is None or a.is_section or b.is_section:
        return None
    if (a.minor, a.letter) == (b.minor, b.letter) and a.major != b.major:
        return (0, b.major - a.major)
    if a.major != b.major:
        return None
    if a.letter == b.letter and a.minor is not None and b.minor is not None:
        return (1, a.major, b.minor - a.minor) if a.minor != b.minor else None
    if a.minor == b.minor and a.minor is not None and a.letter and b.letter:
        return (2, a.major, a.minor, _letter_rank(b.letter) - _letter_rank(a.letter))
    return None


def _letter_rank(letter: str) -> int:
    # The rules' lettering (kb.text.rulenum.LETTERS) skips "l" and "o": 702.19k is followed by 702.19m.
    return bisect.bisect_left(LETTERS, letter)


def move_runs(
    moves: list[dict[str, Any]], old_order: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Pure moves (dicts with ``old`` and ``new`` numbers, in document order) folded into runs
    that shifted together (``115.1 … 115.7c -> 116.1 … 116.7c``): each rule of a run follows the
    previous one in the old edition (``old_order``, its numbers in document order; without it,
    in the list) and moved by the same step (:func:`_move_step`). A swap or an irregular move is a
    run of one. Each run: ``first``, ``last``, ``count``, ``items``."""
    position = {n: i for i, n in enumerate(old_order)} if old_order is not None else None
    runs: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    for item in moves:
        step = _move_step(item["old"] or "", item["new"] or "")
        follows = position is None or (
            previous is not None
            and item["old"] in position
            and position.get(previous["old"]) == position[item["old"]] - 1
        )
        if runs and step is not None and follows and runs[-1]["step"] == step:
            runs[-1]["items"].append(item)
        else:
            runs.append({"step": step, "items": [item]})
        previous = item
    return [
        {
            "first": r["items"][0],
            "last": r["items"][-1],
            "count": len(r["items"]),
            "items": r["items"],
        }
        for r in runs
    ]
