"""Word diffs of a built archive, as a reader meets them: the history's edits and how their
diffs read, by today's :func:`kb.text.worddiff.word_diff` and by the reference it replaced (spaces as
tokens of their own, which the matcher anchored on), on the same pairs of texts in one run.

Run: ``python tests/bench/bench_word_diff.py INSTANCE``. Reports, for the stored history:
entries with a word diff, those among them whose change the lineage calls unchanged (``same``
or ``moved``: typography only); and for each diff function over every pair of texts of an edit:
diffs that delete and re-insert the same word within one run of changes (pieces separated only
by spaces), diffs with three or more del/ins pairs in a row separated only by a space, the
number of runs of changes, whether both texts rebuild exactly, and CPU time (best of two).
"""

from __future__ import annotations

import difflib
import html
import itertools
import json
import re
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

from markupsafe import escape

from kb.text.worddiff import shared_ends, word_diff

_OLD_TOKEN = re.compile(r"\s+|\d+(?:\.\d+)*[a-z]?|[A-Za-zÀ-ÖØ-öø-ÿœŒ'’-]+|.", re.S)
_RUN = re.compile(r"(?:<(del|ins)>[^<]*</\1>\s*)+")
_PIECE = re.compile(r"<(del|ins)>([^<]*)</\1>")
_WORD = re.compile(r"[^\s<>]+")  # a word as the reader sees it: what spaces separate


def reference_diff(old: str, new: str) -> str:
    """The word diff before spaces travelled with words: every space run a token (the shared
    ends set aside before matching, as today)."""
    a, b = _OLD_TOKEN.findall(old), _OLD_TOKEN.findall(new)
    head, tail = shared_ends(a, b)
    out = [str(escape("".join(a[:head])))]
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    matcher = difflib.SequenceMatcher(None, a_mid, b_mid, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(str(escape("".join(a_mid[i1:i2]))))
            continue
        if i2 > i1:
            out.append(f"<del>{escape(''.join(a_mid[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{escape(''.join(b_mid[j1:j2]))}</ins>")
    out.append(str(escape("".join(a[len(a) - tail :]))))
    return "".join(out)


def pairs(db: Path) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """The texts of every edit of the stored history (previous entry, entry), and counts."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    change = {(e, n): c for e, n, c in conn.execute("SELECT edition, number, change FROM lineage")}
    texts = {
        (e, n): f"{t or ''} {x or ''}".strip()
        for e, n, t, x in conn.execute("SELECT edition, number, title, text FROM rules")
    }
    out, counts = [], {"entries": 0, "with a diff": 0, "diff where unchanged": 0}
    for (data,) in conn.execute("SELECT entries FROM history"):
        entries = json.loads(data)
        for prev, entry in itertools.pairwise(entries):
            counts["entries"] += 1
            key = (entry[0], entry[1])
            if entry[4] is not None:
                counts["with a diff"] += 1
                counts["diff where unchanged"] += change.get(key) in ("same", "moved")
            old, new = texts[(prev[0], prev[1])], texts[key]
            if change.get(key) == "edited" and old != new:
                out.append((old, new))
    return out, counts


def readability(diffs: list[str]) -> dict[str, int]:
    repeated = alternating = runs = 0
    for d in diffs:
        found = list(_RUN.finditer(d))
        runs += len(found)
        hit = False
        for run in found:
            pieces = _PIECE.findall(run.group(0))
            gone = {
                w for kind, t in pieces if kind == "del" for w in _WORD.findall(html.unescape(t))
            }
            added = {
                w for kind, t in pieces if kind == "ins" for w in _WORD.findall(html.unescape(t))
            }
            hit = hit or bool(gone & added)
        repeated += hit
        alternating += bool(re.search(r"(?:<del>[^<]*</del><ins>[^<]*</ins> ){3}", d))
    return {"repeated word": repeated, ">=3 alternating": alternating, "runs": runs}


def exact(diffs: list[str], texts: list[tuple[str, str]]) -> bool:
    def side(d: str, drop: str) -> str:
        return html.unescape(
            re.sub(r"</?(?:del|ins)>", "", re.sub(rf"<{drop}>.*?</{drop}>", "", d, flags=re.S))
        )

    return all(
        side(d, "ins") == a and side(d, "del") == b for d, (a, b) in zip(diffs, texts, strict=True)
    )


def timed(fn: Callable[[str, str], str], texts: list[tuple[str, str]]) -> tuple[float, list[str]]:
    start = time.process_time()
    out = [str(fn(a, b)) for a, b in texts]
    return time.process_time() - start, out


def main(instance: str) -> None:
    texts, counts = pairs(Path(instance) / "kb.sqlite")
    print(f"history: {counts}")
    print(f"edits compared: {len(texts)}")
    results: dict[str, list[float]] = {"reference": [], "word_diff": []}
    made: dict[str, list[str]] = {}
    for _ in range(2):  # alternate, best of two: the machine is shared
        for name, fn in (("reference", reference_diff), ("word_diff", word_diff.__wrapped__)):
            seconds, made[name] = timed(fn, texts)
            results[name].append(seconds)
    for name, diffs in made.items():
        print(
            f"{name:10} {readability(diffs)} exact={exact(diffs, texts)} cpu={min(results[name]):.2f}s"
        )
    print(
        f"cpu ratio word_diff/reference: {min(results['word_diff']) / min(results['reference']):.2f}"
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/bench/bench_word_diff.py INSTANCE (a built archive)")
    main(sys.argv[1])
