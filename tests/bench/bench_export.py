"""Export time and size: the current edition alone, and every edition held.

Builds two instances from ../shared/corpus-raw/cr-en (the newest edition alone; all of them) unless
given with --current / --all, exports each into a fresh folder, then exports again unchanged.
Each export time is reported with its ratio to the build time of the same instance (the reference:
both read the same knowledge base), and each size with its parts (HTML, JSON, search index).

    python tests/bench/bench_export.py [--current INSTANCE] [--all INSTANCE] [--jobs N]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from kb.build import build, read_build_info
from kb.export.runner import export

CR_EN = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw" / "cr-en"


def size_of(folder: Path) -> dict[str, float]:
    parts = {"html": 0, "json": 0, "search": 0, "other": 0}
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(folder).as_posix()
        kind = (
            "search"
            if rel.startswith("pagefind/")
            else "html"
            if rel.endswith(".html")
            else "json"
            if rel.endswith(".json")
            else "other"
        )
        parts[kind] += path.stat().st_size
    return {k: v / 1e6 for k, v in parts.items()}


def measure(label: str, instance: Path, jobs: int | None, work: Path) -> None:
    info = read_build_info(instance)
    built = float(info.get("seconds") or 0) or None
    out = work / f"site-{label}"
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    report = export(instance, out, jobs=jobs)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    again = export(instance, out, jobs=jobs)
    unchanged = time.perf_counter() - started
    sizes = size_of(out)
    total = sum(sizes.values())
    ratio = f" ({seconds / built:.1f}x its build, {built:.1f} s)" if built else ""
    editions = len(info.get("editions", []))
    print(f"[{label}] {instance} ({editions} editions)")
    print(f"  export {seconds:.1f} s{ratio}; timings {report.timings}")
    print(
        f"  {report.files} files, {total:.1f} MB: HTML {sizes['html']:.1f}, JSON "
        f"{sizes['json']:.1f}, search {sizes['search']:.1f}, other {sizes['other']:.1f} "
        f"({report.pages} pages, {report.json} JSON, {report.redirects} redirects)"
    )
    print(
        f"  unchanged re-export {unchanged:.2f} s ({unchanged / seconds:.3f}x), "
        f"{again.written} files written"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--current", type=Path, help="an instance with the newest edition only")
    parser.add_argument("--all", type=Path, help="an instance with every edition")
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-bench-export-") as tmp:
        work = Path(tmp)
        editions = sorted(CR_EN.glob("*.txt"))
        current = args.current
        if current is None:
            current = work / "current"
            build(current, editions[-1:])
        everything = args.all
        if everything is None:
            everything = work / "all"
            build(everything, editions)
        measure("current edition", current, args.jobs, work)
        measure("all editions", everything, args.jobs, work)


if __name__ == "__main__":
    main()
