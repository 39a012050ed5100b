"""Spelling help from the index's own vocabulary: typo corrections and prefix completions.

Corrections use a deletion index (the "symmetric delete" idea): every word is stored under each
spelling with one letter removed, so a typo finds its candidates with a handful of dictionary
lookups instead of a scan of the vocabulary; candidates are then checked with the true
Damerau-Levenshtein distance (1, or 2 for words of 8 letters or more).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

#: A prefix expands to at most this many words (query cost stays bounded).
MAX_EXPANSION = 200


class Speller:
    """Vocabulary (word -> document frequency) of the index's fields, loaded on first use."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._vocab: dict[str, dict[str, int]] = {}
        self._sorted: dict[str, list[str]] = {}
        self._deletes: dict[str, dict[str, list[str]]] = {}
        self._freq: dict[tuple[str, str], int] = {}

    def vocabulary(self, field: str) -> dict[str, int]:
        """Every word of a field with its document frequency."""
        vocab = self._vocab.get(field)
        if vocab is None:
            vocab = {}
            if field in self._reader.indexed_field_names():
                for term, info in self._reader.iter_field(field):
                    word = term.decode("utf-8") if isinstance(term, bytes) else term
                    vocab[word] = info.doc_frequency()
            self._vocab[field] = vocab
            self._sorted[field] = sorted(vocab)
        return vocab

    def frequency(self, field: str, term: str) -> int:
        """How many documents have ``term`` in ``field`` (cached)."""
        key = (field, term)
        freq = self._freq.get(key)
        if freq is None:
            freq = self._reader.doc_frequency(field, term)
            if len(self._freq) > 100_000:
                self._freq.clear()
            self._freq[key] = freq
        return freq

    def completions(self, field: str, prefix: str, limit: int) -> list[str]:
        """Words starting with ``prefix``, most frequent first (at most :data:`MAX_EXPANSION`)."""
        vocab = self.vocabulary(field)
        words = self._sorted[field]
        out: list[str] = []
        i = bisect_left(words, prefix)
        while i < len(words) and words[i].startswith(prefix) and len(out) < MAX_EXPANSION:
            out.append(words[i])
            i += 1
        out.sort(key=lambda w: (-vocab[w], w))
        return out[:limit]

    def corrections(self, field: str, word: str, limit: int = 3) -> list[str]:
        """Known words close to an unknown ``word``, the most frequent first."""
        vocab = self.vocabulary(field)
        if word in vocab:
            return []
        deletes = self._deletes.get(field)
        if deletes is None:
            deletes = {}
            for known in vocab:
                if len(known) >= 3:
                    for variant in _deletions(known) | {known}:
                        deletes.setdefault(variant, []).append(known)
            self._deletes[field] = deletes
        maxdist = 2 if len(word) >= 8 else 1
        probes = _deletions(word) | {word}
        if maxdist == 2:
            probes |= {d2 for d in list(probes) for d2 in _deletions(d)}
        candidates = {c for p in probes for c in deletes.get(p, ())}
        scored = []
        for cand in candidates:
            dist = distance(word, cand)
            if dist <= maxdist:
                scored.append((dist, -vocab[cand], cand))
        return [c for _, _, c in sorted(scored)[:limit]]


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): ``priorty``/``priority`` is 1.

    >>> distance("priorty", "priority"), distance("stakc", "stack"), distance("a", "abc")
    (1, 1, 2)
    """
    if a == b:
        return 0
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]
