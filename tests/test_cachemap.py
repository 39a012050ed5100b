"""The bounded caches of shared data (:mod:`kb.base.cachemap`)."""

from __future__ import annotations

from kb.base.cachemap import keep


def test_keep_bounds_the_cache_and_drops_the_oldest_first() -> None:
    cache: dict[int, int] = {}
    for i in range(10_000):
        keep(cache, i, i * 2, 64)
        assert len(cache) <= 64
    # The newest are kept, the oldest gone, in the order they came.
    assert all(cache[i] == i * 2 for i in range(10_000 - 56, 10_000))
    assert not any(i in cache for i in range(10_000 - 64))
    assert list(cache) == sorted(cache)


def test_keep_replaces_a_value_and_keeps_tiny_caches_bounded() -> None:
    cache = {"a": 1}
    keep(cache, "a", 2, 8)
    assert cache == {"a": 2}
    for i in range(5):
        keep(cache, i, i, 1)
        assert cache == {i: i}
