"""Table tests of the text normalisation functions in kb.text."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kb.text.normal
from kb.text.normal import (
    collapse_spaces,
    fold_accents,
    fold_width,
    lower_same_length,
    nfkc,
    normalize_newlines,
    straight_quotes,
    word_forms,
    word_stems,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("117.3a", "117.3a"),
        ("１１７．３ａ", "117.3a"),
        ("ﬁnal", "final"),
        ("優先権", "優先権"),
        ("ﾌﾟﾚｲﾔｰ", "プレイヤー"),
        ("㍻", "平成"),
    ],
)
def test_nfkc(text: str, expected: str) -> None:
    assert nfkc(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("１１７．３ａ", "117.3a"),
        ("ルール\u3000７０２．６２", "ルール 702.62"),
        ("ﾌﾟﾚｲﾔｰ", "フ\u309aレイヤー"),  # the voicing mark stays a character of its own
        ("ﬁnal", "ﬁnal"),  # a ligature would change the length
        ("plain text", "plain text"),
    ],
)
def test_fold_width(text: str, expected: str) -> None:
    assert fold_width(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("player’s", "player's"),
        ("‘a’ “b” « c »", '\'a\' "b" " c "'),
        ("state‑based", "state-based"),
        ('"already" straight', '"already" straight'),
    ],
)
def test_straight_quotes(text: str, expected: str) -> None:
    assert straight_quotes(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pass in Succession", "pass in succession"),
        ("İSTANBUL", "İstanbul"),  # "İ".lower() is two characters: it stays
        ("ÉTAPE", "étape"),
    ],
)
def test_lower_same_length(text: str, expected: str) -> None:
    assert lower_same_length(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cœur", "coeur"),
        ("Œuvre", "OEuvre"),
        ("ex æquo", "ex aequo"),
        ("capacité déclenchée", "capacite declenchee"),
        ("reçoit à l’île", "recoit a l’ile"),
        ("naïve", "naive"),
        ("ascii", "ascii"),
    ],
)
def test_fold_accents(text: str, expected: str) -> None:
    assert fold_accents(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  a \n\t b  ", "a b"),
        ("a\u3000b\u00a0c", "a b c"),
        ("", ""),
    ],
)
def test_collapse_spaces(text: str, expected: str) -> None:
    assert collapse_spaces(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\r\nb", "a\nb"),
        ("a\rb\r\n\rc", "a\nb\n\nc"),
        ("a\u2028b\u2029c", "a\nb\nc"),
        ("a\u00a0b", "a b"),
    ],
)
def test_normalize_newlines(text: str, expected: str) -> None:
    assert normalize_newlines(text) == expected


@given(st.text())
def test_length_keeping_functions_keep_the_length(text: str) -> None:
    for fold in (fold_width, straight_quotes, lower_same_length):
        assert len(fold(text)) == len(text)


@given(st.text())
def test_folds_are_idempotent(text: str) -> None:
    for fold in (nfkc, fold_width, straight_quotes, fold_accents, collapse_spaces):
        once = fold(text)
        assert fold(once) == once
    once = normalize_newlines(text)
    assert normalize_newlines(once) == once


def test_module_examples() -> None:
    result = doctest.testmod(kb.text.normal)
    assert result.attempted >= 3 and result.failed == 0


# ---- one word analysis for the package --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Triggered abilities", "en"),
        ("State-based actions", "en"),
        ("Capacités déclenchées", "fr"),
        ("Étape de nettoyage", "fr"),
    ],
)
def test_term_keys_are_the_search_index_stems(text: str, lang: str) -> None:
    from kb.knowledge.terms import normalize_name
    from kb.search.analysis import terms

    stems = terms(text, lang)  # the index drops stop words ("de"); the term key keeps them
    assert stems and [w for w in word_stems(text, lang) if w in stems] == stems
    assert [w for w in normalize_name(text, lang).split() if w in stems] == stems


def test_word_forms_are_the_term_matchers() -> None:
    from kb.text import termmatch

    assert termmatch._en_word_forms("pass") == word_forms("pass", "en") >= {"passes", "passed"}
    assert termmatch._fr_word_forms("actif") == word_forms("actif", "fr") >= {"active", "actifs"}
