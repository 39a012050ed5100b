"""Snippet spans stored at build time: where each term of a current document's text lies.

A hit's snippet marks the query's terms in the document's text. Analysing the text again at
every hit (stemming its words, or running the Japanese analyser) was a fifth of a search's
time, yet the build has already analysed it: :class:`SpanWriter` keeps the character offsets of
every term of the snippet fields (``body_en``, ``body_fr``, ``body_ja``, ``gram_ja``) of the
current documents, in the order of their term sequences in :mod:`kb.search.postings`.
:class:`SnippetSpans` then reads a hit's marks off the document's term sequence: the terms the
query wants, at their stored offsets. Older documents (a search in an edition), a heading's
title shown for its missing text, and an index without the file are analysed as before
(:func:`kb.search.highlight.highlight`).

A snippet's text is its document's body or the start of it: a subrule's body ends with its
inherited title, an example's with its game script. The offsets past the text are not used.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import unicodedata
from array import array
from collections.abc import Sequence
from itertools import compress, count
from operator import itemgetter
from pathlib import Path
from typing import Any

from kb.search.analysis import _MEMO, ANALYZERS, _latin_words, normalize, normalize_mapped
from kb.search.documents import HEAD_FILE

FILE = "spans.bin"
#: Format of :data:`FILE`, checked when it is opened (bumped when its meaning changes).
VERSION = 2
#: The fields a snippet's marks come from, by the document's language.
SNIPPET_FIELDS = {"en": ("body_en",), "fr": ("body_fr",), "ja": ("body_ja", "gram_ja")}
_FIELDS = frozenset(name for names in SNIPPET_FIELDS.values() for name in names)
#: A term outside the snippet's text (the title's part of ``gram_ja``).
_OUTSIDE = -1


class SpanWriter:
    """Collects the offsets of the snippet fields' terms during an index build."""

    def __init__(self) -> None:
        self._spans: dict[str, dict[int, bytes]] = {name: {} for name in _FIELDS}

    def add(
        self, num: int, doc: Any, name: str, value: str, toks: Sequence[str], starts: Sequence[int]
    ) -> None:
        """Record field ``name`` of document ``num`` (a :class:`kb.search.indexer.Doc`): its
        text ``value`` analysed as ``toks`` starting at ``starts`` (offsets in the NFKC text)."""
        if name not in _FIELDS or not doc.current or not toks:
            return
        if name == "gram_ja":
            # The bigrams are of the title and the body: offsets count from the body's start.
            shift = len(normalize(doc.title)) + 1
            flat = array("i")
            for tok, start in zip(toks, starts, strict=True):
                if start < shift:
                    flat.extend((_OUTSIDE, _OUTSIDE))
                else:
                    flat.extend((start - shift, start - shift + len(tok)))
        elif name == "body_ja":
            spans = _MEMO.get(("ja", value)) or ANALYZERS["ja"](value)
            if [t for t, _, _ in spans] != list(toks):
                return  # not the analysis the postings hold: the hit analyses its text
            flat = array("i", [x for _, start, end in spans for x in (start, end)])
        else:
            # A Latin term's end is its word's: the word the analyser found at its start.
            ends = {start: end for _, start, end in _latin_words(normalize(value))}
            flat = array("i")
            for start in starts:
                end = ends.get(start)
                if end is None:
                    return  # not the analysis the postings hold: the hit analyses its text
                flat.extend((start, end))
        self._spans[name][num] = flat.tobytes()

    def write(self, index_dir: Path, stop: int, head: dict[str, Any]) -> None:
        """Write :data:`FILE` for the first ``stop`` (current) documents of the index whose head
        (``head.json``: format, content hash, analyser, vocabulary) is ``head``."""
        rows = {
            name: [by_doc.get(doc) for doc in range(stop)] for name, by_doc in self._spans.items()
        }
        data = (VERSION, head_key(head), stop, rows)
        (Path(index_dir) / FILE).write_bytes(marshal.dumps(data))


def head_key(head: Any) -> str:
    """What ties :data:`FILE` to its index: a digest of the index's head (``head.json``), so
    offsets written for another build (another content hash, format or analyser) are never
    read against these postings."""
    text = json.dumps(head, sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _index_head_key(index_dir: Path) -> str | None:
    """:func:`head_key` of the index in ``index_dir`` (None without a readable head)."""
    try:
        return head_key(json.loads((Path(index_dir) / HEAD_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


class SnippetSpans:
    """The stored offsets of one index, read with its term sequences (``sequence(field, doc)``
    of :class:`kb.search.postings.Postings`)."""

    def __init__(self, index_dir: Path, sequence: Any, stop: int) -> None:
        """Open :data:`FILE` in ``index_dir``; without it (or for another set of documents),
        every hit analyses its text."""
        self._sequence = sequence
        self._rows: dict[str, list[memoryview | None]] = {}
        try:
            version, key, count, rows = marshal.loads((Path(index_dir) / FILE).read_bytes())
            if version != VERSION or count != stop or key != _index_head_key(index_dir):
                return
            self._rows = {
                name: [memoryview(b).cast("i") if b else None for b in docs]
                for name, docs in rows.items()
                if name in _FIELDS and len(docs) == stop
            }
        except (OSError, ValueError, EOFError, TypeError, AttributeError):
            self._rows = {}  # not a file of this format: every hit analyses its text

    def marks(
        self, doc: int, lang: str, text: str, wanted: set[str]
    ) -> list[tuple[int, int]] | None:
        """The spans of ``text`` (document ``doc``'s snippet text, its body or the start of it)
        whose terms are ``wanted``, unsorted; None when the offsets are not stored for it."""
        names = SNIPPET_FIELDS.get(lang)
        if not names or not self._rows:
            return None
        out: list[tuple[int, int]] = []
        # Offsets are in the NFKC text (the analysers'): mapped back when it is another.
        mapped = None if unicodedata.is_normalized("NFKC", text) else normalize_mapped(text)
        limit = len(text) if mapped is None else len(mapped[0])
        for name in names:
            rows = self._rows.get(name)
            if rows is None or doc >= len(rows):
                return None
            flat = rows[doc]
            seq = self._sequence(name, doc)
            if flat is None or seq is None:
                if seq:  # terms without offsets: not this build's
                    return None
                continue
            if len(flat) != 2 * len(seq):
                return None
            # The places of the wanted terms, found in C (the text's terms tested against the
            # wanted set by map and compress), and their offsets read from the flat array.
            places = list(compress(count(), map(wanted.__contains__, seq)))
            if not places:
                continue
            starts = flat[::2]
            ends = flat[1::2]
            if len(places) == 1:
                pairs: Any = ((starts[places[0]], ends[places[0]]),)
            else:
                get = itemgetter(*places)
                pairs = zip(get(starts), get(ends), strict=True)
            out.extend((start, end) for start, end in pairs if start >= 0 and end <= limit)
        if mapped is not None:
            offsets = mapped[1]
            return [(offsets[start], offsets[end - 1] + 1) for start, end in out]
        return out
