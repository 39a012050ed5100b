"""Engine speed: random legal playouts (actions per second) and the whole examples corpus.

Run ``python tests/bench/bench_engine.py [--reference DIR]``. Two figures: actions performed per
second (the engine applying actions) and actions per second including listing the legal actions
before each choice (what a playout or a user interface pays: list the legal actions, pick one,
perform it); the target is at least 20,000 for the second. Choices come from a seeded random
generator here, never inside the engine.

``--reference DIR`` names another checkout (a ``git worktree`` of main, say): its engine plays
the same seeded games in the same run, in alternating chunks so both see the same machine load,
and every figure is reported with its ratio to it. Each game's trace is hashed outside the timed
part, so the report also says whether both engines played the very same games.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

DECK = [
    "Mountain", "Forest", "Island", "Swamp", "Lightning Bolt", "Shock", "Giant Growth",
    "Grizzly Bears", "Counterspell", "Llanowar Elves", "Soul Warden", "Divination",
    "Youthful Knight", "Typhoid Rats", "Dark Ritual", "Phyrexian Arena",
]  # fmt: skip

TARGET = 20_000  # actions/s including legal-action enumeration (issue 10)
SEEDS = 60  # games; seed s has 2 + s % 3 players
MAX_ACTIONS = 2000  # per game
CHUNK = 10  # games per alternating chunk when a reference runs in the same run


def playout(seed: int, players: int, max_actions: int) -> tuple[int, float, float, str]:
    """One random game: (actions applied, seconds in perform, seconds listing and choosing
    actions, a digest of its trace)."""
    from kb.engine import Game, Step, default_pool

    rng = random.Random(seed)
    game = Game(["Alice", "Bob", "Carol", "Dave"][:players], default_pool())
    for p in game.players:
        game.put(p.name, "battlefield", ["Mountain", "Forest", "Island", "Swamp"])
        game.put(p.name, "hand", rng.choices(DECK, k=7))
        game.put(p.name, "library", rng.choices(DECK, k=40))
    game.start("Alice", Step.UPKEEP, 2)
    applied = 0
    perform_time = choose_time = 0.0
    while applied < max_actions and not game.game_over:
        t0 = time.perf_counter()
        actions = game.legal_actions()
        # Passing most of the time lets turns go by, as in real games.
        action = actions[0] if rng.random() < 0.6 else rng.choice(actions)
        t1 = time.perf_counter()
        game.perform(action)
        t2 = time.perf_counter()
        choose_time += t1 - t0
        perform_time += t2 - t1
        applied += 1
    digest = hashlib.sha256(game.trace_text().encode()).hexdigest()[:16]
    return applied, perform_time, choose_time, digest


def run_seeds(seeds: range) -> list[tuple[int, float, float, str]]:
    """Play the games of these seeds with the engine importable here."""
    return [playout(seed, 2 + seed % 3, MAX_ACTIONS) for seed in seeds]


def run_reference(reference: Path, seeds: range) -> list[tuple[int, float, float, str]]:
    """Play the games of these seeds with the engine of another checkout, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(reference))
    out = subprocess.run(
        [sys.executable, __file__, "--worker", f"{seeds.start}:{seeds.stop}"],
        env=env,
        cwd=reference,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"the reference engine in {reference} failed:\n{out.stderr}")
    data = json.loads(out.stdout)
    if not Path(data["engine"]).resolve().is_relative_to(reference):
        raise SystemExit(
            f"the reference run imported {data['engine']}, not the engine in {reference}"
        )
    return [tuple(row) for row in data["games"]]


def rates(rows: list[tuple[int, float, float, str]]) -> tuple[int, float, float]:
    """(actions, actions performed per second, actions per second including listing them)."""
    total = sum(r[0] for r in rows)
    perform = sum(r[1] for r in rows)
    choose = sum(r[2] for r in rows)
    return total, total / perform, total / (perform + choose)


def examples_time() -> tuple[int, int, float]:
    """(examples, failed, seconds) for the whole examples corpus."""
    from kb.engine import DEFAULT_EXAMPLES_DIR, run_examples

    t0 = time.perf_counter()
    results = run_examples([DEFAULT_EXAMPLES_DIR])
    return len(results), sum(not r.passed for r in results), time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    """Print the figures; exit 1 if the engine is under the target or an example fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, help="a checkout whose engine to compare with")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        start, stop = (int(x) for x in args.worker.split(":"))
        import kb.engine

        json.dump(
            {"engine": kb.engine.__file__, "games": run_seeds(range(start, stop))}, sys.stdout
        )
        return 0
    if args.reference is not None and not (args.reference / "kb" / "engine").is_dir():
        parser.error(f"{args.reference} is not a checkout of kb (no kb/engine there)")
    mine: list[tuple[int, float, float, str]] = []
    ref: list[tuple[int, float, float, str]] = []
    for start in range(0, SEEDS, CHUNK):
        seeds = range(start, min(start + CHUNK, SEEDS))
        if args.reference is not None:
            ref += run_reference(args.reference.resolve(), seeds)
        mine += run_seeds(seeds)
    total, rate, overall = rates(mine)
    print(f"random playouts: {len(mine)} games, {total} actions")
    if args.reference is None:
        print(f"  actions performed: {rate:,.0f} actions/s")
        print(f"  actions including enumerating the legal ones: {overall:,.0f} actions/s")
    else:
        ref_total, ref_rate, ref_overall = rates(ref)
        same = sum(a[0] == b[0] and a[3] == b[3] for a, b in zip(mine, ref, strict=True))
        print(f"  reference {args.reference}: {ref_total} actions")
        print(f"  same games as the reference (trace digests): {same} of {len(mine)}")
        print(
            f"  actions performed: {rate:,.0f} actions/s "
            f"(reference {ref_rate:,.0f}: {rate / ref_rate:.2f}x)"
        )
        print(
            f"  actions including enumerating the legal ones: {overall:,.0f} actions/s "
            f"(reference {ref_overall:,.0f}: {overall / ref_overall:.2f}x)"
        )
    print(f"  target: {TARGET:,} including enumeration ({overall / TARGET:.2f}x the target)")
    count, failed, seconds = examples_time()
    print(f"examples corpus: {count} examples in {seconds * 1000:.0f} ms ({failed} failed)")
    return 0 if overall >= TARGET and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
