"""10,000 seeded fuzzed requests to the playground: no 500, no traceback, the envelope always.

Usage::

    python tests/bench/bench_play_fuzz.py [--count 10000] [--seed 27]

The requests are those of tests/web/test_play_fuzz.py (scenarios built from every statement of
the example language with every kind of bad argument, bodies of every bad shape: not JSON, deep,
a megabyte, bad UTF-8, wrong types; damaged permalinks; the page's form), sent in-process to the
app over the hand-made knowledge base of the web tests, each run in the playground's worker
processes as the server runs them. Prints what the answers were and the slowest; exit status 1
on the first request that breaks the rule.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    from kb.web import create_app
    from tests.web.conftest import sample_kb
    from tests.web.test_play_fuzz import check

    app = create_app({"INSTANCE": Path(tempfile.mkdtemp()), "KB": sample_kb(), "TESTING": True})
    client = app.test_client()
    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    started = time.perf_counter()
    slowest = 0.0
    try:
        for i in range(args.count):
            t = time.perf_counter()
            try:
                check(client, rng, outcomes)
            except AssertionError as err:
                print(f"request {i + 1} (seed {args.seed}) broke the rule: {err}")
                return 1
            slowest = max(slowest, time.perf_counter() - t)
            if (i + 1) % 1000 == 0:
                print(f"  {i + 1} requests, {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        app.extensions["kb.play"].close()
    print(
        f"{args.count} fuzzed requests (seed {args.seed}) in {time.perf_counter() - started:.0f} s:"
        f" no 500, no traceback; slowest {slowest * 1000:.0f} ms"
    )
    for outcome, n in sorted(outcomes.items(), key=lambda kv: -kv[1]):
        print(f"  {outcome:>12}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
