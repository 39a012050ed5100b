"""Card pages against rule pages, in-process and in one run: CPU per uncached page, p50 and p99.

Run: ``python tests/bench/bench_card_pages.py --instance DIR [--pages 600]`` on an instance built
with ``--cards``. The sibling of :mod:`bench_page_cpu` (same app as a worker makes it, page
cache off, ready WSGI environs): the rule pages are every current rule in en, fr and ja, the card
pages the most played cards in en, fr and ja, each URL asked once, the two kinds alternating
page by page so that the machine's load falls on both alike. Target: card pages cost no more
CPU per page than rule pages (ratio <= 1.0 at p50 and p99), so they hold the rule pages'
throughput and p99 of ``bench_load.py``.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

LOCALES = ("en", "fr", "ja")


def urls_of(instance: Path, pages: int) -> tuple[list[str], list[str]]:
    """Rule page URLs and card page URLs (``pages`` of each, shuffled)."""
    db = sqlite3.connect(f"file:{instance / 'current' / 'kb.sqlite'}?mode=ro", uri=True)
    edition = db.execute(
        "SELECT id FROM editions WHERE lang='en' AND kind='full' ORDER BY date DESC LIMIT 1"
    ).fetchone()[0]
    numbers = [r[0] for r in db.execute("SELECT number FROM rules WHERE edition=?", (edition,))]
    slugs = [
        r[0]
        for r in db.execute(
            "SELECT slug FROM cards ORDER BY coalesce(rank, 10000000) LIMIT ?", (pages,)
        )
    ]
    rng = random.Random(7)
    rules = [f"/{loc}/rules/{n}" for n in numbers for loc in LOCALES]
    cards = [f"/{loc}/cards/{s}" for s in slugs for loc in LOCALES]
    rng.shuffle(rules)
    rng.shuffle(cards)
    return rules[:pages], cards[:pages]


def main() -> int:
    """Measure both kinds and print CPU per page, p50/p99 and the ratios."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--instance", type=Path, required=True)
    ap.add_argument("--pages", type=int, default=600, help="pages measured of each kind")
    args = ap.parse_args()

    from bench_page_cpu import environs, run

    from kb.web.serving import _make_app

    rules, cards = urls_of(args.instance, args.pages + 50)
    app = _make_app(args.instance, page_cache=False)
    run(app, environs(rules[:50] + cards[:50]))  # warm-up (templates, connections)
    times: dict[str, list[float]] = {"rule": [], "card": []}
    for rule_env, card_env in zip(environs(rules[50:]), environs(cards[50:]), strict=False):
        for kind, environ in (("rule", rule_env), ("card", card_env)):
            t = time.process_time()
            run(app, [environ])
            times[kind].append((time.process_time() - t) * 1000)
    out = {}
    for kind, values in times.items():
        values.sort()
        p50, p99 = values[len(values) // 2], values[int(len(values) * 0.99)]
        mean = sum(values) / len(values)
        out[kind] = (p50, p99)
        print(f"{kind} pages: {len(values)}, CPU mean {mean:.2f} p50 {p50:.2f} p99 {p99:.2f} ms")
    r50, r99 = (out["card"][i] / out["rule"][i] for i in (0, 1))
    print(f"card/rule CPU ratio: p50 {r50:.2f}, p99 {r99:.2f} (target <= 1.0)")
    return 0 if r50 <= 1.0 and r99 <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
