"""Two or more checkouts' servers under the same load, in turns: wrk rounds alternate between
them (A, B, B, A, A, B ...), so a machine whose load moves (it is shared) moves every server's
figures alike, which bench_load.py's one run per server, minutes apart, does not.

Usage::

    python tests/bench/bench_load_ab.py --instance DIR main=../kb-main branch=. [--rounds 6]

Each server is ``kb serve``'s (bench_load.KB_SERVER: gunicorn's arbiter, waitress in each of
2 workers, page cache off), started from its checkout, all kept running; each round gives each
server ``--duration`` seconds of wrk over distinct rule URLs (bench_load.rule_urls, every round
elsewhere in the list). Printed per round and as medians: requests/s, p99 and the server's CPU
per request; the CPU ratio is the figure that travels best.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_load as load

#: The page each server must answer before it is measured.
FIRST = "/en/rules/117.3b"


def main() -> int:
    """Run the rounds and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--instance", type=Path, required=True)
    ap.add_argument("servers", nargs="+", help="NAME=CHECKOUT, two or more")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--duration", type=int, default=8, help="seconds of wrk per server and round")
    ap.add_argument("--clients", type=int, default=32)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kb-load-ab-"))
    urls = load.rule_urls(args.instance)
    (work / "urls.txt").write_text("\n".join(urls) + "\n")
    offset = 0

    def script() -> Path:
        nonlocal offset
        path = work / f"from-{offset}.lua"
        path.write_text(load.WRK_SCRIPT % {"urls": work / "urls.txt", "offset": offset})
        offset = (offset + (args.duration + 3) * 2000) % len(urls)
        return path

    print(f"start: {load.load_line()}")
    servers: list[tuple[str, load.Server]] = []
    results: dict[str, list[tuple[float, float, float]]] = {}
    try:
        for spec in args.servers:
            name, _sep, source = spec.partition("=")
            servers.append(
                (
                    name,
                    load.Server(load.KB_SERVER, args.instance, 2, FIRST, Path(source).resolve()),
                )
            )
            results[name] = []
        for _name, server in servers:
            load.wrk(server.base, script(), 4, args.clients)  # warm-up: every worker renders
        for r in range(args.rounds):
            for name, server in servers if r % 2 == 0 else servers[::-1]:
                cpu = server.cpu_s()
                rps, p99, count, bad = load.wrk(server.base, script(), args.duration, args.clients)
                cpu_ms = (server.cpu_s() - cpu) * 1000 / max(1, count)
                results[name].append((rps, p99, cpu_ms))
                print(
                    f"  round {r} {name:<8} {rps:6.0f} req/s, p99 {p99:6.1f} ms, "
                    f"CPU {cpu_ms:.2f} ms/request, {bad} not 2xx ({load.load_line()})"
                )
    finally:
        for _name, server in servers:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    first = next(iter(results))
    base_cpu = statistics.median(r[2] for r in results[first])
    print("medians over the rounds:")
    for name, rows in results.items():
        cpu = statistics.median(r[2] for r in rows)
        print(
            f"  {name:<8} {statistics.median(r[0] for r in rows):6.0f} req/s, "
            f"p99 {statistics.median(r[1] for r in rows):6.1f} ms, CPU {cpu:.2f} ms/request "
            f"({cpu / base_cpu:.2f}x {first})"
        )
    print(f"end: {load.load_line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
