"""The per-language analysers, table-driven: what the index and the queries see of a text."""

from __future__ import annotations

import pytest

from kb.search.analysis import (
    SpanTokenizer,
    analyze_en,
    clean_query,
    detect_lang,
    fold_accents,
    normalize,
    terms,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Triggered abilities trigger", ["trigger", "abil", "trigger"]),
        ("The player's priority", ["player", "prioriti"]),
        ("priorities", ["prioriti"]),
        ("state-based actions", ["state", "base", "action"]),
        ("see rule 117.3a", ["see", "rule", "117.3a"]),
        ("１１７．３ａ", ["117.3a"]),  # NFKC: full-width digits and letters
        ("ＰＲＩＯＲＩＴＹ", ["prioriti"]),
        ("can I respond to it?", ["respond"]),
        ("", []),
    ],
)
def test_english(text: str, expected: list[str]) -> None:
    assert terms(text, "en") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Triggered abilities", ["triggered", "abilities"]),
        ("The player's", ["player"]),
    ],
)
def test_english_unstemmed(text: str, expected: list[str]) -> None:
    assert terms(text, "en_plain") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("la priorité", ["priorit"]),
        ("la priorite", ["priorit"]),  # accents folded in queries too
        ("l'étape de nettoyage", ["etap", "nettoyag"]),  # elision l'
        ("d'éphémère", ["ephemer"]),  # elision d'
        ("qu'un joueur", ["joueur"]),  # elision qu' (un is a stop word)
        ("lorsqu’il lance", ["lanc"]),  # typographic apostrophe
        ("déclenchée", ["declench"]),
        ("declenchee", ["declench"]),
        ("déclenchées déclencher", ["declench", "declench"]),
        ("actions basées sur un état", ["action", "base", "etat"]),
        ("quand est-ce que je reçois", ["recois"]),
    ],
)
def test_french(text: str, expected: list[str]) -> None:
    assert terms(text, "fr") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("d'éphémère à tout moment", ["ephemere", "tout", "moment"]), ("Priorités", ["priorites"])],
)
def test_french_unstemmed(text: str, expected: list[str]) -> None:
    assert terms(text, "fr_plain") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("マナ能力はスタックを使うか", ["マナ", "能力", "スタック", "使う"]),
        ("優先権を得る", ["優先", "権", "得る"]),
        ("状況起因処理", ["状況", "起因", "処理"]),
        ("呪文を唱えた", ["呪文", "唱える"]),  # dictionary form of the verb
        ("ＭＴＧ", ["mtg"]),
    ],
)
def test_japanese(text: str, expected: list[str]) -> None:
    assert terms(text, "ja") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("優先権", ["優先", "先権"]),
        ("優先権を得る", ["優先", "先権", "権を", "を得", "得る"]),
        ("土地 と", ["土地", "と"]),
        ("abc", []),
    ],
)
def test_japanese_bigrams(text: str, expected: list[str]) -> None:
    assert terms(text, "ja_gram") == expected


def test_spans_point_into_the_original_text() -> None:
    text = "The player’s triggered abilities"
    for term, start, end in analyze_en(text):
        assert text[start:end].lower().startswith(term[:4])


def test_whoosh_tokenizer_gives_positions_and_chars() -> None:
    tokens = [
        (t.text, t.pos, t.startchar, t.endchar)
        for t in SpanTokenizer("fr")("l'étape de pioche", positions=True, chars=True)
    ]
    assert tokens == [("etap", 0, 0, 7), ("pioch", 1, 11, 17)]


def test_normalisation_and_cleaning() -> None:
    assert normalize("１１７．３ａ") == "117.3a"
    assert clean_query("a\x00b\x1fc") == "a b c"
    assert fold_accents("reçoit œuvre") == "recoit oeuvre"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("優先権", "ja"),
        ("quand est-ce que je reçois la priorité", "fr"),
        ("can I respond to a land", "en"),
        ("priority", None),
    ],
)
def test_detect_lang(text: str, lang: str | None) -> None:
    assert detect_lang(text) == lang
