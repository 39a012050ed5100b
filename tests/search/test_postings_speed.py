"""The shortcuts the search takes for speed give what the long way gives: a word group's
language, proximity, the ranking's reweighing in place, the snippet marker's bigrams."""

from __future__ import annotations

from pathlib import Path

import pytest
from whoosh import query as wq

from kb.knowledge.model import LANGS
from kb.search import Searcher
from kb.search.compiler import _grams
from kb.search.japanese import bigrams_ja
from kb.search.postings import Coord, Evaluation, Postings, build
from kb.search.ranking import _among, _pairs, _proximity

from .conftest import small_kb


@pytest.fixture()
def two_langs(tmp_path: Path) -> Postings:
    """Two English and two French current documents."""
    rows = [
        (0, "body_en", ["mana", "abil", "stack"], 3),
        (1, "body_en", ["stack", "mana"], 2),
        (2, "body_fr", ["capacit", "mana"], 2),
        (3, "body_fr", ["pile", "mana"], 2),
    ]
    path = tmp_path / "p.sqlite"
    path.write_bytes(build(rows, 4, 4, [1.0] * 4))
    return Postings(path)


def test_a_word_group_keeps_the_language_it_was_given(two_langs: Postings) -> None:
    ev = Evaluation()
    en = Coord([wq.Term("body_en", "mana"), wq.Term("body_en", "stack")], lang="en")
    fr = Coord([wq.Term("body_fr", "mana"), wq.Term("body_fr", "pile")])  # read from its fields
    mixed = Coord([wq.Term("body_en", "mana"), wq.Term("body_fr", "pile")])
    scores = two_langs.evaluate(wq.Or([en, fr, mixed]), False, ev)
    assert ev.langs == ["en", "fr", None]
    assert set(scores) == {0, 1, 2, 3}


@pytest.mark.parametrize(
    ("seq", "wanted"),
    [
        (("mana", "abil", "stack", "mana"), ["mana", "abil"]),
        (("stack", "x", "y", "z", "mana"), ["stack", "mana"]),
        (("stack", "x", "mana", "abil"), ["stack", "mana", "abil", "stack"]),
        (("mana",), ["mana", "abil"]),
        ((), ["mana", "abil"]),
        (("a", "b", "a", "b"), ["b", "a", "b"]),
    ],
)
def test_proximity_with_the_query_words_given_is_the_same(
    seq: tuple[str, ...], wanted: list[str]
) -> None:
    pairs = _pairs(wanted)
    words = frozenset(t for pair in pairs for t in pair)
    for window in (1, 3):
        assert _proximity(seq, pairs, window, words) == _proximity(seq, pairs, window)


def test_proximity_counts_pairs_within_the_window() -> None:
    pairs = _pairs(["stack", "mana", "abil"])
    assert _proximity(("stack", "x", "mana", "abil"), pairs, 3) == 1.0
    assert _proximity(("stack", "x", "x", "x", "mana"), pairs, 3) == 0.0
    assert _proximity(("mana", "abil"), pairs, 3) == 0.5


@pytest.mark.parametrize("size", [0, 3, 50])
def test_among_finds_the_documents_both_have(size: int) -> None:
    docs = frozenset(range(0, 40, 3))
    scores = {d: 1.0 for d in range(size)}
    assert set(_among(docs, scores)) == docs & set(scores)


def test_ranking_leaves_the_callers_scores_as_they_were(tmp_path: Path) -> None:
    kb = small_kb()
    from kb.search import build_index

    build_index(kb, tmp_path)
    with Searcher(tmp_path, kb) as searcher:
        compiled = searcher._compile("priorité joueur", LANGS, None)  # French: SAME_LANG
        ev = Evaluation()
        scores = searcher._index.evaluate(compiled.query, False, ev)
        before = dict(scores)
        assert before
        searcher._ranker.order(
            scores,
            compiled,
            ev,
            lang=None,
            current=True,
            prefer="ja",
            examples_wanted=True,
            fetch=20,
        )
        assert scores == before


@pytest.mark.parametrize("text", ["priority", "優先権を得る", "ｱｲ", "㍿", "a権b", ""])
def test_bigrams_of_a_word_without_japanese_are_none(text: str) -> None:
    assert _grams(text) == [g for g, _, _ in bigrams_ja(text)]
