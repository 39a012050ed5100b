"""The built knowledge base as one SQLite file (``kb.sqlite``), and the lazy reader over it.

Why SQLite: a process answers one rule page or one ``kb rule`` from a few indexed queries instead
of loading every edition (225 MB of JSON at archive scale), and any SQLite client can read the file.
The file is written once by :func:`write` into a new build folder and never modified after, so
readers open it with ``mode=ro&immutable=1`` (no locks, no journal) from any number of processes.

Schema (format :data:`FORMAT`; JSON columns hold arrays, ``refs`` as ``[number, label, start,
end, resolved, canonical]``):

``meta(key, value)``
    ``format``, ``content_hash``.
``editions(id, position, lang, date, kind, numbering, version, translates, title, sources,
fits, counts)``
    One row per edition; ``sources``, ``fits`` JSON arrays, ``counts`` a JSON object.
``rules(edition, number, ord, lang, kind, title, text, parent, source, line, examples, children,
flags, refs, example_refs, terms, term_spans)``
    Every numbered node of every edition; ``ord`` is its place in numeric order within the
    edition (row order is document order); ``examples`` the printed "Example:" texts.
``lineage(edition, number, lineage, canonical, change, compare)``
    The concordance: rules of one ``lineage`` are the same rule across editions and languages;
    ``canonical`` is the number in the newest English edition (NULL: deleted since); ``change``
    compares with the previous edition of its language (first/same/moved/edited/created);
    ``compare`` a digest of what that comparison reads (masked text or title, and examples), so
    an incremental build classifies changes without reading every text again.
``refs(edition, source, target, label, start, end, resolved)``
    Cross-references in rule texts (``source`` cites ``target`` in the same edition).
``glossary(edition, key, lang, term, definition, obsolete, source, line, aliases, see,
rule_refs, refs)`` and ``glossary_aliases(edition, lang, alias, key)``
    Entries by lower-cased term; aliases lower-cased.
``comparisons(span, position, old, new)`` and ``changes(span, position, change, old, new)``
    What changed between two consecutive full editions (``en-2019-06-14..en-2019-07-12``).
``examples(id, position, title, path, markdown, passed, trace, trace_text, rules, titles, prose)``
and ``example_rules(example, rule, anchor)``
    The executable examples; ``anchor`` is a cited rule or any rule above it.
``terms(id, position, en, fr, ja, rules)``
    The term base: each concept's names in the three languages and the rules that use it.
``commentary(id, position, lang, text, source, line, heading, about_rules, about_terms)``
    Wiki commentary paragraphs under their ``heading``; ``about_rules`` and ``about_terms`` JSON
    arrays of the rules and glossary terms each one discusses.
``tournament(id, position, lang, section, text, source, line, flags, title)``
    Tournament rules paragraphs by ``section``; ``flags`` a JSON array; ``title`` the section's
    name ("Tactical Shortcuts"), empty where the text gives none.
``asks(id, position, lang, q, rules, source, line)``
    "Players ask": a question in players' words (``q``) and the canonical rules it cites (a
    JSON array), with the file and line it was read from.
``warnings(position, text)``
    The build's warnings.

(tests/test_fixes_docs.py keeps these column lists equal to :data:`SCHEMA`.)

A reference's ``canonical`` is the ``lineage.canonical`` of its target in the same edition.

Layer: may import :mod:`kb.history.diffs`, :mod:`kb.align`, :mod:`kb.knowledge`, :mod:`kb.sources`,
:mod:`kb.text` and :mod:`kb.base`; search, the build, the pages and the CLI read through it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from kb.store.schema import DB_FILE, FORMAT, INDEXES, SCHEMA, StoreError

if TYPE_CHECKING:
    from kb.knowledge.model import LANGS
    from kb.store.connection import connect
    from kb.store.reader import StoredKnowledgeBase, open_kb
    from kb.store.writer import (
        edition_row,
        write,
        write_edition_glossary,
        write_edition_rules,
        write_links,
    )

#: Where each name the package exports lives: imported on first use, so that a reader (``kb
#: card``, ``kb rule``) does not load the writer (the concordance, the diffs) it never calls.
_LAZY = {
    "LANGS": "kb.knowledge.model",
    "connect": "kb.store.connection",
    "StoredKnowledgeBase": "kb.store.reader",
    "open_kb": "kb.store.reader",
    "edition_row": "kb.store.writer",
    "write": "kb.store.writer",
    "write_edition_glossary": "kb.store.writer",
    "write_edition_rules": "kb.store.writer",
    "write_links": "kb.store.writer",
}


def __getattr__(name: str) -> Any:
    """The package's exports, each imported from its module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kb.store' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DB_FILE",
    "FORMAT",
    "INDEXES",
    "LANGS",
    "SCHEMA",
    "StoreError",
    "StoredKnowledgeBase",
    "connect",
    "edition_row",
    "open_kb",
    "write",
    "write_edition_glossary",
    "write_edition_rules",
    "write_links",
]
