"""Bounded caches of shared, read-only data kept on a loaded knowledge base: one place for the
"is this knowledge base read-only?" test and the first-in-first-out bound, which pages, lookups
and the store each wrote for themselves."""

from __future__ import annotations

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
    without a lock, and one that loses a race to evict just stops evicting)."""
    while len(cache) >= most:
        try:
            del cache[next(iter(cache))]
        except (KeyError, RuntimeError, StopIteration):  # another thread got there first
            break
    cache[key] = value
