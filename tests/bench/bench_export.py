"""Export time and size: the current edition alone, and every edition held.

Builds two instances from ../shared/corpus-raw/cr-en (the newest edition alone; all of them) unless
given with --current / --all, exports each into a fresh folder, then exports again unchanged.
Each export time is reported with its ratio to the build time of the same instance (the reference:
both read the same knowledge base), and each size with its parts (HTML, JSON, search index).

With --archive INSTANCE (the whole archive, ~100 editions), one export of it, measured against
the targets of issue 28 (<= 5 min, <= 200,000 files, <= 2 GB, <= 1 GB peak RSS), then 5,000 URLs
the server answers (200 or a redirect), sampled from every locale, edition and spelling, asked
of the export as a host that reads ``_redirects`` serves it (tests/export_urls.py).
--compare-only OUT runs that comparison on an export already written.

    python tests/bench/bench_export.py [--current INSTANCE] [--all INSTANCE] [--jobs N]
    python tests/bench/bench_export.py --archive INSTANCE [--out DIR] [--urls 5000]
    python tests/bench/bench_export.py --archive INSTANCE --compare-only DIR
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


def cpu_seconds() -> float:
    """User and system CPU seconds of this process and its finished children (the workers,
    Pagefind): on a shared machine the wall time also counts what other work held the cores."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def peak_rss_mb() -> tuple[float, float]:
    """Peak RSS of this process and of its largest child (workers, Pagefind), in MB."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e3
    return own, children


def archive(instance: Path, out: Path | None, jobs: int | None, n_urls: int, only: bool) -> None:
    import random

    from kb.export.pages import Site
    from tests.export_urls import candidate_urls, compare

    with tempfile.TemporaryDirectory(prefix="kb-bench-archive-") as tmp:
        out = out or Path(tmp) / "site"
        if not only:
            shutil.rmtree(out, ignore_errors=True)
            started, cpu = time.perf_counter(), cpu_seconds()
            report = export(instance, out, jobs=jobs)
            seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
            own, child = peak_rss_mb()
            sizes = size_of(out)
            files = sum(1 for p in out.rglob("*") if p.is_file())
            lines = (out / "_redirects").read_text(encoding="utf-8").count("\n")
            print(
                f"[archive] {instance}: export {seconds:.0f} s wall (target 300), {cpu:.0f} s "
                f"CPU; {report.timings}"
            )
            print(
                f"  {files} files (target 200,000), {sum(sizes.values()):.0f} MB (target 2,000): "
                f"HTML {sizes['html']:.0f}, JSON {sizes['json']:.0f}, search "
                f"{sizes['search']:.0f}, other {sizes['other']:.0f} ({report.pages} pages, "
                f"{report.json} JSON, {report.redirects} redirect pages)"
            )
            print(f"  peak RSS {own:.0f} MB, largest child {child:.0f} MB (target 1,000)")
            print(f"  _redirects: {lines} lines (target 2,000)")
        site = Site(instance)
        urls = candidate_urls(site.kb, out)
        sample = random.Random(28).sample(urls, min(n_urls, len(urls)))
        started = time.perf_counter()
        answered, absent = compare(site, out, sample)
        print(
            f"  URLs: {len(sample)} sampled of {len(urls)}, {answered} answered by the server "
            f"(200 or a redirect), {answered - len(absent)} present in the export, "
            f"{len(absent)} absent ({time.perf_counter() - started:.0f} s)"
        )
        for url, status, final in absent[:20]:
            print(f"    {url}: server {status}, export {final}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--archive", type=Path, help="an instance with the whole archive")
    parser.add_argument("--out", type=Path, help="where --archive exports (default: a temp dir)")
    parser.add_argument("--urls", type=int, default=5000, help="server URLs compared")
    parser.add_argument("--compare-only", type=Path, metavar="DIR", help="an export to compare")
    parser.add_argument("--current", type=Path, help="an instance with the newest edition only")
    parser.add_argument("--all", type=Path, help="an instance with every edition")
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args()
    if args.archive:
        only = args.compare_only is not None
        archive(args.archive, args.compare_only or args.out, args.jobs, args.urls, only)
        return
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
