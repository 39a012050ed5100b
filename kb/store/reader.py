"""Reading ``kb.sqlite``: one read-only connection per thread and :class:`StoredKnowledgeBase`,
the :class:`~kb.knowledge.model.KnowledgeBase` interface answered by indexed queries."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Sequence
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, NamedTuple

from kb.base.cachemap import MISSING, keep
from kb.knowledge.model import (
    Edition,
    ExampleInfo,
    GlossaryEntry,
    KnowledgeBase,
    Ref,
    Rule,
    examples_fit,
)
from kb.store import tables
from kb.store.connection import Database
from kb.store.views import _Changes, _Concordance, _Glossary, _LazyList, _Rules

#: A rule's columns; its seven JSON columns joined into one array, decoded by one call.
_RULE_COLUMNS = (
    "r.edition, r.lang, r.number, r.kind, r.text, r.title, r.parent, l.canonical, l.lineage, "
    "l.change, r.source, r.line, '[' || r.examples || ',' || r.children || ',' || r.refs || ',' "
    "|| r.example_refs || ',' || r.terms || ',' || r.term_spans || ',' || r.flags || ']'"
)
_RULE_FROM = "rules r LEFT JOIN lineage l ON l.edition = r.edition AND l.number = r.number"


class RuleHead(NamedTuple):
    """What a link to a rule shows of it (:meth:`StoredKnowledgeBase.rules_many`'s ``heads``):
    the fields of :class:`~kb.knowledge.model.Rule` of the same names."""

    edition: str
    lang: str
    number: str
    title: str | None
    text: str
    canonical: str | None


#: Rules read by one query of :meth:`StoredKnowledgeBase.rules_many` at most.
_BATCH = 400

_GLOSSARY_COLUMNS = (
    "edition, lang, key, term, definition, aliases, obsolete, see, rule_refs, refs, source, line"
)


#: Decoded rules a knowledge base keeps (glossary entries: a quarter as many). On the archive's
#: distinct pages 1,024 would hold ~12 MB less per worker but cost ~5% more CPU per page.
RULE_CACHE = 4096


class StoredKnowledgeBase(KnowledgeBase):
    """The :class:`~kb.knowledge.model.KnowledgeBase` interface over a database: small tables are read at
    open, rules and glossary entries on demand (with a bounded cache of decoded nodes), and the
    lookups that scanned lists in memory are indexed queries."""

    def __init__(self, path: Path, cache_size: int = RULE_CACHE) -> None:
        self._db = Database(path)
        db = self._db
        editions = {ed.id: ed for ed in tables.editions(db)}
        super().__init__(
            editions=editions,
            rules=_Rules(self),  # type: ignore[arg-type]
            glossary=_Glossary(self),  # type: ignore[arg-type]
            commentary=_LazyList(partial(tables.commentary, db)),  # type: ignore[arg-type]
            tournament=_LazyList(partial(tables.tournament, db)),  # type: ignore[arg-type]
            terms=_LazyList(partial(tables.terms, db)),  # type: ignore[arg-type]
            examples=_LazyList(partial(tables.examples, db)),  # type: ignore[arg-type]
            asks=_LazyList(partial(tables.asks, db)),  # type: ignore[arg-type]
            concordance=_Concordance(self),  # type: ignore[arg-type]
            changes=_Changes(self),  # type: ignore[arg-type]
            warnings=_LazyList(partial(tables.warnings, db)),  # type: ignore[arg-type]
            content_hash=db.meta.get("content_hash", ""),
        )
        self.__dict__["_editions_of"] = {}
        self._position = {ed_id: i for i, ed_id in enumerate(editions)}
        self.path = Path(path)
        #: the build folder this object reads (see :func:`kb.build.load`)
        self.build_dir = self.path.parent
        #: (edition, number) -> the decoded rule (None: no such rule), the oldest read first out.
        self._rules: dict[tuple[str, str], Rule | None] = {}
        self._rules_max = cache_size
        self._gloss_cache = lru_cache(maxsize=cache_size // 4)(self._load_glossary_entry)
        self._order_cache = lru_cache(maxsize=16)(self._load_order)
        self._example_anchors: dict[str, set[str]] | None = None
        self._examples_by_id: dict[str, ExampleInfo] = {}
        self._example_positions: dict[str, int] | None = None
        #: the whole list of examples once read, and each one's place in it (by id)
        self._loaded_positions: tuple[list[ExampleInfo], dict[str, int]] | None = None

    def close(self) -> None:
        """Close the database in every thread (for a build the app no longer serves)."""
        self._db.close()

    # ---- decoding --------------------------------------------------------------------------
    def _rule_from_row(self, row: Sequence[Any]) -> Rule:
        examples, children, refs, example_refs, terms, term_spans, flags = json.loads(row[12])
        return Rule(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            examples,
            row[6],
            children,
            [Ref(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in refs],
            [[Ref(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in x] for x in example_refs],
            terms,
            term_spans,
            row[7],
            row[8] or "",
            row[9],
            row[10],
            row[11],
            flags,
        )

    def _load_rule(self, ed_id: str, number: str) -> Rule | None:
        row = self._db.one(
            f"SELECT {_RULE_COLUMNS} FROM {_RULE_FROM} WHERE r.edition = ? AND r.number = ?",
            (ed_id, number),
        )
        return self._rule_from_row(row) if row else None

    def _rule_cache(self, ed_id: str, number: str) -> Rule | None:
        """The rule from the bounded cache of decoded rules, read on a miss."""
        key = (ed_id, number)
        try:
            return self._rules[key]
        except KeyError:
            pass
        rule = self._load_rule(ed_id, number)
        self._keep(key, rule)
        return rule

    def _keep(self, key: tuple[str, str], rule: Rule | None) -> None:
        """Cache a decoded rule (:func:`kb.base.cachemap.keep`: the oldest out first)."""
        keep(self._rules, key, rule, self._rules_max)

    def rules_many(
        self, pairs: Iterable[tuple[str, str]], heads: Collection[tuple[str, str]] = ()
    ) -> dict[tuple[str, str], Rule | RuleHead | None]:
        """Many rules by ``(edition, number)`` at once: the cached ones, and the others in one
        query (a page reads its rule's children, ancestors, neighbours and references so).

        ``heads``: pairs of which only the number, title, text and canonical number are
        wanted (a link to the rule): those not in the cache come as a :class:`RuleHead`, read
        from the same row without decoding the rest, and are not kept."""
        out: dict[tuple[str, str], Rule | RuleHead | None] = {}
        missing: list[tuple[str, str]] = []
        rules = self._rules
        pairs = list(pairs)
        wanted_whole = set(pairs) if heads else ()
        for key in [*pairs, *heads]:
            if key in out:
                continue
            found = rules.get(key, MISSING)
            if found is MISSING:
                if key[0] not in self.editions:
                    out[key] = None
                    continue
                out[key] = None  # until read
                missing.append(key)
            else:
                out[key] = found  # type: ignore[assignment]
        for start in range(0, len(missing), _BATCH):
            chunk = missing[start : start + _BATCH]
            params = [value for key in chunk for value in key]
            for row in self._db.all(
                f"SELECT {_RULE_COLUMNS} FROM (VALUES {','.join(['(?,?)'] * len(chunk))}) w "
                "JOIN rules r ON r.edition = w.column1 AND r.number = w.column2 "
                "LEFT JOIN lineage l ON l.edition = r.edition AND l.number = r.number",
                params,
            ):
                key = (row[0], row[2])
                if key in heads and key not in wanted_whole:
                    out[key] = RuleHead(row[0], row[1], row[2], row[5], row[4], row[7])
                else:
                    out[key] = self._rule_from_row(row)
            for key in chunk:
                if type(out[key]) is not RuleHead:
                    self._keep(key, out[key])  # type: ignore[arg-type]
        return out

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

    def neighbour_numbers(self, rule: Rule) -> tuple[str | None, str | None]:
        """The numbers of the previous and next rule of the same edition in numeric order: two
        lookups on the ``(edition, ord)`` index, as cheap for a pinned edition of 2004 as for
        today's (an edition's whole order, read and kept per edition, missed at archive scale)."""
        if rule.edition not in self.editions:
            return None, None
        found = self._db.all(
            "WITH me AS (SELECT ord FROM rules WHERE edition = ?1 AND number = ?2) SELECT "
            "(SELECT number FROM rules WHERE edition = ?1 AND ord < me.ord "
            "ORDER BY ord DESC LIMIT 1), "
            "(SELECT number FROM rules WHERE edition = ?1 AND ord > me.ord ORDER BY ord LIMIT 1) "
            "FROM me",
            (rule.edition, rule.number),
        )
        return (found[0][0], found[0][1]) if found else (None, None)

    def neighbours(self, rule: Rule) -> tuple[Rule | None, Rule | None]:
        """The previous and next rule of the same edition in numeric order."""
        prev, nxt = self.neighbour_numbers(rule)
        found = self.rules_many([(rule.edition, n) for n in (prev, nxt) if n is not None])
        return (
            found[(rule.edition, prev)] if prev is not None else None,
            found[(rule.edition, nxt)] if nxt is not None else None,
        )

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
        """:meth:`history` with each edition's ``title``, ``text`` and ``examples`` of the rule
        (one query)."""
        rows = {
            ed: (number, change, title, text, examples)
            for ed, number, change, title, text, examples in self._db.all(
                "SELECT l.edition, l.number, l.change, r.title, r.text, r.examples FROM lineage l "
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
                "examples": json.loads(rows[ed.id][4]),
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
        anchors = self._example_anchors
        if anchors is None:  # a small table (a row per example and rule it cites): read once
            found: dict[str, set[str]] = {}
            if not examples_fit(self.editions.values()):  # numbers of another numbering
                anchors = self._example_anchors = found
                return []
            for example, anchor in self._db.all("SELECT example, anchor FROM example_rules"):
                found.setdefault(anchor, set()).add(example)
            anchors = self._example_anchors = found
        ids = anchors.get(canonical)
        if not ids:
            return []
        loaded = self.examples._items  # type: ignore[attr-defined]
        if loaded is not None:  # the whole list is read already: take them from it, in order
            kept_at = self._loaded_positions
            if kept_at is None or kept_at[0] is not loaded:
                at = {ex.id: i for i, ex in enumerate(loaded)}
                kept_at = self._loaded_positions = (loaded, at)
            at = kept_at[1]
            return [loaded[i] for i in sorted(at[x] for x in ids if x in at)]
        # Decoded once each (their traces are most of their size); in the list's order.
        kept = self._examples_by_id
        missing = sorted(i for i in ids if i not in kept)
        if missing:
            for ex in tables.examples(self._db, missing):
                kept[ex.id] = ex
        return sorted(
            (kept[i] for i in ids if i in kept), key=lambda ex: self._example_position(ex.id)
        )

    def _example_position(self, example_id: str) -> int:
        positions = self._example_positions
        if positions is None:
            positions = self._example_positions = dict(
                self._db.all("SELECT id, position FROM examples")
            )
        return positions.get(example_id, 0)

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


def open_kb(path: Path) -> StoredKnowledgeBase:
    """Open a ``kb.sqlite`` read-only (:class:`StoreError` if it is not one)."""
    return StoredKnowledgeBase(Path(path))
