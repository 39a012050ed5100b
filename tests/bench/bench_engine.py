"""Engine speed: random legal playouts (actions per second) and the whole examples corpus.

Run ``python tests/bench/bench_engine.py``. Two figures: actions performed per second (the
engine applying actions) and actions per second including listing the legal actions before each
choice (what a playout or a user interface pays); the target is at least 20,000 for the second.
Choices come from a seeded random generator here, never inside the engine.
"""

from __future__ import annotations

import random
import sys
import time

from kb.engine import DEFAULT_EXAMPLES_DIR, Game, Step, default_pool, run_examples

DECK = [
    "Mountain", "Forest", "Island", "Swamp", "Lightning Bolt", "Shock", "Giant Growth",
    "Grizzly Bears", "Counterspell", "Llanowar Elves", "Soul Warden", "Divination",
    "Youthful Knight", "Typhoid Rats", "Dark Ritual", "Phyrexian Arena",
]  # fmt: skip


TARGET = 20_000  # actions/s including legal-action enumeration (issue 10)


def playout(seed: int, players: int, max_actions: int) -> tuple[int, float, float]:
    """One random game: (actions applied, seconds in perform, seconds choosing actions)."""
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
    return applied, perform_time, choose_time


def main() -> int:
    """Print the figures; exit 1 if the engine is under the target."""
    total = 0
    perform_time = choose_time = 0.0
    games = 0
    for seed in range(60):
        n, p, c = playout(seed, 2 + seed % 3, 2000)
        total += n
        perform_time += p
        choose_time += c
        games += 1
    rate = total / perform_time
    overall = total / (perform_time + choose_time)
    print(f"random playouts: {games} games, {total} actions")
    print(f"  actions performed: {rate:,.0f} actions/s")
    print(
        f"  actions including enumerating the legal ones: {overall:,.0f} actions/s "
        f"({overall / TARGET:.2f}x the target of {TARGET:,})"
    )
    t0 = time.perf_counter()
    results = run_examples([DEFAULT_EXAMPLES_DIR])
    elapsed = time.perf_counter() - t0
    failed = sum(not r.passed for r in results)
    print(f"examples corpus: {len(results)} examples in {elapsed * 1000:.0f} ms ({failed} failed)")
    return 0 if overall >= TARGET and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
