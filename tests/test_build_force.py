"""``kb build --force`` repairs a damaged instance, its search index included (a new user's
trial found the index copied, damage and all, from the build it replaced)."""

from __future__ import annotations

import shutil
from pathlib import Path

from kb.build import build, load
from kb.search import Searcher


def test_force_rebuilds_a_damaged_search_index(embedded_instance: Path, tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    shutil.copytree(embedded_instance, instance, symlinks=True)
    postings = (instance / "index" / "postings.sqlite").resolve()
    postings.write_bytes(b"")  # damaged in place, as a full disk or a stray copy would leave it
    report = build(instance, force=True)
    assert any(n.startswith("search index: ") and "documents" in n for n in report.notes)
    assert (instance / "index" / "postings.sqlite").resolve().stat().st_size > 0
    with Searcher(instance / "index", load(instance)) as searcher:
        assert searcher.search("priority", lang="en").hits


def test_the_summary_names_a_reused_index_instead_of_none_documents() -> None:
    from kb.build import index_note

    reused = index_note({"docs": None, "bytes": 2_000_000, "seconds": 0.01})
    assert reused == "search index: the previous build's, reused (2.0 MB, 0.01 s)"
    assert index_note({"docs": 12, "bytes": 1e6, "seconds": 1.5}).startswith("search index: 12 ")
