"""The multilingual term base: game concepts named in English, French and Japanese.

``corpus/terms.toml`` lists the concepts (priority = priorité = 優先権) with the rules that define
them; readers harvest more pairings from the seeds (「優先権/Priority」) and the build pairs a
translated glossary with the English one (:mod:`kb.build.glossary_pairs`), merged here without
ever dropping a curated name. :func:`translate_query_terms` lets the search turn "優先権" into
"priority" or "state-based actions" into "action basée sur un état".
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kb.knowledge.model import LANGS, Term
from kb.sources.records import SourceError, TermPair
from kb.sources.registry import toml_error_line
from kb.text.normal import fold_accents, nfkc, word_stems
from kb.text.rulenum import try_parse

__all__ = ["TermIndex", "load_terms", "merge_harvested", "normalize_name", "translate_query_terms"]

_KEYS = {"id", "en", "fr", "ja", "rules", "source"}


def load_terms(path: Path) -> list[Term]:
    """Read ``terms.toml``; a broken file raises :class:`SourceError` naming the file and line."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(str(path), f"cannot read the term base: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(str(path), f"not valid TOML: {exc}", toml_error_line(exc, raw)) from None
    entries = data.get("term")
    if not isinstance(entries, list) or not entries:
        raise SourceError(str(path), "no [[term]] table")
    starts = [i for i, line in enumerate(raw.split("\n"), 1) if line.strip() == "[[term]]"]
    terms: list[Term] = []
    seen: dict[str, int | None] = {}
    for index, entry in enumerate(entries):
        line = starts[index] if index < len(starts) else None
        terms.append(_term(entry, str(path), line))
        if terms[-1].id in seen:
            raise SourceError(
                str(path),
                f"term id {terms[-1].id!r} repeated (first at line {seen[terms[-1].id]})",
                line,
            )
        seen[terms[-1].id] = line
    return terms


def _term(entry: dict[str, Any], path: str, line: int | None) -> Term:
    """Validate one ``[[term]]`` table."""
    tid = entry.get("id")
    if not isinstance(tid, str) or not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", tid):
        raise SourceError(path, f"term without a valid id (an English slug): {tid!r}", line)
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise SourceError(path, f"term {tid!r}: unknown key(s) {', '.join(unknown)}", line)
    names: dict[str, list[str]] = {}
    for lang in LANGS:
        value = entry.get(lang, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise SourceError(path, f"term {tid!r}: {lang} must be a list of names", line)
        names[lang] = [v.strip() for v in value]
    if not names["en"]:
        raise SourceError(path, f"term {tid!r}: no English name (en)", line)
    rules = entry.get("rules", [])
    if not isinstance(rules, list) or any(try_parse(str(r)) is None for r in rules):
        raise SourceError(path, f"term {tid!r}: rules must be a list of rule numbers", line)
    return Term(
        id=tid,
        en=names["en"],
        fr=names["fr"],
        ja=names["ja"],
        rules=[str(try_parse(str(r))) for r in rules],
    )


def sources_of(path: Path) -> dict[str, list[str]]:
    """Term id -> where its pairing comes from ("curated", "seed ja-mtgwiki", …)."""
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    out: dict[str, list[str]] = {}
    for entry in data.get("term", []):
        source = entry.get("source", "curated")
        out[entry["id"]] = [source] if isinstance(source, str) else list(source)
    return out


# ---- normalisation -------------------------------------------------------------------------


def _tokens(text: str, lang: str) -> list[str]:
    """Comparable word stems of an English or French text (:func:`kb.text.normal.word_stems`: the
    search index's Snowball stems, case and accents ignored)."""
    return word_stems(text, lang)


_JA_IGNORED = re.compile(r"[\s・･]")


def _ja_form(text: str) -> str:
    """NFKC, without the middle dots and spaces that writers put in or leave out."""
    return _JA_IGNORED.sub("", nfkc(text).lower())


def normalize_name(name: str, lang: str) -> str:
    """The comparison key of a name: stems for EN/FR, NFKC without dots for JA."""
    return _ja_form(name) if lang == "ja" else " ".join(_tokens(name, lang))


# ---- harvested pairs -------------------------------------------------------------------------


def merge_harvested(terms: list[Term], pairs: list[TermPair]) -> tuple[list[Term], list[str]]:
    """Add harvested names where the term base lacks them; return the new list and messages.

    A pair with an English name adds its other-language name to that concept (or a new concept);
    a pair whose name already belongs to another concept is a conflict and only reported. A term
    without English (a French wiki link) must match some concept, else it is reported. Curated
    names are never dropped or reordered.
    """
    out = [Term(t.id, list(t.en), list(t.fr), list(t.ja), list(t.rules)) for t in terms]
    messages: list[str] = []
    for pair in pairs:
        if pair.lang not in LANGS or pair.lang == "en":
            continue
        key = normalize_name(pair.term, pair.lang)
        owners = [
            t for t in out if key in {normalize_name(n, pair.lang) for n in t.names(pair.lang)}
        ]
        if pair.en is None:
            if not owners:
                messages.append(
                    f"harvested {pair.lang} term {pair.term!r} (line {pair.line}) matches no concept"
                )
            continue
        en_key = normalize_name(pair.en, "en")
        concept = next((t for t in out if en_key in {normalize_name(n, "en") for n in t.en}), None)
        if concept is None:
            if owners:
                messages.append(
                    f"conflict: harvested {pair.lang} {pair.term!r}/{pair.en!r} (line {pair.line}) "
                    f"but {pair.term!r} names {owners[0].id!r} here"
                )
                continue
            out.append(_new_concept(pair, out))
            continue
        if concept in owners:
            continue
        if owners:
            messages.append(
                f"conflict: harvested {pair.lang} {pair.term!r}/{pair.en!r} (line {pair.line}) "
                f"but {pair.term!r} names {owners[0].id!r}, not {concept.id!r}"
            )
            continue
        getattr(concept, pair.lang).append(pair.term)
    return out, messages


def _new_concept(pair: TermPair, terms: list[Term]) -> Term:
    """A concept for a harvested pair whose English name the term base does not know."""
    assert pair.en is not None
    base = re.sub(r"[^a-z0-9]+", "-", fold_accents(pair.en.lower())).strip("-") or "term"
    tid, n = base, 2
    while any(t.id == tid for t in terms):
        tid, n = f"{base}-{n}", n + 1
    term = Term(tid, [pair.en.lower()])
    getattr(term, pair.lang).append(pair.term)
    return term


# ---- cross-language query terms ------------------------------------------------------------


def _sequence(text: str, lang: str) -> str | tuple[str, ...]:
    """What names are matched on: stems in English and French, characters in Japanese."""
    return _ja_form(text) if lang == "ja" else tuple(_tokens(text, lang))


class TermIndex:
    """The term base's names as comparable keys, built once and asked many queries.

    EN/FR names are stem sequences (case, accents and simple endings ignored), JA names NFKC
    forms without middle dots; at each place of a text the longest name wins.
    """

    def __init__(self, terms: Sequence[Term]) -> None:
        self.terms = list(terms)
        #: lang -> first item -> (key, concept position), longest key first. A key is a tuple of
        #: stems in English and French, a string of characters in Japanese: both slice alike.
        self._by_first: dict[str, dict[str, list[tuple[str | tuple[str, ...], int]]]] = {}
        for pos, term in enumerate(self.terms):
            for lang in LANGS:
                by_first = self._by_first.setdefault(lang, {})
                for name in term.names(lang):
                    if key := _sequence(name, lang):
                        by_first.setdefault(key[0], []).append((key, pos))
        for by_first in self._by_first.values():
            for entries in by_first.values():
                entries.sort(key=lambda item: -len(item[0]))

    def _positions(self, text: str, lang: str) -> list[int]:
        """Positions (in :attr:`terms`) of the concepts named in ``text``, in order."""
        found: list[int] = []
        by_first = self._by_first[lang]
        seq = _sequence(text, lang)
        i = 0
        size = len(seq)
        while i < size:
            # Most words start no name: their place is passed without a search.
            for key, pos in by_first.get(seq[i], ()):
                if seq[i : i + len(key)] == key:
                    found.append(pos)
                    i += len(key)
                    break
            else:
                i += 1
        return found

    def find(self, text: str, lang: str) -> list[Term]:
        """The concepts whose ``lang`` name occurs in ``text``, once each, in order of appearance."""
        _check_langs(lang)
        positions = dict.fromkeys(self._positions(text, lang))
        return [self.terms[pos] for pos in positions]

    def translate(self, text: str, src: str, dst: str) -> list[str]:
        """The ``dst`` names (preferred first name) of the concepts whose ``src`` name occurs in
        ``text``, once each, in order of appearance."""
        _check_langs(src, dst)
        out: list[str] = []
        for pos in self._positions(text, src):
            names = self.terms[pos].names(dst)
            if names and names[0] not in out:
                out.append(names[0])
        return out


_KNOWN_LANGS = frozenset(LANGS)


def _check_langs(*langs: str) -> None:
    if not _KNOWN_LANGS.issuperset(langs):
        raise ValueError(f"languages are {', '.join(LANGS)}: got {' -> '.join(map(repr, langs))}")


# The search asks with the same list for every query; remembering the list itself (so that its id
# cannot be reused) spares rebuilding the index each time.
_INDEXES: dict[int, tuple[list[Term], TermIndex]] = {}
_MAX_INDEXES = 8


def _index_of(terms: list[Term]) -> TermIndex:
    cached = _INDEXES.get(id(terms))
    if cached is not None and cached[0] is terms and len(cached[1].terms) == len(terms):
        return cached[1]
    if len(_INDEXES) >= _MAX_INDEXES:
        _INDEXES.pop(next(iter(_INDEXES)))
    index = TermIndex(terms)
    _INDEXES[id(terms)] = (terms, index)
    return index


def translate_query_terms(text: str, src: str, dst: str, terms: list[Term]) -> list[str]:
    """The ``dst`` names (preferred first name) of the concepts whose ``src`` name occurs in text.

    Matching takes the longest name at each place ("state-based actions" is one concept, not
    "state"); EN/FR ignore case, accents and simple plural or verb endings, JA is NFKC-folded and
    ignores middle dots. Each concept is returned once, in order of appearance. The index built
    for ``terms`` is kept for the next call with the same list: a list changed in place later is
    not seen (build a :class:`TermIndex` for that).
    """
    _check_langs(src, dst)
    return _index_of(terms).translate(text, src, dst)
