"""The database's schema and format (documented in :mod:`kb.store`), and the JSON column encoders."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kb.base.dbwrite import ENCODE as _ENCODE

if TYPE_CHECKING:  # a type only: opening a database (`kb card`) needs no knowledge model
    from kb.knowledge.model import Ref

#: Raised with every change of a table's columns: a database of another format is refused with
#: a message naming both (5: tournament.title; 6: history.examples and the examples' word diffs
#: in history.entries; 7: asks).
FORMAT = "7"
DB_FILE = "kb.sqlite"

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE editions (
    id TEXT PRIMARY KEY, position INTEGER NOT NULL, lang TEXT NOT NULL, date TEXT,
    kind TEXT NOT NULL, numbering TEXT, version TEXT, translates TEXT, title TEXT NOT NULL,
    sources TEXT NOT NULL, fits TEXT NOT NULL, counts TEXT NOT NULL);
CREATE TABLE rules (
    edition TEXT NOT NULL, number TEXT NOT NULL, ord INTEGER NOT NULL, lang TEXT NOT NULL,
    kind TEXT NOT NULL, title TEXT, text TEXT NOT NULL, parent TEXT, source TEXT NOT NULL,
    line INTEGER NOT NULL, examples TEXT NOT NULL, children TEXT NOT NULL, flags TEXT NOT NULL,
    refs TEXT NOT NULL, example_refs TEXT NOT NULL, terms TEXT NOT NULL,
    term_spans TEXT NOT NULL);
CREATE TABLE lineage (
    edition TEXT NOT NULL, number TEXT NOT NULL, lineage TEXT NOT NULL, canonical TEXT,
    change TEXT, compare TEXT NOT NULL);
CREATE TABLE refs (
    edition TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL, label TEXT NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, resolved INTEGER NOT NULL);
CREATE TABLE glossary (
    edition TEXT NOT NULL, key TEXT NOT NULL, lang TEXT NOT NULL, term TEXT NOT NULL,
    definition TEXT NOT NULL, obsolete INTEGER NOT NULL, source TEXT NOT NULL,
    line INTEGER NOT NULL, aliases TEXT NOT NULL, see TEXT NOT NULL, rule_refs TEXT NOT NULL,
    refs TEXT NOT NULL);
CREATE TABLE glossary_aliases (
    edition TEXT NOT NULL, lang TEXT NOT NULL, alias TEXT NOT NULL, key TEXT NOT NULL);
CREATE TABLE comparisons (
    span TEXT PRIMARY KEY, position INTEGER NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL);
CREATE TABLE changes (
    span TEXT NOT NULL, position INTEGER NOT NULL, change TEXT NOT NULL, old TEXT, new TEXT);
CREATE TABLE examples (
    id TEXT PRIMARY KEY, position INTEGER NOT NULL, title TEXT NOT NULL, path TEXT NOT NULL,
    markdown TEXT NOT NULL, passed INTEGER NOT NULL, trace TEXT NOT NULL,
    trace_text TEXT NOT NULL, rules TEXT NOT NULL, titles TEXT NOT NULL, prose TEXT NOT NULL);
CREATE TABLE example_rules (example TEXT NOT NULL, rule TEXT NOT NULL, anchor TEXT NOT NULL);
CREATE TABLE terms (
    id TEXT NOT NULL, position INTEGER NOT NULL, en TEXT NOT NULL, fr TEXT NOT NULL,
    ja TEXT NOT NULL, rules TEXT NOT NULL);
CREATE TABLE commentary (
    id TEXT NOT NULL, position INTEGER NOT NULL, lang TEXT NOT NULL, text TEXT NOT NULL,
    source TEXT NOT NULL, line INTEGER NOT NULL, heading TEXT, about_rules TEXT NOT NULL,
    about_terms TEXT NOT NULL);
CREATE TABLE tournament (
    id TEXT NOT NULL, position INTEGER NOT NULL, lang TEXT NOT NULL, section TEXT NOT NULL,
    text TEXT NOT NULL, source TEXT NOT NULL, line INTEGER NOT NULL, flags TEXT NOT NULL,
    title TEXT NOT NULL);
CREATE TABLE asks (
    id TEXT NOT NULL, position INTEGER NOT NULL, lang TEXT NOT NULL, q TEXT NOT NULL,
    rules TEXT NOT NULL, source TEXT NOT NULL, line INTEGER NOT NULL);
CREATE TABLE warnings (position INTEGER NOT NULL, text TEXT NOT NULL);
"""

#: Every lookup a page or command makes has its index (created after the bulk inserts).
INDEXES = """
CREATE UNIQUE INDEX rules_by_number ON rules (edition, number);
CREATE INDEX rules_by_order ON rules (edition, ord);
CREATE INDEX rules_by_bare_number ON rules (number, lang);
CREATE UNIQUE INDEX lineage_by_rule ON lineage (edition, number);
CREATE INDEX lineage_by_lineage ON lineage (lineage);
CREATE INDEX refs_by_target ON refs (edition, target);
CREATE UNIQUE INDEX glossary_by_key ON glossary (edition, key);
CREATE INDEX glossary_by_lang_key ON glossary (lang, key);
CREATE INDEX glossary_aliases_by_alias ON glossary_aliases (lang, alias);
CREATE INDEX changes_by_span ON changes (span, position);
CREATE INDEX example_rules_by_anchor ON example_rules (anchor);
"""


class StoreError(Exception):
    """The database is missing, damaged or of another format."""


_quote = json.encoder.encode_basestring  # type: ignore[attr-defined]  # json's own, in C


def _dumps(value: Any) -> str:
    return _ENCODE(value)


# The per-rule columns are encoded by hand: the same JSON as json.dumps gives, three to five times
# faster over the 1.3 million small lists of an archive build.
def _strs(items: list[str]) -> str:
    return "[" + ",".join(map(_quote, items)) + "]" if items else "[]"


def _refs_json(refs: list[Ref]) -> str:
    if not refs:
        return "[]"
    return (
        "["
        + ",".join(
            f"[{_quote(r.number)},{_quote(r.label)},{r.start:d},{r.end:d},"
            f"{1 if r.resolved else 0},{'null' if r.canonical is None else _quote(r.canonical)}]"
            for r in refs
        )
        + "]"
    )


def _spans_json(spans: list[list[Any]]) -> str:
    if not spans:
        return "[]"
    return "[" + ",".join(f"[{_quote(k)},{a:d},{b:d}]" for k, a, b in spans) + "]"
