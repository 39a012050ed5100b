"""Time and peak memory of adding the cards to a build: read the card file, compute the rules every
card uses and build the name index.

    python tests/bench/bench_cards.py [CARD_FILE] [CR_TEXT]

Prints each step's wall time and the process's peak resident set size after it, then the total
wall and CPU time (the targets: at most 15 s and 600 MB for all) and the load average, as wall
time on a shared machine depends on what else runs. Defaults: the shared AtomicCards file and the 2025-11-14 rules text
in ../shared/corpus-raw. Run it in a fresh process: the peak is the process's own.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

from kb.cards.names import NameIndex
from kb.cards.rules_used import rules_used
from kb.sources.cards import read_cards

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests.*
from tests.cards.conftest import rule_index_of

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw"
CARDS = SHARED / "cards" / "AtomicCards-2022-04-25.json.xz"
RULES = SHARED / "cr-en" / "MagicCompRules-2025-11-14.txt"


def peak_mb() -> float:
    """The peak resident set size of this process so far, in MB (Linux reports KiB)."""
    scale = 1024 if sys.platform != "darwin" else 1
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6


def main(argv: list[str]) -> int:
    cards_path = Path(argv[0]) if argv else CARDS
    rules_path = Path(argv[1]) if len(argv) > 1 else RULES
    for path in (cards_path, rules_path):
        if not path.exists():
            print(f"not found: {path}", file=sys.stderr)
            return 2
    print(f"start: peak RSS {peak_mb():.0f} MB")
    total = time.perf_counter()
    cpu_start = time.process_time()

    start, cpu = time.perf_counter(), time.process_time()
    result = read_cards(cards_path)
    faces = sum(len(card.faces) for card in result.cards)
    print(
        f"read {len(result.cards)} cards, {faces} faces, {len(result.problems)} problems "
        f"({result.format}, {result.compression}): {time.perf_counter() - start:.2f} s "
        f"({time.process_time() - cpu:.2f} s CPU), "
        f"peak RSS {peak_mb():.0f} MB"
    )

    start, cpu = time.perf_counter(), time.process_time()
    index = rule_index_of(rules_path)
    links = {card.name: rules_used(card, index) for card in result.cards}
    count = sum(len(v) for v in links.values())
    print(
        f"rules used: {count} links ({count / len(links):.1f} a card): "
        f"{time.perf_counter() - start:.2f} s ({time.process_time() - cpu:.2f} s CPU), "
        f"peak RSS {peak_mb():.0f} MB"
    )

    start, cpu = time.perf_counter(), time.process_time()
    names = NameIndex(result.cards)
    print(
        f"name index: {len(names.entries)} names: {time.perf_counter() - start:.2f} s "
        f"({time.process_time() - cpu:.2f} s CPU), "
        f"peak RSS {peak_mb():.0f} MB"
    )

    elapsed = time.perf_counter() - total
    cpu = time.process_time() - cpu_start
    peak = peak_mb()
    verdict = "within" if elapsed <= 15 and peak <= 600 else "OVER"
    print(
        f"total {elapsed:.2f} s wall, {cpu:.2f} s CPU, peak RSS {peak:.0f} MB "
        f"({verdict} the 15 s / 600 MB target; os.getloadavg() {os.getloadavg()[0]:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
