"""The lazy mappings and lists a :class:`~kb.store.reader.StoredKnowledgeBase` exposes as
``kb.rules``, ``kb.glossary``, ``kb.concordance``, ``kb.changes`` and its small lists."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from kb.knowledge.model import Change, Edition, GlossaryEntry, Rule
from kb.knowledge.printed import PRINTED_AS
from kb.store.connection import Database


class StoredKnowledgeBase(Protocol):
    """What the views read through: :class:`kb.store.reader.StoredKnowledgeBase`'s queries and
    caches (a protocol, so that this module does not import the reader, which imports it)."""

    _db: Database
    editions: Mapping[str, Edition]

    def _rule_cache(self, ed_id: str, number: str) -> Rule | None: ...
    def _gloss_cache(self, ed_id: str, key: str) -> GlossaryEntry | None: ...
    def _iter_rules(self, ed_id: str) -> Iterator[Rule]: ...
    def _iter_glossary(self, ed_id: str) -> Iterator[GlossaryEntry]: ...
    def _lineage_rows(self, lineage: str) -> dict[str, str]: ...


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

    def lineages_of(self, number: str, lang: str) -> dict[str, tuple[str, str | None]]:
        """Edition -> (lineage, canonical) of the rule each edition of ``lang`` numbers
        ``number`` and printed so (not a misprint kept under it): one indexed query, no rule
        decoded."""
        rows = self._kb._db.all(
            "SELECT r.edition, l.lineage, l.canonical FROM rules r LEFT JOIN lineage l "
            "ON l.edition = r.edition AND l.number = r.number WHERE r.number = ? AND r.lang = ? "
            "AND r.flags NOT LIKE '%' || ? || '%'",
            (number, lang, PRINTED_AS),
        )
        return {ed: (lineage or f"{ed}:{number}", canonical) for ed, lineage, canonical in rows}


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

    def printed_otherwise(self) -> list[tuple[str, list[str]]]:
        """``(number, flags)`` of the rules kept under another number than the one printed
        (flag ``printed-as:``), in document order: one indexed query, no rule decoded."""
        rows = self._kb._db.all(
            "SELECT number, flags FROM rules WHERE edition = ? AND flags LIKE '%' || ? || '%' "
            "ORDER BY ord",
            (self._ed, PRINTED_AS),
        )
        return [(number, json.loads(flags)) for number, flags in rows]

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
