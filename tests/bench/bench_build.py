"""Benchmark: build and load time of the knowledge base, embedded corpus and all shared editions.

Run: ``python tests/bench/bench_build.py`` (the shared editions are read from ../shared/corpus-raw).
Target: the six shared editions build in under 10 s on the project's machine. The archive-scale
targets (every edition, incremental builds, start-up, serving) are in ``bench_archive.py``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from kb.build import build, load

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw" / "cr-en"


def measure(label: str, extra: list[Path], runs: int = 3) -> None:
    """Build from scratch ``runs`` times, then time opening ``kb.sqlite``; print the medians."""
    builds, loads, timings = [], [], {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            instance = Path(tmp) / "instance"
            t = time.perf_counter()
            report = build(instance, extra, force=True)
            builds.append(time.perf_counter() - t)
            timings = report.timings
            t = time.perf_counter()
            kb = load(instance)
            loads.append(time.perf_counter() - t)
            size = (instance / "kb.sqlite").stat().st_size
            index = sum(p.stat().st_size for p in (instance / "index").rglob("*") if p.is_file())
    parts = ", ".join(f"{k} {v:.2f}" for k, v in timings.items())
    print(
        f"{label}: build {statistics.median(builds):.2f} s (median of {runs}; {parts}), "
        f"open {statistics.median(loads) * 1000:.0f} ms, kb.sqlite {size / 1e6:.1f} MB, "
        f"index {index / 1e6:.1f} MB, editions {len(kb.editions)}, "
        f"rules {sum(len(t) for t in kb.rules.values())}"
    )


def main() -> int:
    """Print build/load figures for the embedded corpus and for all shared editions."""
    measure("embedded corpus", [])
    if SHARED.is_dir():
        measure("embedded + six shared editions", [SHARED])
    else:
        print(f"skipped the shared editions: {SHARED} not found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
