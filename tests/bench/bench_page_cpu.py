"""CPU per uncached rule page, in-process: what a server worker spends on one page, without the
network, so that two versions of the code can be compared on a shared machine.

Run: ``python tests/bench/bench_page_cpu.py --instance DIR [--pages 3000] [--profile OUT]``.

The URLs are :func:`bench_load.rule_urls`'s (the wrk benchmark's: every rule of nine English
editions in en, fr and ja, shuffled), answered by the app as a worker makes it
(:func:`kb.web.serving._make_app`, page cache off) through its WSGI entry point with a ready
environ. Each page is a URL not asked before in the process; the search index, which a worker
opens in the background after its first page, is opened before measuring. Reported: CPU
milliseconds per page (user + system, of this process), the mean over the measured pages after
a warm-up. To compare
two checkouts, run it alternately with each on ``PYTHONPATH`` and compare the figures of one
session; ``--profile`` writes cProfile statistics of the measured pages.
"""

from __future__ import annotations

import argparse
import cProfile
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def environs(urls: list[str]) -> list[dict[str, Any]]:
    """A WSGI environ per URL, as a server hands it to the app (made before timing)."""
    from werkzeug.test import EnvironBuilder

    out = []
    for url in urls:
        builder = EnvironBuilder(path=url, base_url="http://127.0.0.1:8000/")
        try:
            out.append(builder.get_environ())
        finally:
            builder.close()
    return out


def run(app: Any, batch: list[dict[str, Any]]) -> int:
    """Answer every environ; the bytes written (a check that pages were made)."""
    size = 0

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        if not status.startswith(("200", "301", "302", "404")):
            raise RuntimeError(status)

    for environ in batch:
        body = app(dict(environ), start_response)
        try:
            size += sum(len(chunk) for chunk in body)
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()
    return size


def _split(items: list[Any], parts: int) -> list[list[Any]]:
    return [items[i::parts] for i in range(parts)]


def main() -> int:
    """Measure and print the CPU per page."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--instance", type=Path, required=True)
    ap.add_argument("--pages", type=int, default=3000, help="pages measured")
    ap.add_argument("--warmup", type=int, default=300, help="pages answered before measuring")
    ap.add_argument("--offset", type=int, default=0, help="where in the URL list to start")
    ap.add_argument("--profile", type=Path, help="write cProfile statistics here")
    ap.add_argument(
        "--threads", type=int, default=1, help="threads sharing the pages (a worker has 4)"
    )
    args = ap.parse_args()

    from bench_load import rule_urls

    import kb
    from kb.web.serving import _make_app

    urls = rule_urls(args.instance)
    start = args.offset % len(urls)
    urls = (urls[start:] + urls[:start])[: args.warmup + args.pages]
    warm, measured = environs(urls[: args.warmup]), environs(urls[args.warmup :])
    app = _make_app(args.instance, page_cache=False)
    run(app, warm)
    # The worker opens the search index in a thread after its first page (most of a second of
    # CPU): waited for here, or it would be counted in the first measured pages' CPU.
    pool = app.extensions["kb_search"]
    if pool.available:
        try:
            pool.get()
        except Exception as exc:  # a broken index: measured without it, as a worker runs
            print(f"search index not opened: {exc}", file=sys.stderr)
    profile = cProfile.Profile(time.process_time) if args.profile else None
    cpu = time.process_time()
    wall = time.perf_counter()
    if profile is not None:
        profile.enable()
    if args.threads > 1:
        with ThreadPoolExecutor(args.threads) as pool:
            size = sum(pool.map(run, [app] * args.threads, _split(measured, args.threads)))
    else:
        size = run(app, measured)
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    n = len(measured)
    print(
        f"{Path(kb.__file__).parents[1].name}: {n} pages, CPU {1000 * cpu / n:.3f} ms/page, "
        f"wall {1000 * wall / n:.3f} ms/page, {size / n / 1024:.1f} KiB/page"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
