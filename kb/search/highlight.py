"""Snippets: the part of a text where the query's terms are densest, matches in ``<mark>``.

A term is marked where its index field's analyser finds it, so ``triggered`` is marked for the
query ``trigger`` and ``priorité`` for ``priorite``; everything else is HTML-escaped. The places
come from the build's stored offsets (``marks=``, :mod:`kb.search.snippets`) for a current text,
else from analysing the text here.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable
from html import escape

from kb.search import analysis, japanese
from kb.search.analysis import Span, normalize, normalize_mapped
from kb.search.stopwords import ELISION
from kb.text.normal import stem_en, stem_fr

#: Characters of context shown around the matches.
WIDTH = 220


def highlight(
    text: str,
    wanted: set[str],
    analyzers: list[Callable[[str], list[Span]]],
    width: int = WIDTH,
    marks: list[tuple[int, int]] | None = None,
) -> str:
    """An HTML snippet of ``text`` of about ``width`` characters, ``wanted`` terms marked.

    ``marks``: the spans of the wanted terms when the caller knows them already (offsets stored
    by the build, :mod:`kb.search.snippets`); the text is then not analysed.

    >>> from kb.search.analysis import analyze_en
    >>> highlight("If <x> triggers, it triggered.", {"trigger"}, [analyze_en], width=80)
    'If &lt;x&gt; <mark>triggers</mark>, it <mark>triggered</mark>.'
    """
    if not text:
        return ""
    spans: list[tuple[int, int]] = []
    if marks is not None:
        spans = marks
    elif wanted:
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
    if "&" in text or "<" in text or ">" in text:
        for s, e in spans:
            if e <= start or s >= end:
                continue
            s, e = max(s, start), min(e, end)
            out += (_escape(text[pos:s]), f"<mark>{_escape(text[s:e])}</mark>")
            pos = e
        out.append(_escape(text[pos:end]))
    else:  # most rule texts have nothing to escape: the pieces are copied as they are
        for s, e in spans:
            if e <= start or s >= end:
                continue
            if s < start:
                s = start
            if e > end:
                e = end
            out += (text[pos:s], "<mark>", text[s:e], "</mark>")  # one extend, not 4 appends
            pos = e
        out.append(text[pos:end])
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
        return _word_marker(lang, wanted, heads)
    keep = analysis._en_word  # the index's own English word filter
    seen: dict[str, str | None] = {}  # word -> its wanted stem, for the page's ten snippets

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
            word = m.group()
            term = seen.get(word, "")
            if term == "":
                kept = keep(word.replace("’", "'"))
                stem = stem_en(kept) if kept is not None else None
                term = seen[word] = stem if stem in wanted else None
            if term is not None:
                out.append((term, start, end))
        return out

    return analyze_en


def _escape(text: str) -> str:
    return escape(text, quote=False)


def _word_marker(lang: str, wanted: set[str], heads: set[str]) -> Callable[[str], list[Span]]:
    """:func:`kb.search.analysis.marker`'s word-by-word path (French, or English stems that
    are not all letters), each distinct word of the page's snippets judged once: a French text
    repeats its "de", "la" and "joueur", and judging one costs a pattern and two look-ups."""
    keep = analysis._en_word if lang == "en" else analysis._fr_word
    stem = stem_en if lang == "en" else stem_fr
    fold = analysis.fold_accents
    seen: dict[str, str | None] = {}  # word -> its wanted stem

    def judge(word: str) -> str | None:
        head = word[:3] if lang == "en" else fold(ELISION.sub("", word)[:3])
        if head not in heads:
            return None
        kept = keep(word)
        if kept is None:
            return None
        term = stem(kept)
        return term if term in wanted else None

    def analyze(text: str) -> list[Span]:
        out: list[Span] = []
        for word, start, end in analysis._latin_words(normalize(text)):
            term = seen.get(word, "")
            if term == "":
                term = seen[word] = judge(word)
            if term is not None:
                out.append((term, start, end))
        return out

    return analyze


def gram_marker(wanted: set[str]) -> Callable[[str], list[Span]]:
    """The spans :func:`kb.search.analysis.bigrams_ja` gives a text, for ``wanted`` grams only:
    each two-character gram wherever it is (both characters are Japanese, so it lies in a run),
    a one-character gram where it is a run by itself. Found with ``str.find`` rather than by
    making every bigram of the text, which is what a Japanese snippet cost most."""
    cjk = japanese._CJK  # the analyser's own Japanese characters
    grams = [g for g in wanted if 0 < len(g) <= 2 and all(cjk.match(c) for c in g)]
    pairs = [g for g in grams if len(g) == 2]
    singles = [g for g in grams if len(g) == 1]

    def analyze(text: str) -> list[Span]:
        norm = normalize(text).lower()
        out: list[Span] = []
        for gram in pairs:
            i = norm.find(gram)
            while i >= 0:
                out.append((gram, i, i + 2))
                i = norm.find(gram, i + 1)
        for gram in singles:
            i = norm.find(gram)
            while i >= 0:
                alone = (i == 0 or not cjk.match(norm[i - 1])) and (
                    i + 1 == len(norm) or not cjk.match(norm[i + 1])
                )
                if alone:
                    out.append((gram, i, i + 1))
                i = norm.find(gram, i + 1)
        return out

    return analyze


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
    # Back to the start of the word (at most half a width before the first mark), and on to
    # the end of the last one (at most 30 characters more): the last space before, the first
    # space after, each found by a search in C rather than a step per character.
    low = best_start - width // 2
    if start > 0 and start > low:
        found = _LAST_SPACE.search(text, max(low, 0), start)
        start = found.end() if found else max(low, 0)
    high = start + width + 30
    if end < len(text) and end < high:
        found = _SPACE.search(text, end, high)
        end = found.start() if found else min(high, len(text))
    return start, end


#: A white space (the end of a word) and the last one of a stretch (``\Z`` at its end).
_SPACE = re.compile(r"\s")
_LAST_SPACE = re.compile(r"\s(?=\S*\Z)")
