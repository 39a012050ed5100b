"""Cards in the database: written by the build when a card file is given, read lazily like rules.

The project ships no card texts: these tables exist only in a build made with ``kb build
--cards PATH`` and hold what the user's file says. They are apart from :data:`kb.store.SCHEMA`
(a build without cards has none of them, and a reader of a build without them sees no cards), so
a changed card file rewrites only them in a copy of the previous build's database.

``card_meta(key, value)``
    ``source`` (the card file), ``digest`` (of its bytes), ``format``, ``count``, ``edition``
    (the rules the cards were linked to).
``cards(id, slug, name, layout, rank, data, uses)``
    One row per card: ``slug`` its URL name (``fire-ice``), ``data`` the card as JSON
    (:meth:`kb.sources.card_model.Card.to_json`: every face, printed French and Japanese texts,
    rulings), ``uses`` the rules it uses as JSON ``[number, why, label, face]`` rows.
``card_names(key, lang, name, card, whole)``
    Every name of every card in en/fr/ja, by folded key (:func:`kb.cards.names.fold`);
    ``whole`` is 1 for the card's whole name, 0 for a face's.
``card_rules(number, card, why)``
    The reverse of ``uses``: the cards using a rule.
``card_rulings(card, position, date, text)``
    Every ruling, so that search reads them as their own kind.
``card_spans(edition, kind, key, start, end, card)``
    Card names in the newest edition of each language (:mod:`kb.cards.mentions`): in a rule's
    text (kind ``rule``, key its number), its printed examples (``example``, ``number#i``) or a
    glossary definition (``glossary``, key the entry's), for links to the card pages.
``card_examples(card, example, title)``
    The executable examples whose game blocks name the card (``hand [Circling Vultures]``,
    ``Alice casts Lightning Bolt``).
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from kb.sources.card_model import Card, Face, Printed

__all__ = [
    "CARD_SCHEMA",
    "CardRow",
    "CardStore",
    "card_slug",
    "copy_cards",
    "drop_cards",
    "write_cards",
]

CARD_TABLES = (
    "card_meta",
    "cards",
    "card_names",
    "card_rules",
    "card_rulings",
    "card_examples",
    "card_spans",
)
CARD_SCHEMA = """
CREATE TABLE card_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cards (
    id INTEGER PRIMARY KEY, slug TEXT NOT NULL, name TEXT NOT NULL, layout TEXT NOT NULL,
    rank INTEGER, data TEXT NOT NULL, uses TEXT NOT NULL);
CREATE TABLE card_names (
    key TEXT NOT NULL, lang TEXT NOT NULL, name TEXT NOT NULL, card INTEGER NOT NULL,
    whole INTEGER NOT NULL);
CREATE TABLE card_rules (number TEXT NOT NULL, card INTEGER NOT NULL, why TEXT NOT NULL);
CREATE TABLE card_rulings (
    card INTEGER NOT NULL, position INTEGER NOT NULL, date TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE card_examples (card INTEGER NOT NULL, example TEXT NOT NULL, title TEXT NOT NULL);
CREATE TABLE card_spans (
    edition TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, card INTEGER NOT NULL);
CREATE UNIQUE INDEX cards_by_slug ON cards (slug);
CREATE INDEX card_names_by_key ON card_names (key);
CREATE INDEX card_rules_by_number ON card_rules (number);
CREATE INDEX card_rulings_by_card ON card_rulings (card);
CREATE INDEX card_examples_by_card ON card_examples (card);
"""

_SLUG_DROP = re.compile(r"[^\w]+")


def card_slug(name: str) -> str:
    """A card's URL name: accents dropped, lower case, words joined by ``-`` ("Fire // Ice" ->
    ``fire-ice``, "Æther Vial" -> ``aether-vial``)."""
    text = unicodedata.normalize("NFKD", name.replace("Æ", "Ae").replace("æ", "ae"))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return _SLUG_DROP.sub("-", text.replace("'", "")).strip("-_") or "card"


def drop_cards(conn: sqlite3.Connection) -> None:
    """Remove the card tables (a build whose card file changed writes them again)."""
    for table in CARD_TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")


def write_cards(
    conn: sqlite3.Connection,
    cards: Sequence[Card],
    uses: Sequence[Sequence[Sequence[Any]]],
    meta: dict[str, str],
    fold: Any,
    examples: Iterable[tuple[str, str, str]] = (),
    spans: Iterable[tuple[str, str, str, int, int, int]] = (),
) -> None:
    """Write the card tables (replacing any): ``uses[i]`` are ``cards[i]``'s rule links as
    ``(number, why, label, face)``; ``fold`` the name folding of :mod:`kb.cards.names`;
    ``examples`` the executable examples as (id, title, markdown)."""
    drop_cards(conn)
    for statement in CARD_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.executemany("INSERT INTO card_meta VALUES (?, ?)", sorted(meta.items()))
    slugs: set[str] = set()
    rows, names, rules, rulings = [], [], [], []
    for card_id, (card, links) in enumerate(zip(cards, uses, strict=True)):
        slug = base = card_slug(card.name)
        n = 2
        while slug in slugs:
            slug, n = f"{base}-{n}", n + 1
        slugs.add(slug)
        used = [list(link) for link in links]
        rows.append(
            (
                card_id,
                slug,
                card.name,
                card.layout,
                card.rank,
                json.dumps(card.to_json(), ensure_ascii=False),
                json.dumps(used, ensure_ascii=False),
            )
        )
        for lang in ("en", "fr", "ja"):
            whole = card.printed_name(lang)
            for name in card.names(lang):
                names.append((fold(name), lang, name, card_id, int(name == whole)))
        rules.extend((link[0], card_id, link[1]) for link in used)
        rulings.extend((card_id, i, r.date, r.text) for i, r in enumerate(card.rulings))
    conn.executemany("INSERT INTO cards VALUES (?,?,?,?,?,?,?)", rows)
    conn.executemany("INSERT INTO card_names VALUES (?,?,?,?,?)", names)
    conn.executemany("INSERT INTO card_rules VALUES (?,?,?)", rules)
    conn.executemany("INSERT INTO card_rulings VALUES (?,?,?,?)", rulings)
    keys: dict[str, int] = {}
    for key, _, _, card_id, _ in names:
        keys.setdefault(key, card_id)
    rows_ex = []
    for example_id, title, markdown in examples:
        named = {keys[k] for k in map(fold, game_names(markdown)) if k in keys}
        rows_ex.extend((card_id, example_id, title) for card_id in sorted(named))
    conn.executemany("INSERT INTO card_examples VALUES (?,?,?)", rows_ex)
    conn.executemany("INSERT INTO card_spans VALUES (?,?,?,?,?,?)", list(spans))


_GAME = re.compile(r"```game\n(.*?)```", re.S)
_BRACKETS = re.compile(r"\[([^\[\]]+)\]")
_ACTS = re.compile(
    r"\b(?:casts|discards|plays|activates|cycles|exiles|sacrifices|reveals|draws|chooses)\s+"
    r"(.+?)(?=$|\s+(?:targeting|as|with|for|from|paying|and|choosing)\b|[,;:(])",
    re.M,
)


def game_names(markdown: str) -> set[str]:
    """What an example's game blocks name: the items of its ``[...]`` lists (counters and
    states in parentheses dropped) and the objects of its actions (``casts Shock``)."""
    found: set[str] = set()
    for block in _GAME.findall(markdown):
        for items in _BRACKETS.findall(block):
            for item in re.sub(r"\([^()]*\)", "", items).split(","):
                found.add(item.strip().strip('"'))
        for name in _ACTS.findall(block):
            found.add(name.strip().strip('"'))
    return {name for name in found if name}


def copy_cards(conn: sqlite3.Connection, previous: Path) -> bool:
    """Copy the card tables of a previous build's database into ``conn``'s (a card file that
    could not be read keeps the cards read before). False if the previous one has none."""
    conn.execute("ATTACH DATABASE ? AS previous", (Path(previous).resolve().as_uri() + "?mode=ro",))
    try:
        found = conn.execute(
            "SELECT name FROM previous.sqlite_master WHERE type='table' AND name='cards'"
        ).fetchone()
        if not found:
            return False
        drop_cards(conn)
        for statement in CARD_SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        for table in CARD_TABLES:
            conn.execute(f"INSERT INTO main.{table} SELECT * FROM previous.{table}")
        return True
    finally:
        conn.commit()
        conn.execute("DETACH DATABASE previous")


class CardRow(NamedTuple):
    """A stored card: its row id, URL name, the card and the rules it uses."""

    id: int
    slug: str
    card: Card
    uses: list[tuple[str, str, str, str | None]]


def light_card(card_id: int, name: str, rank: int | None, names: Iterable[Sequence[Any]]) -> Card:
    """A card holding only its names (whole and faces, per language) and rank: what a
    :class:`kb.cards.names.NameIndex` reads, ``index`` being the row id."""
    faces: dict[str, Face] = {}
    printed_whole: dict[str, str] = {}
    for lang, face_name, whole in names:
        if lang == "en":
            if not whole:
                faces.setdefault(face_name, Face(face_name, ""))
        elif whole:
            printed_whole[lang] = face_name
    face_list = list(faces.values()) or [Face(name, "")]
    for lang, printed in printed_whole.items():
        parts = printed.split(" // ")
        for i, face in enumerate(face_list):
            face.printed[lang] = Printed(parts[i] if i < len(parts) else parts[-1])
    return Card(name, "", face_list, rank=rank, index=card_id)


class CardStore:
    """The card tables of one database, read on demand (None from :meth:`of` without them)."""

    def __init__(self, conn_of: Any) -> None:
        self._conn_of = conn_of
        self._names: Any = None
        meta = dict(self._all("SELECT key, value FROM card_meta"))
        self.meta: dict[str, str] = meta
        self.count = int(meta.get("count", "0"))

    @classmethod
    def of(cls, kb: Any) -> CardStore | None:
        """The card store of a stored knowledge base (kept on it), None if it has no cards."""
        found = kb.__dict__.get("_card_store", False)
        if found is not False:
            return found  # type: ignore[no-any-return]
        db = getattr(kb, "_db", None)
        store = None
        if db is not None:
            row = db.one("SELECT name FROM sqlite_master WHERE type='table' AND name='card_meta'")
            store = cls(db.conn) if row else None
        kb.__dict__["_card_store"] = store
        return store

    @classmethod
    def open(cls, instance: Path) -> CardStore | None:
        """The card store of an instance's published build, read straight from its database
        (None: a build without cards). ``kb card`` opens it so: one indexed row needs neither
        the knowledge model nor the rules (what :func:`kb.store.published.load` loads).
        :class:`~kb.base.instance.BuildError` when nothing is built or the file is unreadable."""
        from kb.base.instance import BuildError, current_build
        from kb.store.connection import Database
        from kb.store.schema import DB_FILE, StoreError

        instance = Path(instance)
        folder = current_build(instance)
        if folder is None and (instance / DB_FILE).is_file():
            folder = instance  # a build folder given directly
        if folder is None:
            raise BuildError(f"{instance}: no knowledge base built here yet (run `kb build`)")
        try:
            db = Database(folder / DB_FILE)
            row = db.one("SELECT name FROM sqlite_master WHERE type='table' AND name='card_meta'")
        except (StoreError, OSError, sqlite3.DatabaseError) as exc:
            raise BuildError(
                f"{folder / DB_FILE}: unreadable knowledge base ({exc}); "
                "rebuild with `kb build --force`"
            ) from exc
        return cls(db.conn) if row else None

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._conn_of().execute(sql, params).fetchall()

    def _row(self, row: Sequence[Any] | None) -> CardRow | None:
        if row is None:
            return None
        card = Card.from_json(json.loads(row[2]))
        uses = [tuple(u) for u in json.loads(row[3])]
        return CardRow(row[0], row[1], card, uses)  # type: ignore[arg-type]

    def by_slug(self, slug: str) -> CardRow | None:
        """The card of a URL name."""
        rows = self._all("SELECT id, slug, data, uses FROM cards WHERE slug = ?", (slug,))
        return self._row(rows[0] if rows else None)

    def by_id(self, card_id: int) -> CardRow | None:
        """The card of a row id."""
        rows = self._all("SELECT id, slug, data, uses FROM cards WHERE id = ?", (card_id,))
        return self._row(rows[0] if rows else None)

    def ids_by_key(self, key: str) -> list[tuple[int, str, str]]:
        """Cards whose folded name is ``key``: (id, lang, name), English whole names first."""
        rows = self._all(
            "SELECT n.card, n.lang, n.name FROM card_names n JOIN cards c ON c.id = n.card "
            "WHERE n.key = ? ORDER BY n.lang = 'ja', n.lang = 'fr', n.whole DESC, "
            "coalesce(c.rank, 10000000)",
            (key,),
        )
        seen: dict[int, tuple[int, str, str]] = {}
        for card_id, lang, name in rows:
            seen.setdefault(card_id, (card_id, lang, name))
        return list(seen.values())

    def slugs(self) -> list[tuple[str, str]]:
        """(URL name, Oracle name) of every card, by name: a static export's pages and list."""
        return [(row[0], row[1]) for row in self._all("SELECT slug, name FROM cards ORDER BY name")]

    def slug_of(self, card_id: int) -> str | None:
        """The URL name of a card id."""
        rows = self._all("SELECT slug FROM cards WHERE id = ?", (card_id,))
        return rows[0][0] if rows else None

    def summaries(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(slug, name) of several cards by id."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._all(f"SELECT id, slug, name FROM cards WHERE id IN ({marks})", list(ids))
        return {r[0]: (r[1], r[2]) for r in rows}

    def using(self, number: str, limit: int = 50) -> list[tuple[str, str, str]]:
        """Cards that use a rule: (slug, name, why), most played first."""
        return [
            (r[0], r[1], r[2])
            for r in self._all(
                "SELECT c.slug, c.name, r.why FROM card_rules r JOIN cards c ON c.id = r.card "
                "WHERE r.number = ? ORDER BY coalesce(c.rank, 10000000) LIMIT ?",
                (number, limit),
            )
        ]

    def rule_counts(self) -> dict[str, int]:
        """How many cards use each rule, and under "" how many cards there are (for search:
        a rule few cards use says more about a card than one most use)."""
        rows = self._all("SELECT number, COUNT(DISTINCT card) FROM card_rules GROUP BY number")
        return {"": self.count, **{number: n for number, n in rows}}

    def examples(self, card_id: int) -> list[tuple[str, str]]:
        """The executable examples that name a card: (id, title)."""
        return [
            (r[0], r[1])
            for r in self._all(
                "SELECT example, title FROM card_examples WHERE card = ? ORDER BY example",
                (card_id,),
            )
        ]

    def spans(self, edition: str) -> dict[tuple[str, str], list[tuple[int, int, str]]]:
        """Card names in an edition's texts: (kind, key) -> [(start, end, slug)] (read once)."""
        cache = self.__dict__.setdefault("_spans", {})
        found = cache.get(edition)
        if found is None:
            found = {}
            try:
                rows = self._all(
                    'SELECT s.kind, s.key, s.start, s."end", c.slug FROM card_spans s '
                    "JOIN cards c ON c.id = s.card WHERE s.edition = ?",
                    (edition,),
                )
            except sqlite3.OperationalError:  # a build of cards made before these spans
                rows = []
            for kind, key, start, end, slug in rows:
                found.setdefault((kind, key), []).append((start, end, slug))
            cache[edition] = found
        return found  # type: ignore[no-any-return]

    def rulings(self) -> list[tuple[int, int, str, str]]:
        """Every ruling: (card id, position, date, text)."""
        return [tuple(r) for r in self._all("SELECT card, position, date, text FROM card_rulings")]

    def light_cards(self) -> list[Card]:
        """Every card with only its names and rank (for a name index), ``index`` = row id."""
        names: dict[int, list[tuple[str, str, int]]] = {}
        for card_id, lang, name, whole in self._all(
            "SELECT card, lang, name, whole FROM card_names ORDER BY rowid"
        ):
            names.setdefault(card_id, []).append((lang, name, whole))
        return [
            light_card(card_id, name, rank, names.get(card_id, ()))
            for card_id, name, rank in self._all("SELECT id, name, rank FROM cards ORDER BY id")
        ]

    def name_index(self) -> Any:
        """The :class:`kb.cards.names.NameIndex` of every card (built once, ~2 s)."""
        if self._names is None:
            from kb.cards.names import NameIndex

            self._names = NameIndex(self.light_cards())
        return self._names

    def resolve(self, query: str, limit: int = 10) -> list[tuple[int, str, str, str]]:
        """Cards a name names, in any language: (id, lang, name, how) with ``how`` "exact" (one
        indexed query: what ``kb card`` and a card URL need), else "partial" or "fuzzy" through
        the name index (built on first need)."""
        from kb.cards.names import fold, unquote

        key = fold(unquote(query))
        if not key:
            return []
        found = [(i, lang, name, "exact") for i, lang, name in self.ids_by_key(key)[:limit]]
        if found:
            return found
        return [
            (m.card.index, m.lang, m.name, m.how) for m in self.name_index().resolve(query, limit)
        ]
