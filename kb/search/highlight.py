"""Snippets: the part of a text where the query's terms are densest, matches in ``<mark>``.

The text is analysed with the same analyser as its index field, so ``triggered`` is marked for the
query ``trigger`` and ``priorité`` for ``priorite``; everything else is HTML-escaped.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable
from html import escape

from kb.search import analysis
from kb.search.analysis import Span, normalize, normalize_mapped
from kb.text import stem_en

#: Characters of context shown around the matches.
WIDTH = 220


def highlight(
    text: str,
    wanted: set[str],
    analyzers: list[Callable[[str], list[Span]]],
    width: int = WIDTH,
) -> str:
    """An HTML snippet of ``text`` of about ``width`` characters, ``wanted`` terms marked.

    >>> from kb.search.analysis import analyze_en
    >>> highlight("If <x> triggers, it triggered.", {"trigger"}, [analyze_en], width=80)
    'If &lt;x&gt; <mark>triggers</mark>, it <mark>triggered</mark>.'
    """
    if not text:
        return ""
    spans: list[tuple[int, int]] = []
    if wanted:
        if unicodedata.is_normalized("NFKC", text):  # most texts: offsets are the same
            for analyze in analyzers:
                spans.extend((start, end) for term, start, end in analyze(text) if term in wanted)
        else:
            norm, offsets = normalize_mapped(text)
            for analyze in analyzers:
                for term, start, end in analyze(norm):
                    if term in wanted:
                        spans.append((offsets[start], offsets[end - 1] + 1))
    spans = _merge(sorted(spans))
    start, end = _window(text, spans, width)
    out: list[str] = ["…" if start > 0 else ""]
    pos = start
    for s, e in spans:
        if e <= start or s >= end:
            continue
        s, e = max(s, start), min(e, end)
        out.append(escape(text[pos:s], quote=False))
        out.append(f"<mark>{escape(text[s:e], quote=False)}</mark>")
        pos = e
    out.append(escape(text[pos:end], quote=False))
    if end < len(text):
        out.append("…")
    return "".join(out)


#: A word starting at a given place (nothing but a letter before it), apostrophes inside kept.
_WORD_AT = re.compile(r"(?<![^\W\d_])[^\W\d_]+(?:['’][^\W\d_]+)*")


def marker(lang: str, wanted: set[str]) -> Callable[[str], list[Span]]:
    """The analyser that finds ``wanted`` stems in a snippet's text (see
    :func:`kb.search.analysis.marker`, whose spans it returns).

    In English it compiles nothing per query: a pattern of the stems' first letters cost more
    to compile (0.3 ms) than the ten snippets of a page take to mark. Each first three letters
    are looked for with ``str.find`` in the lower-case text, and only the words starting there
    are stemmed."""
    heads = {w[:3] for w in wanted}
    if lang != "en" or not heads or not all(h.isalpha() for h in heads):
        return analysis.marker(lang, wanted)
    keep = analysis._en_word  # the index's own English word filter

    def analyze_en(text: str) -> list[Span]:
        norm = normalize(text)
        low = norm.lower()
        if len(low) != len(norm):  # a letter lower-cases to two: offsets would move
            return analysis.marker(lang, wanted)(text)
        starts: set[int] = set()
        for head in heads:
            i = low.find(head)
            while i >= 0:
                starts.add(i)
                i = low.find(head, i + 1)
        out: list[Span] = []
        end = 0
        for start in sorted(starts):
            if start < end:
                continue
            m = _WORD_AT.match(low, start)
            if m is None:  # inside a word
                continue
            end = m.end()
            kept = keep(m.group().replace("’", "'"))
            if kept is not None:
                term = stem_en(kept)
                if term in wanted:
                    out.append((term, start, end))
        return out

    return analyze_en


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _window(text: str, spans: list[tuple[int, int]], width: int) -> tuple[int, int]:
    """The window of ``width`` characters holding the most marks, widened to word boundaries."""
    if len(text) <= width:
        return 0, len(text)
    best_start, best_count = 0, -1
    starts = [s for s, _ in spans]
    for i, s in enumerate(starts):
        count = bisect_left(starts, s + width, i) - i
        if count > best_count:
            best_start, best_count = s, count
    start = max(0, best_start - width // 4) if best_count > 0 else 0
    end = min(len(text), start + width)
    start = max(0, end - width)
    while start > 0 and not text[start - 1].isspace() and best_start - start < width // 2:
        start -= 1
    while end < len(text) and not text[end].isspace() and end - start < width + 30:
        end += 1
    return start, end
