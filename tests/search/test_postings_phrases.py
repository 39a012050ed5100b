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
