"""Operations on the ranker's scores (``doc -> score`` dictionaries) and scored lists
(``(score, doc)`` pairs, best first) that walk their documents in C where they can: a common
word's documents are thousands, and these run on every search (:mod:`kb.search.ranking`)."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from itertools import compress
from operator import itemgetter


def _among(docs: frozenset[int], scores: dict[int, float]) -> Iterable[int]:
    """The documents of ``docs`` that ``scores`` has, walking the smaller of the two (in C)."""
    if len(docs) < len(scores):
        return scores.keys() & docs  # walks docs, looking each up in the scores
    return docs.intersection(scores)  # walks the scores


def _scale(scores: dict[int, float], docs: Iterable[int], factor: float) -> None:
    """Multiply in place the scores of ``docs`` (all in ``scores``) by ``factor``, in C: a
    common word's documents are hundreds, of which a concept or a language holds many."""
    docs = list(docs)
    if docs:
        scaled = map(factor.__rmul__, map(scores.__getitem__, docs))
        scores.update(zip(docs, scaled, strict=False))  # as long as docs: strict costs a check


def _top(scores: dict[int, float], depth: int) -> list[int]:
    """The ``depth`` best documents of ``scores``, ties in the dictionary's order (as
    heapq.nlargest over its items would give them, but sorted in C with the dictionary's own
    lookup as key). Past a few thousand documents, the ``depth``-th best score is found among the bare values
    (heapq's C loop, no key function) and only the documents reaching it are sorted."""
    if len(scores) <= 2000:
        return sorted(scores, key=scores.__getitem__, reverse=True)[:depth]
    floor = heapq.nlargest(depth, scores.values())[-1]
    found = list(compress(scores, map(floor.__le__, scores.values())))
    return sorted(found, key=scores.__getitem__, reverse=True)[:depth]


def _below(
    scores: dict[int, float], ranked: list[tuple[float, int]], fetch: int
) -> list[tuple[float, int]]:
    """The documents after the reranked ones, up to ``fetch`` in all, in the postings' order
    and scored below the last reranked one (a deeper page continues the first, never reorders
    it)."""
    seen = {doc for _score, doc in ranked}
    rest = [d for d in _top(scores, fetch) if d not in seen][: fetch - len(ranked)]
    if not rest:
        return []
    floor = min((score for score, _doc in ranked), default=1.0)
    first = scores[rest[0]] or 1.0
    return [(floor * 0.99 * scores[d] / first, d) for d in rest]


def _best_first(scored: list[tuple[float, int]], rank: list[int]) -> None:
    """Sort ``(score, doc)`` pairs in place, best score first, equal scores in the rules'
    order (``rank``: each document's place, :attr:`kb.search.understand.Concepts.rule_rank`),
    702.9a before 702.10a whatever their document numbers: two stable sorts."""
    scored.sort(key=lambda pair: rank[pair[1]])
    scored.sort(key=_SCORE, reverse=True)


_SCORE = itemgetter(0)
