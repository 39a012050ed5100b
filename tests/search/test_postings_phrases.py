"""Phrases evaluated once when the index opens (the term base's names): the same documents and
weights as matching them at query time, current documents only."""

from __future__ import annotations

from pathlib import Path

from whoosh import query as wq

from kb.search.analysis import terms
from kb.search.postings import FILE, Evaluation, Postings


def _evaluate(postings: Postings, q: wq.Query, everything: bool = False) -> dict[int, float]:
    return postings.evaluate(q, everything, Evaluation())


def test_a_learned_phrase_scores_as_a_matched_one(index_dir: Path) -> None:
    postings = Postings(index_dir / FILE)
    try:
        words = terms("receives priority", "en")
        backwards = list(reversed(words))
        queries = [
            wq.Phrase("body_en", words),
            wq.Phrase("body_en", words, boost=2.5),
            wq.Phrase("body_en", backwards),
            wq.Or([wq.Phrase("body_en", words), wq.Term("body_en", "spell")]),
        ]
        before = [_evaluate(postings, q) for q in queries]
        everything = _evaluate(postings, queries[0], everything=True)
        postings.learn_phrases([("body_en", words), ("body_en", backwards)])
        assert postings._phrases[("body_en", tuple(words))]  # learned, and it matched
        after = [_evaluate(postings, q) for q in queries]
        assert after == before and [list(a) for a in after] == [list(b) for b in before]
        assert before[0] and not before[2]
        assert before[1] == {d: w * 2.5 for d, w in before[0].items()}
        # A search in an edition sees older documents too: the learned phrase is not theirs.
        assert _evaluate(postings, queries[0], everything=True) == everything
        assert any(d >= postings.stop for d in everything)
    finally:
        postings.close()


def test_the_searcher_learns_the_term_base_names(searcher) -> None:
    learned = searcher._index._phrases
    assert ("body_en", tuple(terms("state-based actions", "en"))) in learned
    assert ("body_fr", tuple(terms("actions basées sur un état", "fr"))) in learned
    with_learned = [
        searcher.search(q).to_json() for q in ("state-based actions", "状況起因処理", "priority")
    ]
    saved = dict(learned)
    learned.clear()
    try:
        without = [
            searcher.search(q).to_json()
            for q in ("state-based actions", "状況起因処理", "priority")
        ]
    finally:
        learned.update(saved)
    assert with_learned == without


def test_side_documents_are_scored_apart(index_dir: Path) -> None:
    # The questions players ask are kept apart (Postings.side): a search scores the others,
    # and the questions only when they vote; together they are what one evaluation gave.
    postings = Postings(index_dir / FILE)
    try:
        words = terms("receives priority", "en")
        priority = terms("priority", "en")[0]
        queries = [
            wq.Term("body_en", priority),
            wq.Phrase("body_en", words),
            wq.Or([wq.Phrase("body_en", words), wq.Term("body_en", "spell")]),
            wq.And([wq.Term("body_en", "spell"), wq.Term("body_en", priority)]),
        ]
        postings.learn_phrases([("body_en", words)])
        whole = [_evaluate(postings, q) for q in queries]
        # Any split point among the current documents: one some of the queries' documents pass.
        first = max(d for found in whole for d in found)
        before = postings.frequency("body_en", priority)
        postings.side(first)
        for q, all_docs in zip(queries, whole, strict=True):
            rest = _evaluate(postings, q)
            side = postings.evaluate(q, False, Evaluation(side=True), side=True)
            assert all(d < first for d in rest) and all(first <= d for d in side)
            assert {**rest, **side} == all_docs
        assert before and postings.frequency("body_en", priority) == before
        assert postings.knows("body_en", priority)
        assert any(whole) and any(d >= first for found in whole for d in found)
    finally:
        postings.close()
