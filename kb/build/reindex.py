"""The search index of a built database. An incremental build has no knowledge base in memory:
it updates the previous build's :class:`~kb.search.docstate.DocState` (kept in the build cache
under the build's content hash) and reads nothing else of the rules; without one, the rules are
read as plain rows (reading every rule with its links would cost more than indexing)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb import store
from kb.base.buildcache import BuildCache
from kb.knowledge.model import GlossaryEntry, KnowledgeBase, Rule

if TYPE_CHECKING:  # the search package is imported where an index is built, not before
    from kb.search.docstate import DocState

#: The build cache's kind of entry for a build's document state (keyed by its content hash).
STATE = "docstate"


def build_index_from(
    db: Path,
    index_dir: Path,
    cache: BuildCache,
    canonical: Mapping[str, Mapping[str, str | None]] | None = None,
    state: DocState | None = None,
    previous: Path | None = None,
) -> dict[str, Any]:
    """The search index of a database, from the document ``state`` of its rules when the caller
    has it, else from its rules read as plain rows (without their links; ``canonical``, edition
    -> number -> canonical number, spares reading the lineage table). The state is saved in the
    cache for the next build either way. ``previous`` is the previous build's index folder
    (its Whoosh files are copied when the vocabulary did not change)."""
    from kb.build import analysis_memo
    from kb.search import build_index

    kb = store.open_kb(db)
    try:
        view = kb if state is not None else _IndexView.of(kb, canonical)
        if state is None:
            from kb.search.docstate import DocState

            state = DocState.of(view)
        with analysis_memo(cache) as memo:
            stats = build_index(view, index_dir, previous, memo=memo, state=state)
        save_state(cache, kb.content_hash, state)
        return stats
    finally:
        kb.close()


def saved_state(cache: BuildCache, content_hash: str) -> DocState | None:
    """The document state of the build with this content hash, if the cache has it."""
    from kb.search.docstate import DocState

    try:
        found = cache.get(STATE, content_hash) if content_hash else None
    except (ValueError, TypeError, KeyError):  # a state of another layout: made again
        return None
    return found if isinstance(found, DocState) else None


def save_state(cache: BuildCache, content_hash: str, state: DocState) -> None:
    """Keep a build's document state for the next incremental build."""
    if content_hash:
        cache.put(STATE, content_hash, state)


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
            asks=list(kb.asks),
            content_hash=kb.content_hash,
        )
        return view
