"""Acceptance figures of the card-name resolver (kb.cards.names) on a full card file.

    python tests/bench/bench_card_names.py [CARD_FILE] [--typos N] [--seed S]

Prints: the index's build time; the share of English names that resolve exactly to their card
(top-1 and anywhere in the answer); the same for printed French and Japanese names; the share of
English names with one or two random typos (fixed seed) whose top-1 answer is their card; and
the time per lookup (median and 95th percentile) of each kind. Default file: the shared
AtomicCards file in ../shared/corpus-raw/cards.
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import time
from pathlib import Path

from kb.cards.names import NameIndex
from kb.sources.card_model import Card
from kb.sources.cards import read_cards

DEFAULT = (
    Path(__file__).resolve().parents[2].parent
    / "shared/corpus-raw/cards/AtomicCards-2022-04-25.json.xz"
)


def typo(name: str, edits: int, rng: random.Random) -> str:
    """``name`` with ``edits`` random letter edits (substitute, insert, delete, swap)."""
    chars = list(name)
    for _ in range(edits):
        letters = [i for i, c in enumerate(chars) if c.isalpha()]
        if not letters:
            break
        i = rng.choice(letters)
        kind = rng.choice(("sub", "ins", "del", "swap"))
        if kind == "sub":
            chars[i] = rng.choice([c for c in string.ascii_lowercase if c != chars[i].lower()])
        elif kind == "ins":
            chars.insert(i, rng.choice(string.ascii_lowercase))
        elif kind == "del" and len(letters) > 3:
            del chars[i]
        elif i + 1 < len(chars) and chars[i + 1].isalpha() and chars[i] != chars[i + 1]:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            chars[i] = rng.choice([c for c in string.ascii_lowercase if c != chars[i].lower()])
    return "".join(chars)


def _timed(index: NameIndex, query: str, times: list[float]) -> list[Card]:
    start = time.perf_counter()
    matches = index.resolve(query)
    times.append((time.perf_counter() - start) * 1000)
    return [m.card for m in matches]


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} = {100 * hits / max(total, 1):.2f}%"


def _ms(times: list[float]) -> str:
    times = sorted(times)
    p95 = times[int(0.95 * (len(times) - 1))] if times else 0.0
    return f"median {statistics.median(times):.3f} ms, p95 {p95:.3f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--typos", type=int, default=3000, help="typo'd names to try")
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args(argv)
    if not args.file.exists():
        print(f"card file not found: {args.file}", file=sys.stderr)
        return 2
    cards = read_cards(args.file).cards
    start = time.perf_counter()
    index = NameIndex(cards)
    print(
        f"index: {len(cards)} cards, {len(index.entries)} names, "
        f"built in {time.perf_counter() - start:.2f} s"
    )

    for lang in ("en", "fr", "ja"):
        times: list[float] = []
        top1 = anywhere = total = 0
        for card in cards:
            for name in card.names(lang):
                total += 1
                found = _timed(index, name, times)
                top1 += bool(found) and found[0] is card
                anywhere += any(c is card for c in found)
        print(
            f"{lang} exact names: top-1 {_rate(top1, total)}, in the answer "
            f"{_rate(anywhere, total)}; {_ms(times)}"
        )

    rng = random.Random(args.seed)
    names = [(card, card.name) for card in cards if len(card.name) >= 6]
    sample = rng.sample(names, min(args.typos, len(names)))
    for edits in (1, 2):
        times = []
        hits = 0
        for card, name in sample:
            found = _timed(index, typo(name, edits, rng), times)
            hits += bool(found) and found[0] is card
        print(
            f"en names with {edits} typo(s), seed {args.seed}: top-1 "
            f"{_rate(hits, len(sample))}; {_ms(times)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
