"""Search memory: what searching adds to a server process (issue 9: <= 200 MB RSS per process
after warm-up, searches included).

Run: ``python tests/bench/bench_search_memory.py --instance DIR`` (a built instance, e.g. the
archive build of ``bench_archive.py``). In one process, the web app (page cache off) serves a
few rule pages, then one search, then every query of the latency benchmark in turn from the
three locales. After each step it prints RSS, split into anonymous memory (this process's own)
and file-backed pages (mapped files: shared with every other process mapping them, and given
back by the kernel under pressure), with the ratio to the process before its first search, and
the mapped files holding the most. Exit status 1 when RSS after the searches is over 200 MB.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_search_latency as latency  # noqa: E402

LIMIT_MB = 200


def memory() -> tuple[float, float, float]:
    """RSS, anonymous and file-backed resident memory of this process, in MB."""
    status = Path("/proc/self/status").read_text()

    def field(name: str) -> float:
        found = re.search(rf"^{name}:\s+(\d+) kB", status, re.M)
        return int(found.group(1)) / 1024 if found else 0.0

    return field("VmRSS"), field("RssAnon"), field("RssFile")


def mapped_files(top: int = 4) -> list[tuple[float, str]]:
    """The mapped files (or anonymous areas) with the most resident memory, in MB."""
    where: Counter[str] = Counter()
    name = "[anon]"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        parts = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            name = parts[5] if len(parts) > 5 else "[anon]"
        elif parts and parts[0] == "Rss:":
            where[name] += int(parts[1])
    return [(kb / 1024, name) for name, kb in where.most_common(top)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--instance", type=Path, required=True, help="a built kb instance")
    args = ap.parse_args()
    if not Path("/proc/self/status").exists():
        print("skipped: needs /proc (Linux)")
        return 0
    from kb.web import create_app

    app = create_app({"INSTANCE": str(args.instance), "PAGE_CACHE": False})
    client = app.test_client()
    for url in ("/en/rules/117.3b", "/fr/rules/117.3b", "/ja/rules/117.3b", "/en/glossary/"):
        client.get(url)
    before = memory()

    def report(label: str) -> float:
        rss, anon, file = memory()
        print(
            f"{label:<32} RSS {rss:6.0f} MB ({rss / before[0]:.2f}x), anonymous {anon:4.0f} MB "
            f"({anon / before[1]:.2f}x), file-backed {file:4.0f} MB"
        )
        return rss

    report("before the first search")
    started = time.perf_counter()
    status = client.get("/en/search", query_string={"q": "priority"}).status_code
    report(f"first search ({(time.perf_counter() - started) * 1000:.0f} ms, {status})")
    queries = latency.queries()
    bad = 0
    for i, q in enumerate(queries):
        locale = ("en", "fr", "ja")[i % 3]
        bad += client.get(f"/{locale}/search", query_string={"q": q}).status_code != 200
    rss = report(f"after {len(queries)} searches")
    for mb, name in mapped_files():
        print(f"  {mb:6.1f} MB {name}")
    print(f"{bad} searches not answered 200; target RSS <= {LIMIT_MB} MB:", end=" ")
    print("met" if rss <= LIMIT_MB and not bad else "NOT met")
    return 0 if rss <= LIMIT_MB and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
