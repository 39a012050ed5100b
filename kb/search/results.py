"""What a search returns: :class:`Hit`, :class:`SearchResult` (with their documented JSON shapes)
and :class:`SearchError`, the refusal of a request (HTTP 400)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.search.notes import Note
from kb.search.notes import message as notes_message


class SearchError(ValueError):
    """A request the caller must refuse (HTTP 400): an unknown language or edition.

    ``str(error)`` is the English text; :attr:`note` the same as a :class:`Note` to translate.
    """

    def __init__(self, refusal: Note) -> None:
        super().__init__(refusal.text)
        self.note = refusal


@dataclass(slots=True)
class Hit:
    """One result: a rule (with its editions), a glossary entry, commentary, MTR item or example."""

    kind: str
    number: str | None
    lang: str
    edition: str | None
    editions: list[str]
    canonical: str | None
    title: str
    snippet: str
    score: float
    cross_language: bool = False
    key: str = ""
    #: No longer in its language's newest edition: :attr:`edition` is the last one having it.
    withdrawn: bool = False

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of a hit."""
        return {
            "kind": self.kind,
            "number": self.number,
            "key": self.key,
            "lang": self.lang,
            "edition": self.edition,
            "editions": self.editions,
            "canonical": self.canonical,
            "title": self.title,
            "snippet": self.snippet,
            "score": round(self.score, 4),
            "cross_language": self.cross_language,
            "withdrawn": self.withdrawn,
        }


@dataclass(slots=True)
class SearchResult:
    """A page of results, with the total number of (grouped) results and what to tell the reader:
    :attr:`notes` (codes and values, to render in any language) and :attr:`message` (their
    English text, for the CLI and older JSON readers)."""

    query: str
    lang: str | None
    total: int = 0
    hits: list[Hit] = field(default_factory=list)
    page: int = 1
    pages: int = 0
    suggestion: str | None = None
    message: str = ""
    notes: list[Note] = field(default_factory=list)

    def tell(self, *notes: Note) -> None:
        """Set the notes and the English message made of them."""
        self.notes = list(notes)
        self.message = notes_message(self.notes)

    def to_json(self) -> dict[str, Any]:
        """``{"query", "lang", "total", "suggestion", "hits", "page", "pages", "message",
        "notes"}``, each note ``{"code", "params", "text"}`` with its English text."""
        return {
            "query": self.query,
            "lang": self.lang,
            "total": self.total,
            "suggestion": self.suggestion,
            "hits": [h.to_json() for h in self.hits],
            "page": self.page,
            "pages": self.pages,
            "message": self.message,
            "notes": [n.to_json() for n in self.notes],
        }
