"""The snippet markers of kb.search.highlight find exactly the spans of the analysers they stand
for: :func:`kb.search.analysis.marker` (which compiles a pattern per query) and the Japanese
bigrams; they only look at less of the text."""

from __future__ import annotations

import pytest

from kb.search import analysis
from kb.search.analysis import bigrams_ja
from kb.search.highlight import gram_marker, highlight, marker

EN_TEXTS = [
    "If a player would draw a card while their library is empty, that player loses.",
    "The player's triggered abilities trigger; it triggered. Triggers don't re-trigger.",
    "Players’ creatures can’t attack. 2damage then PLAYER and Player-controlled.",
    "ﬁrst strike: ﬁghting creatures deal combat damage ﬁrst (ligatures are normalised).",
    "İstanbul player",  # lower-cases to a longer text: the pattern path takes over
    "",
]
FR_TEXTS = [
    "Le joueur actif reçoit la priorité ; l'adversaire la reçoit ensuite.",
    "Qu’un joueur déclenche une capacité déclenchée jusqu'à la fin du tour (règle 117.3b).",
    "",
]
JA_TEXTS = [
    "優先権を持つプレイヤーは呪文を唱えてもよい。",
    "権 と 能 は一文字。マナ能力はスタックを使わない",
    "a権b 々〆ー権 x1権を得る。",
]


@pytest.mark.parametrize("text", EN_TEXTS)
@pytest.mark.parametrize(
    "wanted",
    [{"player", "trigger"}, {"draw", "librari", "empti"}, {"creatur", "first", "damag"}, {"s"}],
)
def test_english_marker_finds_what_the_analyser_finds(text: str, wanted: set[str]) -> None:
    assert marker("en", wanted)(text) == analysis.marker("en", wanted)(text)


@pytest.mark.parametrize("text", FR_TEXTS)
@pytest.mark.parametrize(
    "wanted", [{"joueur", "priorit"}, {"declench", "capacit", "tour"}, {"117.3b", "regl"}]
)
def test_french_marker_finds_what_the_analyser_finds(text: str, wanted: set[str]) -> None:
    mark = marker("fr", wanted)
    assert mark(text) == analysis.marker("fr", wanted)(text)
    assert mark(text) == mark(text)  # the second time from the words already judged


def test_english_rule_numbers_take_the_word_by_word_path() -> None:
    wanted = {"117.3b", "prioriti"}
    text = "See rule 117.3b: priority and priorities."
    assert marker("en", wanted)(text) == analysis.marker("en", wanted)(text)


@pytest.mark.parametrize("text", JA_TEXTS)
def test_gram_marker_finds_what_the_bigrams_find(text: str) -> None:
    grams = [g for g, _, _ in bigrams_ja(text)]
    wanted = set(grams[::3]) | {"権", "能", "x1", "ab", "優先権"}
    expected = sorted(span for span in bigrams_ja(text) if span[0] in wanted)
    assert sorted(gram_marker(wanted)(text)) == expected


def test_snippet_marks_words_of_the_query() -> None:
    text = "The player who has priority may cast a spell. Players receive priority."
    out = highlight(text, {"player", "prioriti"}, [marker("en", {"player", "prioriti"})])
    assert out.count("<mark>") == 4 and "<mark>Players</mark>" in out
