"""Rule pages under load while the playground is flooded: p99 alone against p99 with 8 clients
running the heaviest scenario in a loop. Target: with the runners, p99 <= 2x p99 alone.

Usage::

    python tests/bench/bench_play_load.py --instance DIR [--duration 15] [--clients 32]
        [--runners 8] [--rounds 2] [--no-backoff]

The server and the page load are bench_load.py's: ``kb serve``'s server (2 gunicorn workers,
waitress in each, page cache off) and wrk over distinct rule pages of nine editions in three
languages, ``--clients`` connections. The runners are ``--runners`` threads here, each posting
the heaviest scenario (one that runs until the 200 ms CPU limit stops it) to ``/api/run`` again
as soon as it has its answer; a 429 makes a runner wait what Retry-After says, as a client
should (``--no-backoff``: it posts again at once, as a hostile one would). Phases alternate,
alone then with the runners, ``--rounds`` times, so that the shared machine's load hits both
alike; each phase's p99 is printed and the medians are compared.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import KB_SERVER, WRK_SCRIPT, Server, load_line, rule_urls, wrk

#: The heaviest scenario: hundreds of turns over libraries of a thousand cards, far more than
#: 200 ms of CPU, so every run costs the full budget before the limit stops it.
HEAVY = "players: Alice, Bob\nAlice has: library 1000\nBob has: library 1000\n" + (
    "advance to Bob upkeep\nadvance to Alice upkeep\n" * 400
)


class Runners:
    """Threads posting the heaviest scenario in a loop; counts answers and run latencies."""

    def __init__(self, port: int, count: int, backoff: bool) -> None:
        self.port, self.backoff = port, backoff
        self.stop = threading.Event()
        self.statuses: Counter[str] = Counter()
        self.latencies: list[float] = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(count)]

    def __enter__(self) -> Runners:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=30)

    def _loop(self) -> None:
        body = json.dumps({"scenario": HEAVY, "locale": "en"})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                conn.request("POST", "/api/run", body, {"Content-Type": "application/json"})
                response = conn.getresponse()
                data = response.read()
            except OSError:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                with self.lock:
                    self.statuses["connection error"] += 1
                continue
            elapsed = time.perf_counter() - started
            key = str(response.status)
            if response.status == 200:
                key += " " + json.loads(data).get("outcome", "?")
            with self.lock:
                self.statuses[key] += 1
                if response.status == 200:
                    self.latencies.append(elapsed)
            if response.status == 429 and self.backoff:
                self.stop.wait(float(response.getheader("Retry-After") or 1))
        conn.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--instance", type=Path, required=True, help="a built instance")
    ap.add_argument("--duration", type=int, default=15, help="seconds of wrk per phase")
    ap.add_argument("--clients", type=int, default=32, help="wrk connections (default 32)")
    ap.add_argument("--runners", type=int, default=8, help="clients running scenarios")
    ap.add_argument("--rounds", type=int, default=2, help="alone/with-runners pairs")
    ap.add_argument("--workers", type=int, default=2, help="server worker processes")
    ap.add_argument("--no-backoff", action="store_true", help="runners ignore Retry-After")
    args = ap.parse_args()
    print(f"start: {load_line()}")
    urls = rule_urls(args.instance)
    work = Path(tempfile.mkdtemp(prefix="kb-play-load-"))
    (work / "urls.txt").write_text("\n".join(urls) + "\n")
    offset, needed = 0, (args.duration + 5) * 2000

    def script() -> Path:
        nonlocal offset
        path = work / f"wrk-{offset}.lua"
        path.write_text(WRK_SCRIPT % {"urls": work / "urls.txt", "offset": offset})
        offset = (offset + needed) % len(urls)
        return path

    server = Server(KB_SERVER, args.instance, args.workers, "/en/rules/117.3b")
    alone: list[float] = []
    loaded: list[float] = []
    try:
        wrk(server.base, script(), 5, args.clients)  # warm-up: every worker renders
        with Runners(server.port, 2, True):  # every worker starts its playground process
            time.sleep(3)
        for round_ in range(1, args.rounds + 1):
            rps, p99, count, bad = wrk(server.base, script(), args.duration, args.clients)
            alone.append(p99)
            print(f"  round {round_} alone:        {rps:6.0f} req/s, p99 {p99:6.1f} ms, "
                  f"{count} requests, {bad} not 2xx; {load_line()}")  # fmt: skip
            with Runners(server.port, args.runners, not args.no_backoff) as runners:
                time.sleep(1)
                rps, p99, count, bad = wrk(server.base, script(), args.duration, args.clients)
            loaded.append(p99)
            lat = sorted(runners.latencies)
            median_run = statistics.median(lat) * 1000 if lat else float("nan")
            print(f"  round {round_} with {args.runners} runners: {rps:6.0f} req/s, p99 "
                  f"{p99:6.1f} ms, {count} requests, {bad} not 2xx; runs: "
                  f"{dict(runners.statuses)}, median run {median_run:.0f} ms; {load_line()}")  # fmt: skip
    finally:
        server.stop()
    ratio = statistics.median(loaded) / statistics.median(alone)
    ok = ratio <= 2.0
    print(
        f"\nsummary\n  {'ok' if ok else 'MISSED':<6} rule pages p99 with {args.runners} runners "
        f"{'(no backoff) ' if args.no_backoff else ''}/ alone: median "
        f"{statistics.median(loaded):.1f} / {statistics.median(alone):.1f} ms = {ratio:.2f}x "
        f"(target <= 2x)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
