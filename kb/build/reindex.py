"""The search index of a built database, its rules read as plain rows (an incremental build has
no knowledge base in memory; reading every rule with its links would cost more than indexing)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kb import store
from kb.buildcache import BuildCache
from kb.model import GlossaryEntry, KnowledgeBase, Rule


def build_index_from(
    db: Path,
    index_dir: Path,
    cache: BuildCache,
    canonical: Mapping[str, Mapping[str, str | None]] | None = None,
) -> dict[str, Any]:
    """The search index of a database (its rules read as plain rows, without their links);
    ``canonical`` (edition -> number -> canonical number), when the caller knows it, spares
    reading the lineage table."""
    from kb.build import analysis_memo
    from kb.search import build_index

    kb = store.open_kb(db)
    try:
        with analysis_memo(cache) as memo:
            return build_index(_IndexView.of(kb, canonical), index_dir, memo=memo)
    finally:
        kb.close()


class _IndexView:
    """What the indexer reads of a stored knowledge base, every rule read in one query."""

    @staticmethod
    def of(kb: Any, canonical: Mapping[str, Mapping[str, str | None]] | None) -> KnowledgeBase:
        rules: dict[str, dict[str, Rule]] = {e: {} for e in kb.editions}
        if canonical is None:
            rows = kb._db.all(
                "SELECT r.edition, r.lang, r.number, r.kind, r.title, r.text, r.examples, "
                "l.canonical FROM rules r LEFT JOIN lineage l "
                "ON l.edition = r.edition AND l.number = r.number ORDER BY r.rowid"
            )
        else:
            rows = [
                (*row, canonical.get(row[0], {}).get(row[2]))
                for row in kb._db.all(
                    "SELECT edition, lang, number, kind, title, text, examples FROM rules "
                    "ORDER BY rowid"
                )
            ]
        for ed_id, lang, number, kind, title, text, examples, canon in rows:
            rules[ed_id][number] = Rule(
                ed_id,
                lang,
                number,
                kind,
                text,
                title,
                json.loads(examples) if examples != "[]" else [],
                canonical=canon,
            )
        glossary: dict[str, dict[str, GlossaryEntry]] = {e: {} for e in kb.editions}
        for ed_id, key, lang, term, definition, aliases, rule_refs in kb._db.all(
            "SELECT edition, key, lang, term, definition, aliases, rule_refs FROM glossary "
            "ORDER BY rowid"
        ):
            glossary[ed_id][key] = GlossaryEntry(
                ed_id,
                lang,
                key,
                term,
                definition,
                json.loads(aliases) if aliases != "[]" else [],
                rule_refs=json.loads(rule_refs) if rule_refs != "[]" else [],
            )
        view = KnowledgeBase(
            editions=dict(kb.editions),
            rules=rules,
            glossary=glossary,
            commentary=list(kb.commentary),
            tournament=list(kb.tournament),
            terms=list(kb.terms),
            examples=list(kb.examples),
            content_hash=kb.content_hash,
        )
        return view
