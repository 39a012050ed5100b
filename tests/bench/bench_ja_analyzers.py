"""Japanese analysers compared: dictionary load time and characters per second, janome vs Sudachi.

The Japanese seed (corpus/sources/ja-mtgwiki-yusenken.txt) is repeated up to ``--chars``
characters and fed paragraph by paragraph, as the index build feeds rule texts; then the same text
goes in as one string (the analyze_ja column) through :func:`kb.search.analysis.analyze_ja`, which cuts it under
SudachiPy's input limit. Each backend loads in a fresh process, so the load time is a cold one.
Run: ``python tests/bench/bench_ja_analyzers.py [--chars N]``. Target: the default analyser reads
a full Japanese CR (about 1.2 M characters) in under 2 s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from kb.base.paths import CORPUS_DIR

SEED = CORPUS_DIR / "sources" / "ja-mtgwiki-yusenken.txt"
FULL_CR_CHARS = 1_200_000


def paragraphs(chars: int) -> list[str]:
    """Paragraphs of the seed, repeated until they hold ``chars`` characters."""
    seed = [p.strip() for p in SEED.read_text(encoding="utf-8").split("\n") if p.strip()]
    out: list[str] = []
    total = 0
    while total < chars:
        for p in seed:
            out.append(p)
            total += len(p)
            if total >= chars:
                break
    return out


def measure(name: str, chars: int) -> dict[str, float]:
    """Load ``name``, then time it on the paragraphs and on the whole text (caches bypassed)."""
    from kb.search import analysis

    started = time.perf_counter()
    backend = analysis.ja_backend(name)
    load = time.perf_counter() - started
    backend("優先権")  # the first call may still map pages of the dictionary
    paras = paragraphs(chars)
    total = sum(len(p) for p in paras)
    started = time.perf_counter()
    for p in paras:
        backend(p)
    per_para = time.perf_counter() - started
    whole = "\n".join(paras)
    analysis._morphemes.cache_clear()
    started = time.perf_counter()
    spans = analysis.analyze_ja(whole, name)
    one_text = time.perf_counter() - started
    return {
        "load_s": load,
        "chars": total,
        "paragraphs": len(paras),
        "chars_per_s": total / per_para,
        "whole_chars_per_s": len(whole) / one_text,
        "whole_terms": len(spans),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, default=300_000, help="characters of text to analyse")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one backend
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.chars)))
        return 0
    print(f"text: the Japanese seed repeated to {args.chars:,} characters, paragraph by paragraph")
    print(f"{'analyser':10} {'load s':>7} {'chars/s':>11} {'analyze_ja':>11} {'full CR s':>9}")
    rates: dict[str, float] = {}
    for name in ("janome", "sudachi"):
        child = subprocess.run(
            [sys.executable, __file__, "--one", name, "--chars", str(args.chars)],
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            print(f"{name:10} unavailable: {child.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(child.stdout)
        rates[name] = r["chars_per_s"]
        print(
            f"{name:10} {r['load_s']:7.3f} {r['chars_per_s']:11,.0f} "
            f"{r['whole_chars_per_s']:11,.0f} {FULL_CR_CHARS / r['chars_per_s']:9.1f}"
        )
    if "janome" in rates and "sudachi" in rates:
        print(f"sudachi / janome: {rates['sudachi'] / rates['janome']:.1f}x")
    met = FULL_CR_CHARS / rates.get("sudachi", 1.0) < 2.0
    print("target (a full Japanese CR in under 2 s with sudachi):", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
