"""The parts of a full build that other processes do (kb.base.forked) give what one process
gives: the alignments made while linking, the history made from the knowledge base in memory,
and the cache entries written in the background."""

from __future__ import annotations

import importlib
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kb import store
from kb.align import concordance
from kb.base import buildcache, forked
from kb.base.buildcache import BuildCache
from kb.build import build_kb
from kb.build.read import assemble, corpus_inputs, read_all
from kb.history.diffs import edition_positions, insert_history, kb_history_rows, write_history
from kb.knowledge.model import KnowledgeBase

link_module = importlib.import_module("kb.build.link")


@pytest.fixture
def no_other_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Other tests of the session may leave threads (a live server): these tests fork anyway."""
    monkeypatch.setattr(forked, "alone", lambda: True)


def _can_fork() -> bool:
    return forked.cores() > 1 and hasattr(os, "fork")


@pytest.fixture(scope="module")
def two_editions(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path) -> Path:
    """A folder of two official editions, the second renumbering rule 116 as 117."""
    folder = tmp_path_factory.mktemp("two-editions")
    for date in ("2019-06-12", "2019-07-12"):
        name = f"MagicCompRules-{date}.txt"
        (folder / name).symlink_to(cr_en_dir / name)
    return folder


def _assembled(folder: Path) -> KnowledgeBase:
    docs, problems = read_all(corpus_inputs([folder]))
    return assemble(docs, problems)


def _links(kb: KnowledgeBase) -> dict[str, Any]:
    return {
        ed_id: (
            [(r.number, r.refs, r.example_refs, r.term_spans, r.terms) for r in table.values()],
            [(g.key, g.refs, g.rule_refs) for g in kb.glossary.get(ed_id, {}).values()],
        )
        for ed_id, table in kb.rules.items()
    }


def test_links_cached_in_the_background_are_those_cached_by_one_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_other_threads: None, two_editions: Path
) -> None:
    alone = _assembled(two_editions)
    with monkeypatch.context() as m:
        m.setattr(forked, "cores", lambda: 1)
        link_module.link(alone, BuildCache(tmp_path / "one"), background=True)
    other = _assembled(two_editions)
    monkeypatch.setattr(buildcache, "BACKGROUND_ENTRIES", 1)
    cache = BuildCache(tmp_path / "two")
    link_module.link(other, cache, background=True)
    assert len(cache.background) == (1 if _can_fork() else 0)
    cache.wait()
    assert _links(other) == _links(alone)
    assert any(r.refs for table in other.rules.values() for r in table.values())
    # Every edition's entry is written and counts as used; read back, it gives the same links.
    one, two = tmp_path / "one" / "link", tmp_path / "two" / "link"
    written = sorted(p.name for p in two.iterdir())
    assert written == sorted(p.name for p in one.iterdir())
    assert all((one / name).read_bytes() == (two / name).read_bytes() for name in written)
    assert {p.name for p in cache.used} == set(written)
    again = _assembled(two_editions)
    reread = BuildCache(tmp_path / "two")
    link_module.link(again, reread)
    assert reread.misses == 0 and reread.hits == len(written)
    assert _links(again) == _links(alone)


def test_alignments_made_beforehand_give_the_same_concordance(two_editions: Path) -> None:
    kb = _assembled(two_editions)
    link_module.link(kb)
    overrides: dict[str, dict[str, str]] = {}
    concordance.compute(kb, overrides)
    expected = {
        (ed_id, n): (r.lineage, r.canonical, r.change)
        for ed_id, table in kb.rules.items()
        for n, r in table.items()
    }
    aligned = concordance.align_editions(kb, overrides)
    assert any(key.endswith("..en-2019-07-12") for key in aligned)
    # A wrong alignment handed in shows: every pair says "nothing matched".
    empty = {key: concordance.Alignment() for key in aligned}
    concordance.compute(kb, overrides, aligned=empty)
    assert {
        (ed_id, n): (r.lineage, r.canonical, r.change)
        for ed_id, table in kb.rules.items()
        for n, r in table.items()
    } != expected
    concordance.compute(kb, overrides, aligned=aligned)
    assert {
        (ed_id, n): (r.lineage, r.canonical, r.change)
        for ed_id, table in kb.rules.items()
        for n, r in table.items()
    } == expected


def test_history_from_memory_is_the_history_read_from_the_database(tmp_path: Path) -> None:
    kb, _, _ = build_kb(run_examples_too=False)
    path = tmp_path / "kb.sqlite"
    store.write(kb, path)
    write_history(path)
    with sqlite3.connect(path) as conn:
        stored = conn.execute("SELECT * FROM history ORDER BY rowid").fetchall()
        positions = dict(conn.execute("SELECT id, position FROM editions"))
    assert positions == edition_positions(kb)
    rows = kb_history_rows(kb, path)
    assert rows == stored
    assert any(row[3].count("<ins>") for row in rows)  # word diffs among them
    other = tmp_path / "other.sqlite"
    store.write(kb, other)
    assert insert_history(other, rows) == len(stored)
    with sqlite3.connect(other) as conn:
        assert conn.execute("SELECT * FROM history ORDER BY rowid").fetchall() == stored


def test_a_full_build_waits_for_its_background_cache_writes(
    tmp_path: Path, no_other_threads: None
) -> None:
    cache = BuildCache(tmp_path / "cache")
    build_kb(run_examples_too=False, cache=cache)
    assert cache.background == []
    docs = list((tmp_path / "cache" / "docs").iterdir())
    assert docs and all(p in cache.used for p in docs)
    again = BuildCache(tmp_path / "cache")
    build_kb(run_examples_too=False, cache=again)
    assert again.misses == 0 and again.hits >= len(docs)
