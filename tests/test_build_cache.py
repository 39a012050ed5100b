"""The build cache: a rebuild that takes files, editions and pairs from it builds the same
knowledge base as a build from scratch, and a changed input is never served from it."""

from __future__ import annotations

from pathlib import Path

from kb.base.buildcache import BuildCache
from kb.build import build_kb
from kb.knowledge.model import KnowledgeBase


def _same(a: KnowledgeBase, b: KnowledgeBase) -> None:
    assert a.editions == b.editions
    assert a.rules == b.rules
    assert a.glossary == b.glossary
    assert a.concordance == b.concordance
    assert a.changes == b.changes
    assert a.warnings == b.warnings


def test_cached_rebuild_equals_a_build_from_scratch(write_edition, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_edition(corpus, "2031-02-01", "February 1, 2031")
    write_edition(corpus, "2031-06-01", "June 1, 2031", marker="Another rule of the test.")
    scratch, _, _ = build_kb([corpus], run_examples_too=False)
    cache = BuildCache(tmp_path / "cache")
    cold, _, _ = build_kb([corpus], run_examples_too=False, cache=cache)
    assert cache.hits == 0 and cache.used
    _same(cold, scratch)
    warm_cache = BuildCache(tmp_path / "cache")
    warm, _, _ = build_kb([corpus], run_examples_too=False, cache=warm_cache)
    assert warm_cache.hits >= len(cache.used) and warm_cache.misses == 0
    _same(warm, scratch)


def test_changed_edition_is_read_linked_and_aligned_again(write_edition, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_edition(corpus, "2031-02-01", "February 1, 2031")
    path = write_edition(
        corpus, "2031-06-01", "June 1, 2031", marker="Old wording, see rule 117.1."
    )
    cache = BuildCache(tmp_path / "cache")
    build_kb([corpus], run_examples_too=False, cache=cache)
    write_edition(corpus, "2031-06-01", "June 1, 2031", marker="New wording, see rule 100.1a.")
    assert path.read_text(encoding="utf-8").count("New wording") == 1
    again = BuildCache(tmp_path / "cache")
    kb, _, _ = build_kb([corpus], run_examples_too=False, cache=again)
    rule = kb.rules["en-2031-06-01"]["117.4"]
    assert rule.text.startswith("New wording") and [r.number for r in rule.refs] == ["100.1a"]
    assert rule.change == "edited"
    scratch, _, _ = build_kb([corpus], run_examples_too=False)
    _same(kb, scratch)
    # Only what involves the changed file was computed again: its document, its links, and its
    # alignment with its neighbour; everything else came from the cache.
    fresh = {p for p in again.used if p not in cache.used}
    assert sorted(p.parent.name for p in fresh) == ["align", "docs", "link"]
    assert again.misses == len(fresh) and again.hits == len(again.used) - len(fresh) > 0


def test_damaged_cache_entry_is_a_miss(write_edition, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_edition(corpus, "2031-02-01", "February 1, 2031")
    cache = BuildCache(tmp_path / "cache")
    first, _, _ = build_kb([corpus], run_examples_too=False, cache=cache)
    for entry in cache.used:
        entry.write_bytes(b"garbage")
    again = BuildCache(tmp_path / "cache")
    kb, _, _ = build_kb([corpus], run_examples_too=False, cache=again)
    _same(kb, first)
    assert again.misses > 0


def test_prune_keeps_what_the_build_used(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    cache.put("link", "kept", [1])
    (tmp_path / "cache" / "link" / "stale.pickle").write_bytes(b"x")
    assert cache.prune() == 1
    assert BuildCache(tmp_path / "cache").get("link", "kept") == [1]
