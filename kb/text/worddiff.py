"""Word diffs of two versions of a rule's text, as HTML a reader can follow: what was removed
in ``<del>``, what was added in ``<ins>``, the rest as it was (the rule pages' history and the
comparison of two editions; :mod:`kb.history.diffs` stores those of the history at build time)."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

from markupsafe import Markup, escape

_TOKEN = re.compile(r"\s+|\d+(?:\.\d+)*[a-z]?|[A-Za-zÀ-ÖØ-öø-ÿœŒ'’-]+|.", re.S)


def _words(text: str) -> list[tuple[str, str]]:
    """``text`` as ``(word, spaces after it)`` pairs (a leading space run as a pair with an
    empty word): the matcher compares the words only, and the spaces travel with them."""
    out: list[tuple[str, str]] = []
    for token in _TOKEN.findall(text):
        if token.isspace():
            if out:
                out[-1] = (out[-1][0], out[-1][1] + token)
            else:
                out.append(("", token))
        else:
            out.append((token, ""))
    return out


def shared_ends(a: Sequence[Any], b: Sequence[Any]) -> tuple[int, int]:
    """How many items two sequences share at their start, then at their end (not overlapping the
    start): set aside before matching, the matcher's cost growing with what it is given."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


@functools.lru_cache(maxsize=2048)
def word_diff(old: str, new: str) -> Markup:
    """A word-level diff as HTML: removed words in ``<del>``, added in ``<ins>``.

    Latin words are compared whole, the spaces after a word carried with it (so a phrase
    replaced reads as one deletion and one insertion, not words alternating around shared
    spaces); Japanese, which has no spaces, is compared per character. Both texts rebuild
    exactly from the result (the text outside ``<ins>``, or outside ``<del>``). The words the
    two texts share at both ends are set aside before matching: an edition's edit is usually a
    few words in a long rule, and the matcher's cost grows with the text it is given. Cached:
    the same two texts recur on the changes pages.
    """
    a, b = _words(old), _words(new)
    head, tail = shared_ends(a, b)
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    # (kind, text): "" kept, "-" removed, "+" added
    parts: list[tuple[str, str]] = [("", "".join(w + s for w, s in a[:head]))]
    matcher = difflib.SequenceMatcher(
        None, [w for w, _ in a_mid], [w for w, _ in b_mid], autojunk=False
    )
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            parts.append(("-", "".join(w + s for w, s in a_mid[i1:i2])))
            parts.append(("+", "".join(w + s for w, s in b_mid[j1:j2])))
            continue
        for (word, space_a), (_, space_b) in zip(a_mid[i1:i2], b_mid[j1:j2], strict=True):
            parts.append(("", word))
            if space_a == space_b:
                parts.append(("", space_a))
            else:  # the same word, spaced otherwise
                parts += [("-", space_a), ("+", space_b)]
    parts.append(("", "".join(w + s for w, s in a[len(a) - tail :])))
    return Markup("".join(_html(parts)))


def _html(parts: list[tuple[str, str]]) -> Iterator[str]:
    """The diff's HTML: kept text as is, each run of changes as one ``<del>`` then one
    ``<ins>`` (what it removed, what it added)."""
    removed: list[str] = []
    added: list[str] = []

    def changes() -> Iterator[str]:
        gone, new = "".join(removed), "".join(added)
        removed.clear()
        added.clear()
        # the spaces both sides start or end with are kept: "<del>is</del><ins>has</ins> a"
        lead = trail = ""
        if gone and new:
            lead = _shared_spaces(gone, new)
            gone, new = gone[len(lead) :], new[len(lead) :]
            trail = _shared_spaces(gone[::-1], new[::-1])[::-1]
            gone, new = gone[: len(gone) - len(trail)], new[: len(new) - len(trail)]
        if lead:
            yield lead
        if gone:
            yield f"<del>{escape(gone)}</del>"
        if new:
            yield f"<ins>{escape(new)}</ins>"
        if trail:
            yield trail

    for kind, text in parts:
        if kind == "-":
            removed.append(text)
        elif kind == "+":
            added.append(text)
        elif text:
            yield from changes()
            yield str(escape(text))
    yield from changes()


def _shared_spaces(a: str, b: str) -> str:
    """The spaces that both texts start with."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n] and a[n].isspace():
        n += 1
    return a[:n]
