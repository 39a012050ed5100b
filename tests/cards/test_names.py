"""Card names resolved in English, French and Japanese: exact, quoted, partial, misspelt, and
found inside a question; on the small file written here and on the shared AtomicCards file."""

from __future__ import annotations

import pytest

from kb.cards.names import NameIndex, fold, unquote
from kb.sources.card_model import Card
from kb.sources.cards import read_cards
from tests.cards.conftest import FIXTURES


@pytest.fixture(scope="module")
def small() -> NameIndex:
    return NameIndex(read_cards(FIXTURES / "atomic.json").cards)


@pytest.fixture(scope="module")
def full(shared_cards: list[Card]) -> NameIndex:
    return NameIndex(shared_cards)


def _names(matches: list) -> list[str]:
    return [m.card.name for m in matches]


def test_fold() -> None:
    assert fold("  Colère  de DIEU ") == "colere de dieu"
    assert fold("ﾗﾉﾜｰﾙのｴﾙﾌ") == fold("ラノワールのエルフ")  # half width
    assert fold("ガ") != fold("カ")  # a kana's voicing mark is not an accent
    assert fold("Ｓｐａｒｋ") == "spark" and fold("Urza’s") == "urza's"
    assert fold("人間・狼男") == "人間狼男"
    assert unquote("《神の怒り》") == "神の怒り" and unquote("« Givre »") == "Givre"
    assert unquote("[[Spark]]") == "Spark"


def test_small_file(small: NameIndex) -> None:
    assert _names(small.resolve("test gryphon")) == ["Test Gryphon"]
    assert small.resolve("Griffon d’essai")[0].lang == "fr"
    assert _names(small.resolve("« Étincelle »")) == ["Spark // Frost"]
    assert _names(small.resolve("givre")) == ["Spark // Frost"]
    assert _names(small.resolve("《月見人》")) == ["Moon Watcher // Night Howler"]
    assert _names(small.resolve("Cloud Ride")) == ["Sky Knight // Cloud Ride"]
    assert small.resolve("Tset Gryphon")[0].how == "fuzzy"
    assert small.resolve("") == [] and small.resolve("zzzzzzzzzz") == []


def test_exact_in_three_languages(full: NameIndex) -> None:
    [match] = full.resolve("« Colère de Dieu »")
    assert (match.card.name, match.lang, match.how) == ("Wrath of God", "fr", "exact")
    [match] = full.resolve("《ラノワールのエルフ》")
    assert (match.card.name, match.lang) == ("Llanowar Elves", "ja")
    assert _names(full.resolve("colere de dieu")) == ["Wrath of God"]
    assert _names(full.resolve("[[LLANOWAR ELVES]]")) == ["Llanowar Elves"]
    assert _names(full.resolve("Chop Down")) == ["Giant Killer // Chop Down"]
    # a name shared by cards: all of them, the Oracle name first, a whole name before a face's
    assert _names(full.resolve("Bind")) == ["Bind", "Bind // Liberate"]
    assert [(m.card.name, m.lang) for m in full.resolve("Contemplation")] == [
        ("Contemplation", "en"),
        ("Ponder", "fr"),
    ]


def test_partial(full: NameIndex) -> None:
    spheres = full.resolve("Sphere", limit=5)
    assert "Sphere of Resistance" in _names(spheres)[:2]  # "Sphere" as typed before "Sphère"
    assert all(m.how == "partial" and m.name.startswith("Sphere") for m in spheres)
    assert all(m.lang == "fr" for m in full.resolve("sphère", limit=5))
    elves = _names(full.resolve("the Elves"))
    assert elves[:2] == ["Lathril, Blade of the Elves", "Harald Unites the Elves"]
    assert "Llanowar Elves" in elves  # then names holding "Elves", most played first
    assert _names(full.resolve("ラノワール")) == ["Llanowar"]  # a plane's exact name
    assert "Llanowar Elves" in _names(full.partial(fold("ラノワール"), limit=20))


@pytest.mark.parametrize(
    ("typo", "name"),
    [
        ("Llanowar Elvs", "Llanowar Elves"),
        ("Sphere of Resistence", "Sphere of Resistance"),
        ("Wrath fo God", "Wrath of God"),
        ("Lightnig Bolt", "Lightning Bolt"),
        ("Colere de Deiu", "Wrath of God"),
        ("Counterspel", "Counterspell"),
    ],
)
def test_typos(full: NameIndex, typo: str, name: str) -> None:
    first = full.resolve(typo)[0]
    assert (first.card.name, first.how) == (name, "fuzzy") and first.distance in (1, 2)


def test_mentions_in_questions(full: NameIndex) -> None:
    question = "does Sphere of Resistance make a spell cast with cascade cost more"
    [mention] = full.mentions(question)
    assert (mention.start, mention.end) == (5, 25)
    assert question[mention.start : mention.end] == "Sphere of Resistance"
    assert mention.matches[0].card.name == "Sphere of Resistance"
    found = full.mentions("Can I counter Lightning Bolt with Counterspell?")
    assert [m.text for m in found] == ["Lightning Bolt", "Counterspell"]
    found = full.mentions("Est-ce que « Colère de Dieu » détruit les créatures indestructibles ?")
    assert [m.matches[0].card.name for m in found] == ["Wrath of God"]
    found = full.mentions("ラノワールのエルフは《神の怒り》で破壊されますか")
    assert [(m.text, m.matches[0].card.name) for m in found] == [
        ("ラノワールのエルフ", "Llanowar Elves"),
        ("《神の怒り》", "Wrath of God"),
    ]
    assert full.mentions("what happens when a creature dies during combat") == []


def test_mentions_prefer_the_longest_overlapping_name(full: NameIndex) -> None:
    """A name inside a longer one: in "La Colère de Dieu", "Colère de Dieu", not "La Colère"."""
    found = full.mentions("La Colère de Dieu détruit-elle une créature indestructible ?")
    assert [(m.text, m.matches[0].card.name) for m in found] == [("Colère de Dieu", "Wrath of God")]


def test_mentions_skip_a_french_elided_article(full: NameIndex) -> None:
    found = full.mentions("J'active l'Engin de sorcière et je le sacrifie en réponse")
    assert [m.text for m in found] == ["Engin de sorcière"]
    assert found[0].matches[0].card.name == "Witch Engine"
