"""kb.search.cards on the fixture cards: names found in questions (quoted, unquoted, misspelt,
in French and Japanese), a question rewritten through what the card does, rulings by words."""

from __future__ import annotations

import pytest

from kb.search.cards import CardSearch
from kb.sources.cards import read_cards
from tests.cards.conftest import FIXTURES


@pytest.fixture(scope="module")
def cards() -> CardSearch:
    found = read_cards(FIXTURES / "atomic.json").cards
    uses = [[("702.9", "keyword", "Flying", None), ("302", "type", "Creature", None)]] + [
        [] for _ in found[1:]
    ]
    assert found[0].name == "Test Gryphon"
    return CardSearch.from_cards(found, uses)


@pytest.mark.parametrize(
    "question",
    [
        "can Test Gryphon block a flying creature",
        "does [[Test Gryphon]] die to damage",
        "does test gryphon die to damage",
        "can Test Griphon block",
        "le Griffon d'essai peut-il bloquer ?",
    ],
)
def test_named_in_questions(cards: CardSearch, question: str) -> None:
    named = cards.named(question)
    assert named and named[0].card_id == 0, question


def test_a_name_alone_is_the_card(cards: CardSearch) -> None:
    named = cards.named("Test Gryphon")
    assert cards.is_name("Test Gryphon", named)
    question = "can Test Gryphon block a creature with flying"
    assert not cards.is_name(question, cards.named(question))


def test_expansion_puts_keywords_for_the_name_and_boosts_its_rules(cards: CardSearch) -> None:
    question = "can Test Gryphon block"
    rewritten, boosts = cards.expansion(question, cards.named(question))
    assert rewritten == "can Flying block"
    assert boosts["702.9"] > boosts["302"] >= 1.0


def test_rulings_by_words(cards: CardSearch) -> None:
    result = cards.search_rulings("ruling written for the tests", 5, 1)
    assert result.hits and result.hits[0].kind == "ruling" and result.hits[0].key == "test-gryphon"
