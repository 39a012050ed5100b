"""What the search has to tell its reader, as codes with values rather than English sentences.

A :class:`Note` is made where the search decides something worth saying (a repaired query, no
results, a renumbered rule); the English text of :attr:`SearchResult.message` is rendered from
the notes, and the web app renders the same notes in the reader's language. :data:`TEXTS` is the
list of every code: a new note starts there, and the web catalogs must follow (a test checks).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

#: Every code and its English text (``str.format`` fields named after the note's params).
TEXTS: dict[str, str] = {
    # The query had to be repaired (kb.search.query).
    "query_cut": "the query was cut to its first {limit} characters",
    "unbalanced_quote": "an unbalanced quote was closed at the end of the query",
    "field_syntax": "field syntax is not supported: searched {token!r} as plain words",
    "unmatched_paren": "an unmatched ')' was ignored",
    "unclosed_paren": "an unclosed '(' was closed at the end of the query",
    "too_many_words": "only the first {limit} words were searched",
    "short_wildcard": "{token!r}: a wildcard needs at least {min} characters before '*'",
    # What the search found, or why nothing (kb.search.searcher).
    "empty_query": "Type words, a rule number or a glossary term to search for.",
    "unknown_kind": "unknown kind {kind!r}: use one of {kinds}",
    "nothing_to_search": "nothing to search for: only common words or exclusions were given.",
    "no_results": "No results.",
    "no_results_on_page": "No results on page {page} (there are {pages}).",
    "did_you_mean": "Did you mean “{suggestion}”?",
    "no_rule": "No rule {number} in any edition.",
    "no_rule_in_lang": "No rule {number} in the {lang} editions.",
    "no_rule_in_edition": "No rule {number} in {edition}.",
    "nearby": "Nearby: {numbers}.",
    "range_missing": "No rule holds these numbers of the range: {numbers}.",
    "renumbered": "Rule {number} of {edition} is rule {canonical} ({title}) today.",
    "renumbered_untitled": "Rule {number} of {edition} is rule {canonical} today.",
    "deleted": "Rule {number} of {edition} is no longer in the rules.",
    # Refused requests (SearchError).
    "unknown_language": "unknown language {lang!r} (use one of {langs})",
    "unknown_edition_in_lang": "unknown {lang} edition {edition!r} (known: {known})",
    "unknown_edition": "unknown edition {edition!r} (known: {known})",
}

#: Params that hold lists: rendered joined (", " in English, the locale's way on the web).
LIST_PARAMS = frozenset({"kinds", "langs", "known", "numbers"})


@dataclass(frozen=True, slots=True)
class Note:
    """One thing to tell the reader: a code of :data:`TEXTS` and the values its text names.

    Params are JSON values (strings, numbers, lists of strings) so tools can read them too.
    """

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code not in TEXTS:
            raise ValueError(f"unknown note code {self.code!r} (add it to kb.search.notes.TEXTS)")

    @property
    def text(self) -> str:
        """The English text (the CLI's and the JSON ``message``'s)."""
        values = {
            k: ((", ".join(str(x) for x in v) or "none") if k in LIST_PARAMS else v)
            for k, v in self.params.items()
        }
        return TEXTS[self.code].format(**values)

    def to_json(self) -> dict[str, Any]:
        """``{"code", "params", "text"}``: the text in English."""
        return {"code": self.code, "params": dict(self.params), "text": self.text}


def note(code: str, **params: Any) -> Note:
    """A :class:`Note` (shorter to write where notes are made)."""
    return Note(code, params)


def unique(notes: Iterable[Note]) -> list[Note]:
    """The notes in order, each once (a query with two stray quotes is told once)."""
    out: list[Note] = []
    for item in notes:
        if item not in out:
            out.append(item)
    return out


def message(notes: Iterable[Note]) -> str:
    """The English message of a result: its notes' texts in order.

    A note that stops the search ("nothing to search for") follows the query's repair notes
    after a semicolon, as one sentence; other notes follow each other as sentences.
    """
    items = list(notes)
    if items and items[-1].code == "nothing_to_search":
        return "; ".join(n.text for n in items)
    texts = [n.text for n in items]
    # A repair note is a clause ("'ab*': a wildcard needs ..."): it ends as a sentence when
    # another follows ("No results.").
    return " ".join(
        t if i == len(texts) - 1 or t[-1:] in ".?!…" else f"{t}." for i, t in enumerate(texts)
    )
