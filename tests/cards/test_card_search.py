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
    assert rewritten == "can Flying block"  # the name's own words are gone
    assert boosts["702.9"] > 1.0
    assert "302" not in boosts  # a card type says nothing of what the card does


def _shared(uses_of: dict[int, list[tuple[str, str, str, None]]]) -> CardSearch:
    found = read_cards(FIXTURES / "atomic.json").cards
    return CardSearch.from_cards(found, [uses_of.get(i, []) for i in range(len(found))])


def test_a_rule_few_cards_use_is_raised_more() -> None:
    """Boosts follow how specific a rule is: a keyword every card has counts for nothing."""
    common = ("702.1", "keyword", "Common", None)
    rare = ("702.26", "keyword", "Phasing", None)
    cards = _shared({i: [common] for i in range(40)} | {0: [common, rare]})
    assert cards.specificity("702.26") == 1.0 and cards.specificity("702.1") < 0.05
    question = "can Test Gryphon block"
    _rewritten, boosts = cards.expansion(question, cards.named(question))
    assert boosts["702.26"] > 3.0
    assert boosts.get("702.1", 1.0) < 1.2


def test_two_named_cards_raise_the_rules_they_share() -> None:
    """What two cards named together both use is their interaction: raised above the rest."""
    found = read_cards(FIXTURES / "atomic.json").cards
    second = next(i for i, c in enumerate(found) if i and c.name != found[0].name and c.faces)
    both = ("601.2f", "term", "cost", None)
    alone = ("701.5", "term", "counter", None)
    cards = _shared({0: [both, alone], second: [both]} | {i: [] for i in range(2, 30)})
    question = f"Test Gryphon and {found[second].name} together"
    named = cards.named(question)
    assert {n.card_id for n in named} == {0, second}, named
    _rewritten, boosts = cards.expansion(question, named)
    assert boosts["601.2f"] > boosts["701.5"] > 1.0


def test_rulings_by_words(cards: CardSearch) -> None:
    result = cards.search_rulings("ruling written for the tests", 5, 1)
    assert result.hits and result.hits[0].kind == "ruling" and result.hits[0].key == "test-gryphon"


class _Rules:
    """A searcher stand-in that lists rules as :meth:`Searcher.rule_list` does."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def rule_list(self, query: str, numbers: list[str], lang, limit: int, page: int):
        from kb.search.results import Hit, SearchResult

        self.asked.append(list(numbers))
        result = SearchResult(query=query, lang=lang, page=page)
        result.hits = [Hit("rule", n, "en", None, [], n, n, "", 1.0) for n in numbers]
        return result


def _no_text_search(*args: object, **kwargs: object) -> None:
    raise AssertionError("a card's name needs no text search")


def test_a_name_query_lists_the_card_then_its_rules_most_specific_first() -> None:
    common = ("302", "type", "Creature", None)
    rare = ("702.26", "keyword", "Phasing", None)
    cards = _shared({i: [common] for i in range(40)} | {0: [common, rare]})
    rules = _Rules()
    for query in ("Test Gryphon", "test gryphon", "[[Test Gryphon]]", "Griffon d'essai"):
        assert cards.whole_name(query), query
        result = cards.search(rules, query, _no_text_search, limit=10, page=1)
        assert result is not None
        assert [(h.kind, h.number) for h in result.hits] == [
            ("card", None),
            ("rule", "702.26"),
            ("rule", "302"),
        ], query
        assert result.total == 3 and result.pages == 1
    assert cards.whole_name("can Test Gryphon block") == []
    paged = cards.search(rules, "Test Gryphon", _no_text_search, limit=2, page=2)
    assert paged is not None and [h.number for h in paged.hits] == ["302"] and paged.pages == 2


class _TwoKeywords:
    """A knowledge base stand-in: the newest English rules of two keywords and filler rules."""

    def __init__(self) -> None:
        from kb.knowledge.model import Rule

        texts = {
            "702.7": "First strike is a static ability that modifies the rules for the combat "
            "damage step.",
            "702.16": "Protection is a static ability. A permanent with protection can't be "
            "targeted by spells with the stated quality.",
        }
        texts |= {f"100.{i}": f"Filler rule {i} about the game." for i in range(1, 40)}
        self.by_number = {n: Rule("en-x", "en", n, "rule", t) for n, t in texts.items()}
        self.rules = {"en-x": self.by_number}

    def newest(self, lang: str):
        from types import SimpleNamespace

        return SimpleNamespace(id="en-x")

    def current(self, number: str, lang: str):
        return self.by_number.get(number)

    def subtree(self, rule):
        return [rule]


def test_only_the_keywords_an_english_question_is_about_are_raised() -> None:
    """Blood Knight has first strike and protection; asked whether a spell can target it, only
    protection's rules (which speak of targets) are raised, and only its name joins the query."""
    from kb.search.cards import _Families

    strike = ("702.7", "keyword", "First strike", None)
    protection = ("702.16", "keyword", "Protection", None)
    found = read_cards(FIXTURES / "atomic.json").cards
    found[0].keywords = ["First strike", "Protection"]
    uses = [[strike, protection]] + [[] for _ in found[1:]]
    cards = CardSearch.from_cards(found, uses)
    cards.families = _Families(_TwoKeywords())
    question = "can my spell target Test Gryphon"
    rewritten, boosts = cards.expansion(question, cards.named(question))
    assert boosts.get("702.16", 1.0) > 1.5
    assert boosts.get("702.7", 1.0) == 1.0
    assert "Protection" in rewritten and "First strike" not in rewritten
    # a question in another language is not judged by English words: both keep their boost
    question = "mon sort peut-il cibler le Griffon d'essai ?"
    _rewritten, boosts = cards.expansion(question, cards.named(question))
    assert boosts.get("702.7", 1.0) > 1.5 and boosts.get("702.16", 1.0) > 1.5


def test_a_card_named_by_the_first_word_alone(cards: CardSearch) -> None:
    """A sentence's first word is capitalised anyway: it names a card only when it is a card's
    exact name and no word of the English rules ("Spark" is not one; "Filler" would be)."""
    from kb.search.cards import _Families

    cards.families = _Families(_TwoKeywords())
    question = "Spark on my creature with first strike"
    named = cards.named(question)
    assert [(n.name, n.start, n.end) for n in named] == [("Spark", 0, 5)]
    assert cards.named("Étincelle sur ma créature")[0].name == "Étincelle"
    assert cards.named("spark on my creature") == []  # not capitalised: a word, not a name
    cards.families = None
