"""Bounded caches of shared, read-only data kept on a loaded knowledge base: one place for the
"is this knowledge base read-only?" test and the first-in-first-out bound, which pages, lookups
and the store each wrote for themselves."""

from __future__ import annotations

from itertools import islice
from typing import Any

__all__ = ["MISSING", "keep", "shared_cache"]

#: What ``cache.get(key, MISSING)`` answers for a key not kept (None is a value worth keeping).
MISSING: Any = object()


def shared_cache(kb: Any, name: str) -> dict[Any, Any] | None:
    """The cache called ``name`` of a loaded (read-only, stored) knowledge base, made on first
    use; None for a knowledge base in memory, which may still change and so keeps nothing."""
    if "_editions_of" not in kb.__dict__:
        return None
    cache = kb.__dict__.get(name)
    if cache is None:
        cache = kb.__dict__.setdefault(name, {})
    return cache  # type: ignore[no-any-return]


def keep(cache: dict[Any, Any], key: Any, value: Any, most: int) -> None:
    """Keep a value, the oldest entries out first past ``most`` (a plain dict: threads read it
    without a lock, and one that loses a race to evict just stops evicting).

    The oldest sixty-fourth goes at once: a dict's first key is found by skipping the slots of
    the keys deleted before it, so taking them out one by one cost a walk over thousands of
    slots per value kept once full (2.1 us per value at 4,096 entries, 4.0 at 8,192: a few of
    the decoded rules and terms of every rule page; now about 0.2). Batches stay small (64 of
    4,096 decoded rules), so the request that evicts them does not pay for freeing hundreds."""
    if len(cache) >= most:
        try:
            oldest = list(islice(cache, max(1, most // 64)))
        except RuntimeError:  # another thread changed it meanwhile: it evicts
            oldest = []
        for old in oldest:
            cache.pop(old, None)
    cache[key] = value
