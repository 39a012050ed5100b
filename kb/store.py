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
``lineage(edition, number, lineage, canonical, change)``
    The concordance: rules of one ``lineage`` are the same rule across editions and languages;
    ``canonical`` is the number in the newest English edition (NULL: deleted since); ``change``
    compares with the previous edition of its language (first/same/moved/edited/created).
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
``terms(id, position, en, fr, ja, rules)``, ``commentary(...)``, ``tournament(...)``,
``warnings(position, text)``
    The term base, wiki commentary, tournament rules and build warnings.

A reference's ``canonical`` is the ``lineage.canonical`` of its target in the same edition.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from kb.model import (
    LANGS,
    Change,
    Commentary,
    Edition,
    ExampleInfo,
    GlossaryEntry,
    KnowledgeBase,
    Ref,
    Rule,
    Term,
    TournamentRule,
)
from kb.rulenum import try_parse

FORMAT = "3"
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
    change TEXT);
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
    text TEXT NOT NULL, source TEXT NOT NULL, line INTEGER NOT NULL, flags TEXT NOT NULL);
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


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
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


# ---- writing --------------------------------------------------------------------------------
def write(kb: KnowledgeBase, path: Path) -> None:
    """Write the whole knowledge base to a new database file at ``path`` (replaced if present)."""
    path = Path(path)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA page_size = 8192")
        conn.execute("BEGIN")
        _script(conn, SCHEMA)
        conn.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("format", FORMAT), ("content_hash", kb.content_hash)],
        )
        # Positions in time (by date, an undated quote where its wording fits).
        positions = {
            e.id: i
            for i, e in enumerate(
                sorted(kb.editions.values(), key=lambda e: (kb.sort_date(e), e.id))
            )
        }
        conn.executemany(
            "INSERT INTO editions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    e.id,
                    positions[e.id],
                    e.lang,
                    e.date,
                    e.kind,
                    e.numbering,
                    e.version,
                    e.translates,
                    e.title,
                    _dumps(e.sources),
                    _dumps(e.fits),
                    _dumps(e.counts),
                )
                for e in kb.editions.values()
            ],
        )
        for ed_id, table in kb.rules.items():
            write_edition_rules(conn, ed_id, table)
        for ed_id, table in kb.glossary.items():
            write_edition_glossary(conn, ed_id, table)
        write_links(conn, kb)
        _script(conn, INDEXES)
        conn.execute("COMMIT")
        conn.execute("ANALYZE")
    finally:
        conn.close()


def _script(conn: sqlite3.Connection, sql: str) -> None:
    """Run several statements inside the open transaction (``executescript`` would commit)."""
    for statement in sql.split(";"):
        if statement.strip():
            conn.execute(statement)


def write_edition_rules(conn: sqlite3.Connection, ed_id: str, table: Mapping[str, Rule]) -> None:
    """Insert one edition's rules and references (content only: lineage is :func:`write_links`)."""
    ordered = sorted(table, key=lambda n: table[n].key.sort_key())
    place = {n: i for i, n in enumerate(ordered)}
    conn.executemany(
        "INSERT INTO rules VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                ed_id,
                r.number,
                place[r.number],
                r.lang,
                r.kind,
                r.title,
                r.text,
                r.parent,
                r.source,
                r.line,
                _strs(r.examples),
                _strs(r.children),
                _strs(r.flags),
                _refs_json(r.refs),
                "[" + ",".join(map(_refs_json, r.example_refs)) + "]",
                _strs(r.terms),
                _spans_json(r.term_spans),
            )
            for r in table.values()
        ],
    )
    conn.executemany(
        "INSERT INTO refs VALUES (?,?,?,?,?,?,?)",
        [
            (ed_id, r.number, ref.number, ref.label, ref.start, ref.end, int(ref.resolved))
            for r in table.values()
            for ref in r.refs
        ],
    )


def write_edition_glossary(
    conn: sqlite3.Connection, ed_id: str, table: Mapping[str, GlossaryEntry]
) -> None:
    """Insert one edition's glossary entries and their aliases."""
    conn.executemany(
        "INSERT INTO glossary VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                ed_id,
                g.key,
                g.lang,
                g.term,
                g.definition,
                int(g.obsolete),
                g.source,
                g.line,
                _strs(g.aliases),
                _strs(g.see),
                _strs(g.rule_refs),
                _refs_json(g.refs),
            )
            for g in table.values()
        ],
    )
    conn.executemany(
        "INSERT INTO glossary_aliases VALUES (?,?,?,?)",
        [(ed_id, g.lang, a.lower(), g.key) for g in table.values() for a in g.aliases],
    )


def write_links(conn: sqlite3.Connection, kb: KnowledgeBase) -> None:
    """Insert what links editions and the small tables: lineage, changes, examples, terms ..."""
    conn.executemany(
        "INSERT INTO lineage VALUES (?,?,?,?,?)",
        [
            (
                ed_id,
                number,
                lin,
                _canonical_of(kb, ed_id, number, lin),
                _change_of(kb, ed_id, number),
            )
            for lin, by_edition in kb.concordance.items()
            for ed_id, number in by_edition.items()
        ],
    )
    conn.executemany(
        "INSERT INTO comparisons VALUES (?,?,?,?)",
        [(span, i, *span.split("..", 1)) for i, span in enumerate(kb.changes)],
    )
    conn.executemany(
        "INSERT INTO changes VALUES (?,?,?,?,?)",
        [
            (span, i, c.change, c.old, c.new)
            for span, changes in kb.changes.items()
            for i, c in enumerate(changes)
        ],
    )
    conn.executemany(
        "INSERT INTO examples VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                x.id,
                i,
                x.title,
                x.path,
                x.markdown,
                int(x.passed),
                _dumps(x.trace),
                x.trace_text,
                _dumps(x.rules),
                _dumps(x.titles),
                _dumps(x.prose),
            )
            for i, x in enumerate(kb.examples)
        ],
    )
    conn.executemany(
        "INSERT INTO example_rules VALUES (?,?,?)",
        [
            (x.id, number, anchor)
            for x in kb.examples
            for number in dict.fromkeys(x.rules)
            for anchor in _anchors(number)
        ],
    )
    conn.executemany(
        "INSERT INTO terms VALUES (?,?,?,?,?,?)",
        [
            (t.id, i, _dumps(t.en), _dumps(t.fr), _dumps(t.ja), _dumps(t.rules))
            for i, t in enumerate(kb.terms)
        ],
    )
    conn.executemany(
        "INSERT INTO commentary VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (
                c.id,
                i,
                c.lang,
                c.text,
                c.source,
                c.line,
                c.heading,
                _dumps(c.about_rules),
                _dumps(c.about_terms),
            )
            for i, c in enumerate(kb.commentary)
        ],
    )
    conn.executemany(
        "INSERT INTO tournament VALUES (?,?,?,?,?,?,?,?)",
        [
            (t.id, i, t.lang, t.section, t.text, t.source, t.line, _dumps(t.flags))
            for i, t in enumerate(kb.tournament)
        ],
    )
    conn.executemany("INSERT INTO warnings VALUES (?,?)", list(enumerate(kb.warnings)))


def _canonical_of(kb: KnowledgeBase, ed_id: str, number: str, lin: str) -> str | None:
    rule = kb.rules.get(ed_id, {}).get(number)
    if rule is not None:
        return rule.canonical
    return None if ":" in lin else lin


def _change_of(kb: KnowledgeBase, ed_id: str, number: str) -> str | None:
    rule = kb.rules.get(ed_id, {}).get(number)
    return rule.change if rule is not None else None


def _anchors(number: str) -> list[str]:
    """The number and every number above it (an example citing 117.3b is one of 117's too)."""
    num = try_parse(number)
    if num is None:
        return [number]
    return list(dict.fromkeys([number, *(str(a) for a in num.ancestors())]))


# ---- reading --------------------------------------------------------------------------------
def connect(path: Path) -> sqlite3.Connection:
    """Open a database read-only (it is never written after its build)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro&immutable=1"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    return conn


class _Db:
    """One read-only connection per thread (SQLite serialises a connection; threads need their own)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        #: the build folder this object reads (see :func:`kb.build.load`)
        self.build_dir = self.path.parent
        if not self.path.is_file():
            raise StoreError(f"{self.path}: no such database")
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._opened_lock = threading.Lock()
        self._pid = os.getpid()
        conn = self.conn()
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a knowledge base ({exc})") from exc
        if meta.get("format") != FORMAT:
            raise StoreError(
                f"{self.path}: database format {meta.get('format')!r}, this kb reads {FORMAT!r}"
            )
        self.meta = meta

    def conn(self) -> sqlite3.Connection:
        if self._pid != os.getpid():
            # A forked worker (gunicorn --preload): a connection must not cross a fork.
            self._pid = os.getpid()
            self._local = threading.local()
            self._opened = []
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._local.conn = conn
            with self._opened_lock:
                self._opened.append(conn)
        return conn

    def close(self) -> None:
        """Close every thread's connection (the object must not be used afterwards)."""
        with self._opened_lock:
            for conn in self._opened:
                conn.close()
            self._opened.clear()

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.conn().execute(sql, params).fetchall()

    def one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn().execute(sql, params).fetchone()


_RULE_COLUMNS = (
    "r.edition, r.lang, r.number, r.kind, r.text, r.title, r.examples, r.parent, r.children, "
    "r.refs, r.example_refs, r.terms, r.term_spans, l.canonical, l.lineage, l.change, r.source, "
    "r.line, r.flags"
)
_RULE_FROM = "rules r LEFT JOIN lineage l ON l.edition = r.edition AND l.number = r.number"

_GLOSSARY_COLUMNS = (
    "edition, lang, key, term, definition, aliases, obsolete, see, rule_refs, refs, source, line"
)


class StoredKnowledgeBase(KnowledgeBase):
    """The :class:`~kb.model.KnowledgeBase` interface over a database: small tables are read at
    open, rules and glossary entries on demand (with a bounded cache of decoded nodes), and the
    lookups that scanned lists in memory are indexed queries."""

    def __init__(self, path: Path, cache_size: int = 4096) -> None:
        self._db = _Db(path)
        db = self._db
        editions = {}
        for row in db.all(
            "SELECT id, lang, date, kind, numbering, sources, version, translates, fits, title, "
            "counts FROM editions ORDER BY position"
        ):
            editions[row[0]] = Edition(
                id=row[0],
                lang=row[1],
                date=row[2],
                kind=row[3],
                numbering=row[4],
                sources=json.loads(row[5]),
                version=row[6],
                translates=row[7],
                fits=json.loads(row[8]),
                title=row[9],
                counts=json.loads(row[10]),
            )
        super().__init__(
            editions=editions,
            rules=_Rules(self),  # type: ignore[arg-type]
            glossary=_Glossary(self),  # type: ignore[arg-type]
            commentary=_LazyList(self._load_commentary),  # type: ignore[arg-type]
            tournament=_LazyList(self._load_tournament),  # type: ignore[arg-type]
            terms=_LazyList(self._load_terms),  # type: ignore[arg-type]
            examples=_LazyList(self._load_examples),  # type: ignore[arg-type]
            concordance=_Concordance(self),  # type: ignore[arg-type]
            changes=_Changes(self),  # type: ignore[arg-type]
            warnings=_LazyList(self._load_warnings),  # type: ignore[arg-type]
            content_hash=db.meta.get("content_hash", ""),
        )
        self.__dict__["_editions_of"] = {}
        self._position = {ed_id: i for i, ed_id in enumerate(editions)}
        self.path = Path(path)
        #: the build folder this object reads (see :func:`kb.build.load`)
        self.build_dir = self.path.parent
        self._rule_cache = lru_cache(maxsize=cache_size)(self._load_rule)
        self._gloss_cache = lru_cache(maxsize=cache_size // 4)(self._load_glossary_entry)
        self._order_cache = lru_cache(maxsize=16)(self._load_order)

    def close(self) -> None:
        """Close the database in every thread (for a build the app no longer serves)."""
        self._db.close()

    # ---- decoding --------------------------------------------------------------------------
    def _rule_from_row(self, row: Sequence[Any]) -> Rule:
        refs = json.loads(row[9])
        example_refs = json.loads(row[10])
        return Rule(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            json.loads(row[6]),
            row[7],
            json.loads(row[8]),
            [Ref(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in refs],
            [[Ref(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in x] for x in example_refs],
            json.loads(row[11]),
            json.loads(row[12]),
            row[13],
            row[14] or "",
            row[15],
            row[16],
            row[17],
            json.loads(row[18]),
        )

    def _load_rule(self, ed_id: str, number: str) -> Rule | None:
        row = self._db.one(
            f"SELECT {_RULE_COLUMNS} FROM {_RULE_FROM} WHERE r.edition = ? AND r.number = ?",
            (ed_id, number),
        )
        return self._rule_from_row(row) if row else None

    def _iter_rules(self, ed_id: str) -> Iterator[Rule]:
        for row in self._db.all(
            f"SELECT {_RULE_COLUMNS} FROM {_RULE_FROM} WHERE r.edition = ? ORDER BY r.rowid",
            (ed_id,),
        ):
            yield self._rule_from_row(row)

    def _entry_from_row(self, row: Sequence[Any]) -> GlossaryEntry:
        refs = json.loads(row[9])
        return GlossaryEntry(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            json.loads(row[5]),
            bool(row[6]),
            json.loads(row[7]),
            json.loads(row[8]),
            [Ref(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in refs],
            row[10],
            row[11],
        )

    def _load_glossary_entry(self, ed_id: str, key: str) -> GlossaryEntry | None:
        row = self._db.one(
            f"SELECT {_GLOSSARY_COLUMNS} FROM glossary WHERE edition = ? AND key = ?",
            (ed_id, key),
        )
        return self._entry_from_row(row) if row else None

    def _iter_glossary(self, ed_id: str) -> Iterator[GlossaryEntry]:
        for row in self._db.all(
            f"SELECT {_GLOSSARY_COLUMNS} FROM glossary WHERE edition = ? ORDER BY rowid", (ed_id,)
        ):
            yield self._entry_from_row(row)

    def _load_order(self, ed_id: str) -> tuple[str, ...]:
        return tuple(
            n
            for (n,) in self._db.all(
                "SELECT number FROM rules WHERE edition = ? ORDER BY ord", (ed_id,)
            )
        )

    def _load_terms(self) -> list[Term]:
        return [
            Term(
                row[0],
                json.loads(row[1]),
                json.loads(row[2]),
                json.loads(row[3]),
                json.loads(row[4]),
            )
            for row in self._db.all("SELECT id, en, fr, ja, rules FROM terms ORDER BY position")
        ]

    def _load_examples(self, ids: Sequence[str] | None = None) -> list[ExampleInfo]:
        where, params = "", ()
        if ids is not None:
            where, params = f"WHERE id IN ({','.join('?' * len(ids))})", tuple(ids)
        return [
            ExampleInfo(
                id=row[0],
                title=row[1],
                path=row[2],
                rules=json.loads(row[3]),
                markdown=row[4],
                passed=bool(row[5]),
                trace=json.loads(row[6]),
                trace_text=row[7],
                titles=json.loads(row[8]),
                prose=json.loads(row[9]),
            )
            for row in self._db.all(
                "SELECT id, title, path, rules, markdown, passed, trace, trace_text, titles, prose "
                f"FROM examples {where} ORDER BY position",
                params,
            )
        ]

    def _load_commentary(self) -> list[Commentary]:
        return [
            Commentary(
                id=row[0],
                lang=row[1],
                text=row[2],
                source=row[3],
                line=row[4],
                heading=row[5],
                about_rules=json.loads(row[6]),
                about_terms=json.loads(row[7]),
            )
            for row in self._db.all(
                "SELECT id, lang, text, source, line, heading, about_rules, about_terms "
                "FROM commentary ORDER BY position"
            )
        ]

    def _load_tournament(self) -> list[TournamentRule]:
        return [
            TournamentRule(
                id=row[0],
                lang=row[1],
                section=row[2],
                text=row[3],
                source=row[4],
                line=row[5],
                flags=json.loads(row[6]),
            )
            for row in self._db.all(
                "SELECT id, lang, section, text, source, line, flags FROM tournament "
                "ORDER BY position"
            )
        ]

    def _load_warnings(self) -> list[str]:
        return [t for (t,) in self._db.all("SELECT text FROM warnings ORDER BY position")]

    def _newest_first(self, edition_ids: Iterator[str] | list[str], lang: str) -> list[str]:
        order = {e.id: i for i, e in enumerate(self.editions_of(lang))}
        return sorted((e for e in edition_ids if e in order), key=order.__getitem__, reverse=True)

    # ---- the indexed lookups ---------------------------------------------------------------
    def rule(self, edition_id: str, number: str) -> Rule | None:
        """The rule with that number in one edition, or None."""
        if edition_id not in self.editions:
            return None
        return self._rule_cache(edition_id, number)

    def in_edition(self, canonical: str, edition_id: str) -> Rule | None:
        """The rule of one edition that is (or became) the given canonical rule."""
        row = self._db.one(
            "SELECT number FROM lineage WHERE lineage = ? AND edition = ?", (canonical, edition_id)
        )
        return self.rule(edition_id, row[0]) if row else None

    def find(self, lang: str, number: str, edition: str | None = None) -> Rule | None:
        """Look a rule up by language and number: in a pinned edition, or newest that has it."""
        if edition:
            ed = self.edition(lang, edition)
            return self.rule(ed.id, number) if ed else None
        having = [
            e
            for (e,) in self._db.all(
                "SELECT edition FROM rules WHERE number = ? AND lang = ?", (number, lang)
            )
        ]
        ordered = self._newest_first(having, lang)
        for ed_id in ordered:
            if self.editions[ed_id].kind == "full":
                return self.rule(ed_id, number)
        return self.rule(ordered[0], number) if ordered else None

    def _lineage_rows(self, lineage: str) -> dict[str, str]:
        return dict(
            self._db.all(
                "SELECT edition, number FROM lineage WHERE lineage = ? ORDER BY rowid", (lineage,)
            )
        )

    def current(self, canonical: str, lang: str) -> Rule | None:
        """The newest rule of ``lang`` that maps to a canonical number."""
        numbers = self._lineage_rows(canonical)
        ordered = self._newest_first(list(numbers), lang)
        return self.rule(ordered[0], numbers[ordered[0]]) if ordered else None

    def neighbours(self, rule: Rule) -> tuple[Rule | None, Rule | None]:
        """The previous and next rule of the same edition in document order."""
        row = self._db.one(
            "SELECT ord FROM rules WHERE edition = ? AND number = ?", (rule.edition, rule.number)
        )
        if row is None:
            return None, None
        near = dict(
            self._db.all(
                "SELECT ord, number FROM rules WHERE edition = ? AND ord IN (?, ?)",
                (rule.edition, row[0] - 1, row[0] + 1),
            )
        )
        prev = self.rule(rule.edition, near[row[0] - 1]) if row[0] - 1 in near else None
        nxt = self.rule(rule.edition, near[row[0] + 1]) if row[0] + 1 in near else None
        return prev, nxt

    def ordered_numbers(self, edition_id: str) -> list[str]:
        """All numbers of one edition, sorted numerically."""
        return list(self._order_cache(edition_id))

    def history(self, canonical: str, lang: str) -> list[dict[str, Any]]:
        """The rule across every edition of ``lang``: ``{edition, date, number, change}``."""
        rows = {
            ed: (number, change)
            for ed, number, change in self._db.all(
                "SELECT edition, number, change FROM lineage WHERE lineage = ?", (canonical,)
            )
        }
        return [
            {
                "edition": ed.id,
                "date": ed.date,
                "number": rows[ed.id][0],
                "change": rows[ed.id][1],
            }
            for ed in self.editions_of(lang)
            if ed.id in rows
        ]

    def history_texts(self, canonical: str, lang: str) -> list[dict[str, Any]]:
        """:meth:`history` with each edition's ``title`` and ``text`` of the rule (one query)."""
        rows = {
            ed: (number, change, title, text)
            for ed, number, change, title, text in self._db.all(
                "SELECT l.edition, l.number, l.change, r.title, r.text FROM lineage l "
                "JOIN rules r ON r.edition = l.edition AND r.number = l.number "
                "WHERE l.lineage = ? AND r.lang = ?",
                (canonical, lang),
            )
        }
        return [
            {
                "edition": ed.id,
                "date": ed.date,
                "number": rows[ed.id][0],
                "change": rows[ed.id][1],
                "title": rows[ed.id][2],
                "text": rows[ed.id][3],
            }
            for ed in self.editions_of(lang)
            if ed.id in rows
        ]

    def referenced_by(self, rule: Rule) -> list[str]:
        """Numbers of the rules of the same edition whose text refers to this rule."""
        rows = self._db.all(
            "SELECT source FROM refs WHERE edition = ? AND target = ? ORDER BY rowid",
            (rule.edition, rule.number),
        )
        return list(dict.fromkeys(s for (s,) in rows))

    def examples_for(self, canonical: str) -> list[ExampleInfo]:
        """Executable examples that cite this canonical rule (or a rule below it)."""
        ids = {
            x
            for (x,) in self._db.all(
                "SELECT example FROM example_rules WHERE anchor = ?", (canonical,)
            )
        }
        if not ids:
            return []
        loaded = self.examples._items  # type: ignore[attr-defined]
        if loaded is not None:  # the whole list is read already: take them from it
            return [ex for ex in loaded if ex.id in ids]
        return self._load_examples(sorted(ids))

    def glossary_lookup(
        self, term: str, lang: str, edition: str | None = None
    ) -> GlossaryEntry | None:
        """A glossary entry by term or alias, case-insensitively, in the newest edition having it."""
        wanted = term.strip().lower()
        if edition:
            ed = self.edition(lang, edition)
            if ed is None:
                return None
            allowed = {ed.id}
        else:
            allowed = None
        hits: dict[str, list[tuple[int, int, str]]] = {}
        for ed_id, key, pri, seq in self._db.all(
            "SELECT edition, key, 0, rowid FROM glossary WHERE lang = ? AND key = ? "
            "UNION ALL SELECT edition, key, 1, rowid FROM glossary_aliases "
            "WHERE lang = ? AND alias = ?",
            (lang, wanted, lang, wanted),
        ):
            if allowed is None or ed_id in allowed:
                hits.setdefault(ed_id, []).append((pri, seq, key))
        if not hits:
            return None
        ed_id = self._newest_first(list(hits), lang)
        if not ed_id:
            return None
        best = min(hits[ed_id[0]])
        return self.glossary[ed_id[0]].get(best[2])

    def glossary_edition(self, lang: str) -> Edition | None:
        """The newest edition of a language that has a glossary (None: the language has none)."""
        having = {
            e
            for (e,) in self._db.all(
                "SELECT DISTINCT edition FROM glossary WHERE lang = ?", (lang,)
            )
        }
        for ed in reversed(self.editions_of(lang)):
            if ed.id in having:
                return ed
        return None


class _Rules(Mapping[str, Mapping[str, Rule]]):
    """``kb.rules``: edition id -> that edition's rules (read on demand)."""

    def __init__(self, kb: StoredKnowledgeBase) -> None:
        self._kb = kb
        self._ids = [e for (e,) in kb._db.all("SELECT id FROM editions ORDER BY position")]

    def __getitem__(self, ed_id: str) -> Mapping[str, Rule]:
        if ed_id not in self._kb.editions:
            raise KeyError(ed_id)
        return _EditionRules(self._kb, ed_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, ed_id: object) -> bool:
        return ed_id in self._kb.editions


class _EditionRules(Mapping[str, Rule]):
    """The rules of one edition by number, in document order."""

    def __init__(self, kb: StoredKnowledgeBase, ed_id: str) -> None:
        self._kb = kb
        self._ed = ed_id

    def __getitem__(self, number: str) -> Rule:
        rule = self._kb._rule_cache(self._ed, number)
        if rule is None:
            raise KeyError(number)
        return rule

    def get(self, number: str, default: Any = None) -> Any:  # type: ignore[override]
        rule = self._kb._rule_cache(self._ed, number) if isinstance(number, str) else None
        return default if rule is None else rule

    def __contains__(self, number: object) -> bool:
        return isinstance(number, str) and (
            self._kb._db.one(
                "SELECT 1 FROM rules WHERE edition = ? AND number = ?", (self._ed, number)
            )
            is not None
        )

    def __iter__(self) -> Iterator[str]:
        rows = self._kb._db.all(
            "SELECT number FROM rules WHERE edition = ? ORDER BY rowid", (self._ed,)
        )
        return iter([n for (n,) in rows])

    def __len__(self) -> int:
        return self._kb._db.one("SELECT count(*) FROM rules WHERE edition = ?", (self._ed,))[0]

    def values(self) -> Any:  # type: ignore[override]
        return list(self._kb._iter_rules(self._ed))

    def items(self) -> Any:  # type: ignore[override]
        return [(r.number, r) for r in self._kb._iter_rules(self._ed)]

    def __bool__(self) -> bool:
        return (
            self._kb._db.one("SELECT 1 FROM rules WHERE edition = ? LIMIT 1", (self._ed,))
            is not None
        )


class _Glossary(Mapping[str, Mapping[str, GlossaryEntry]]):
    """``kb.glossary``: edition id -> its glossary entries by key (read on demand)."""

    def __init__(self, kb: StoredKnowledgeBase) -> None:
        self._kb = kb

    def __getitem__(self, ed_id: str) -> Mapping[str, GlossaryEntry]:
        if ed_id not in self._kb.editions:
            raise KeyError(ed_id)
        return _EditionGlossary(self._kb, ed_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._kb.editions)

    def __len__(self) -> int:
        return len(self._kb.editions)

    def __contains__(self, ed_id: object) -> bool:
        return ed_id in self._kb.editions


class _EditionGlossary(Mapping[str, GlossaryEntry]):
    def __init__(self, kb: StoredKnowledgeBase, ed_id: str) -> None:
        self._kb = kb
        self._ed = ed_id

    def __getitem__(self, key: str) -> GlossaryEntry:
        entry = self._kb._gloss_cache(self._ed, key) if isinstance(key, str) else None
        if entry is None:
            raise KeyError(key)
        return entry

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        entry = self._kb._gloss_cache(self._ed, key) if isinstance(key, str) else None
        return default if entry is None else entry

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (
            self._kb._db.one(
                "SELECT 1 FROM glossary WHERE edition = ? AND key = ?", (self._ed, key)
            )
            is not None
        )

    def __iter__(self) -> Iterator[str]:
        rows = self._kb._db.all(
            "SELECT key FROM glossary WHERE edition = ? ORDER BY rowid", (self._ed,)
        )
        return iter([k for (k,) in rows])

    def __len__(self) -> int:
        return self._kb._db.one("SELECT count(*) FROM glossary WHERE edition = ?", (self._ed,))[0]

    def values(self) -> Any:  # type: ignore[override]
        return list(self._kb._iter_glossary(self._ed))

    def items(self) -> Any:  # type: ignore[override]
        return [(g.key, g) for g in self._kb._iter_glossary(self._ed)]

    def __bool__(self) -> bool:
        return (
            self._kb._db.one("SELECT 1 FROM glossary WHERE edition = ? LIMIT 1", (self._ed,))
            is not None
        )


class _Concordance(Mapping[str, dict[str, str]]):
    """``kb.concordance``: lineage (canonical number) -> {edition id: number there}."""

    def __init__(self, kb: StoredKnowledgeBase) -> None:
        self._kb = kb

    def __getitem__(self, lineage: str) -> dict[str, str]:
        rows = self._kb._lineage_rows(lineage) if isinstance(lineage, str) else {}
        if not rows:
            raise KeyError(lineage)
        return rows

    def __contains__(self, lineage: object) -> bool:
        return isinstance(lineage, str) and (
            self._kb._db.one("SELECT 1 FROM lineage WHERE lineage = ? LIMIT 1", (lineage,))
            is not None
        )

    def __iter__(self) -> Iterator[str]:
        rows = self._kb._db.all("SELECT DISTINCT lineage FROM lineage ORDER BY lineage")
        return iter([x for (x,) in rows])

    def __len__(self) -> int:
        return self._kb._db.one("SELECT count(DISTINCT lineage) FROM lineage")[0]


class _Changes(Mapping[str, list[Change]]):
    """``kb.changes``: ``old..new`` -> the changes between two consecutive full editions."""

    def __init__(self, kb: StoredKnowledgeBase) -> None:
        self._kb = kb
        self._spans = [s for (s,) in kb._db.all("SELECT span FROM comparisons ORDER BY position")]

    def __getitem__(self, span: str) -> list[Change]:
        if span not in self._spans:
            raise KeyError(span)
        return [
            Change(*row)
            for row in self._kb._db.all(
                "SELECT change, old, new FROM changes WHERE span = ? ORDER BY position", (span,)
            )
        ]

    def __contains__(self, span: object) -> bool:
        return span in self._spans

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


class _LazyList(Sequence[Any]):
    """A list read from the database on first use (the term base, the examples ...)."""

    def __init__(self, load: Any) -> None:
        self._load = load
        self._items: list[Any] | None = None
        self._lock = threading.Lock()

    def _get(self) -> list[Any]:
        items = self._items
        if items is None:
            with self._lock:
                if self._items is None:
                    self._items = self._load()
                items = self._items
        return items

    def __getitem__(self, index: Any) -> Any:
        return self._get()[index]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._get())

    def __eq__(self, other: object) -> bool:
        return list(self._get()) == (list(other) if isinstance(other, Sequence) else other)

    def __repr__(self) -> str:
        return repr(self._get())


def open_kb(path: Path) -> StoredKnowledgeBase:
    """Open a ``kb.sqlite`` read-only (:class:`StoreError` if it is not one)."""
    return StoredKnowledgeBase(Path(path))


__all__ = ["DB_FILE", "FORMAT", "LANGS", "StoreError", "StoredKnowledgeBase", "open_kb", "write"]
