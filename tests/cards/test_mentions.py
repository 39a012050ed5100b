"""Card names in the rules' own texts (kb.cards.mentions): capitalised English names, 《》 in
Japanese and « » in French, never a glossary term or an ordinary word."""

from __future__ import annotations

from kb.cards.mentions import find_card_names
from kb.cards.names import fold

NAMES = {
    fold("Circling Vultures"): 1,
    fold("Two-Headed Giant"): 2,
    fold("Garruk, Unleashed"): 3,
    fold("待ち受ける禿鷹"): 1,
    fold("Vautours tournoyants"): 1,
}


def spans(text: str, lang: str = "en") -> list[str]:
    excluded = [fold("Two-Headed Giant Variant")]
    return [text[a:b] for a, b, _ in find_card_names(text, lang, NAMES, fold, excluded)]


def test_english_names_are_capitalised_runs() -> None:
    assert spans("Example: Circling Vultures has an ability.") == ["Circling Vultures"]
    assert spans("circling vultures is not named so") == []
    assert spans("If Garruk, Unleashed would die, then") == ["Garruk, Unleashed"]


def test_a_glossary_term_is_not_a_card() -> None:
    assert spans("In a Two-Headed Giant game, each team") == []


def test_japanese_and_french_quotes() -> None:
    assert spans("例：《待ち受ける禿鷹》は", "ja") == ["待ち受ける禿鷹"]
    assert spans("待ち受ける禿鷹は", "ja") == []
    assert spans("Exemple : « Vautours tournoyants » et « incolore »", "fr") == [
        "Vautours tournoyants"
    ]
