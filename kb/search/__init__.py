"""Trilingual search over rules, glossary, commentary, tournament rules and examples (Whoosh).

The only package of the project that imports Whoosh. Build with :func:`build_index` (the build
calls it), search with a :class:`Searcher` kept open for the life of the process.
"""

from kb.search.cli import run_search_command
from kb.search.indexer import build_index, index_is_current
from kb.search.notes import Note
from kb.search.searcher import Hit, Searcher, SearchError, SearchResult

__all__ = [
    "Hit",
    "Note",
    "SearchError",
    "SearchResult",
    "Searcher",
    "build_index",
    "index_is_current",
    "run_search_command",
]
