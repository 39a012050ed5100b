"""The questions players ask in search: documents that vote for the rules they cite and are
never hits; tournament rules as one result per section; the learned order's plumbing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kb.knowledge.asks import Ask
from kb.knowledge.model import KnowledgeBase, TournamentRule
from kb.search import Searcher, build_index
from kb.search.learned import FEATURES, LearnedOrder, features
from tests.search.conftest import small_kb

QUESTION = "puis-je poser un terrain quand la pile est vide"


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory):
    kb: KnowledgeBase = small_kb()
    kb.asks = [
        Ask(
            "fr/116#1", "fr", "Puis-je poser un terrain pendant que la pile est vide ?", ["116.2a"]
        ),
        Ask("en/704#1", "en", "my quokka has zero toughness, what happens", ["704.5a"]),
    ]
    kb.tournament = [
        TournamentRule("mtr-4.2-1", "fr", "4.2", "« Go » offre de passer la priorité.", "m.txt"),
        TournamentRule("mtr-4.2-2", "fr", "4.2", "Passer la priorité avec « Go ».", "m.txt"),
    ]
    path = tmp_path_factory.mktemp("asks-index")
    build_index(kb, path)
    with Searcher(path, kb) as searcher:
        yield searcher


def test_a_french_question_reaches_the_english_rule_its_asks_cite(asked: Searcher) -> None:
    hits = asked.search(QUESTION).hits
    assert hits and hits[0].canonical == "116.2a"
    assert all(h.kind != "ask" for h in hits)


def test_a_hidden_question_does_not_vote(asked: Searcher) -> None:
    ranker = asked._ranker
    ranker.hidden_asks = frozenset(ranker._ask_cites)
    try:
        asked.clear_caches()
        hits = asked.search("quokka").hits
        assert all(h.canonical != "704.5a" for h in hits)
    finally:
        ranker.hidden_asks = frozenset()
    asked.clear_caches()
    assert asked.search("quokka").hits[0].canonical == "704.5a"


def test_a_tournament_section_is_one_result(asked: Searcher) -> None:
    hits = asked.search("go priorité", lang="fr", kind="tournament").hits
    assert [h.number for h in hits] == ["4.2"]


class _Reversed:
    """A stand-in model preferring documents lower in the hand-made order."""

    def predict(self, rows: list[list[float]]) -> list[float]:
        return [row[1] for row in rows]


def test_the_learned_order_permutes_documents_and_keeps_the_scores() -> None:
    order = LearnedOrder(Path("/nonexistent"))
    assert not order.active
    order.model = _Reversed()
    scored = [(3.0, 10), (2.0, 11), (1.0, 12)]
    kinds, langs = ["rule"] * 13, ["en"] * 13
    facts = (kinds, langs, {10: "117.3a", 11: "117", 12: "702.19b"})

    compiled = SimpleNamespace(order={"en": ("body_en", ["a", "b"])}, src=None)
    out = order.rerank(scored, {10: 1.0}, {}, facts, compiled)  # type: ignore[arg-type]
    assert out == [(3.0, 12), (2.0, 11), (1.0, 10)]
    rows = features(scored, {10: 1.0}, {"asks": {11: 1.5}}, kinds, langs, facts[2], (2, "fr"))
    assert len(rows[0]) == len(FEATURES)
    assert rows[1][FEATURES.index("ask_vote")] == 0.5
    assert [r[FEATURES.index("depth")] for r in rows] == [3.0, 1.0, 3.0]
    assert rows[0][FEATURES.index("query_fr")] == 1.0
