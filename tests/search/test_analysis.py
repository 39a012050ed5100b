"""The per-language analysers, table-driven: what the index and the queries see of a text."""

from __future__ import annotations

import itertools
import os
import sys

import pytest

from kb.search import analysis, japanese
from kb.search.analysis import (
    SpanTokenizer,
    analyze_en,
    clean_query,
    detect_lang,
    fold_accents,
    normalize,
    split_long,
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


# Sudachi, split mode A (the default): the shortest units, verbs in dictionary form.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("マナ能力はスタックを使うか", ["マナ", "能力", "スタック", "使う"]),
        ("優先権を得る", ["優先", "権", "得る"]),  # 権 a suffix of its own: 優先 alone meets it
        ("状況起因処理", ["状況", "起因", "処理"]),
        ("呪文を唱えた", ["呪文", "唱える"]),  # dictionary form of the verb
        ("ＭＴＧ", ["mtg"]),  # Sudachi's dictionary form is "MTG": lower-cased like the rest
        ("打ち消す", ["打つ", "消す"]),  # a compound verb in its parts
        ("アンタップ・ステップ", ["アンタップ", "ステップ"]),  # the middle dot is a symbol
        ("(rule 704〔状況起因処理〕参照)", ["rule", "704", "状況", "起因", "処理", "参照"]),
        ("その他", ["他"]),  # その is a stop word
        ("", []),
    ],
)
def test_japanese(text: str, expected: list[str]) -> None:
    assert [t for t, _, _ in analysis.analyze_ja(text, "sudachi")] == expected


def test_japanese_default_is_sudachi_mode_a() -> None:
    if not os.environ.get("KB_JA_ANALYZER"):
        assert analysis.JA_DEFAULT == "sudachi"
        assert terms("優先権を得る", "ja") == ["優先", "権", "得る"]
    assert analysis.SUDACHI_MODE == "A"
    assert analysis.ja_backend_id("sudachi").startswith("sudachi:A sudachipy-")


def test_sudachi_mode_c_keeps_compounds_whole() -> None:
    # sudachidict-small has no entry 優先権, so a compound verb shows the split modes apart.
    spans = analysis.analyze_ja("呪文を打ち消す", "sudachi:C")
    assert [t for t, _, _ in spans] == ["呪文", "打ち消す"]


# janome (IPADIC), the alternative: the same inputs; it differs on compounds and symbols.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("マナ能力はスタックを使うか", ["マナ", "能力", "スタック", "使う"]),
        ("優先権を得る", ["優先", "権", "得る"]),
        ("呪文を唱えた", ["呪文", "唱える"]),
        ("ＭＴＧ", ["mtg"]),
        ("打ち消す", ["打ち消す"]),
        ("アンタップ・ステップ", ["アンタップ・ステップ"]),
    ],
)
def test_japanese_janome(text: str, expected: list[str]) -> None:
    pytest.importorskip("janome")
    assert [t for t, _, _ in analysis.analyze_ja(text, "janome")] == expected


@pytest.mark.parametrize("backend", ["sudachi", "janome"])
def test_japanese_spans_point_at_the_words(backend: str) -> None:
    if backend == "janome":
        pytest.importorskip("janome")
    text = "ＭＴＧでは、プレイヤーは呪文を唱えた。"
    norm = normalize(text).lower()
    spans = analysis.analyze_ja(text, backend)
    assert [norm[s:e] for _, s, e in spans] == ["mtg", "プレイヤー", "呪文", "唱え"]


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


# ---- long Japanese texts: SudachiPy refuses inputs over 49,149 bytes ----------------------

SENTENCE = "各プレイヤーは、優先権を得るたびに状況起因処理を確認する。"


def test_split_long_rejoins_and_fits_sudachi() -> None:
    text = ("優先権" * 9000 + "\n") * 3 + "、".join(["呪文"] * 20000)
    pieces = split_long(text)
    assert "".join(p for _, p in pieces) == text
    assert all(text[o : o + len(p)] == p for o, p in pieces)
    assert all(len(p.encode("utf-8")) <= 49149 for _, p in pieces)
    assert len(pieces) > 3


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("ab\ncd。ef", 6, ["ab\n", "cd。ef"]),  # a line end first
        ("abcd。efgh。ij", 8, ["abcd。", "efgh。ij"]),  # else a sentence end
        ("abcd、efgh", 7, ["abcd、", "efgh"]),  # else a clause end
        ("abcdefghij", 4, ["abcd", "efgh", "ij"]),  # else the limit
        ("short", 10, ["short"]),
    ],
)
def test_split_long_prefers_line_then_sentence_ends(
    text: str, limit: int, expected: list[str]
) -> None:
    assert [p for _, p in split_long(text, limit)] == expected


@pytest.mark.parametrize("size", [10_000, 100_000])
@pytest.mark.parametrize("sep", ["\n", ""])
def test_long_japanese_text_is_analysed_whole(size: int, sep: str) -> None:
    unit = SENTENCE + sep
    count = size // len(unit.encode("utf-8")) + 1
    text = unit * count
    assert len(text.encode("utf-8")) > size
    one = analysis.analyze_ja(unit)
    spans = analysis.analyze_ja(text)
    # Cut at a line or sentence end, the long text gives every sentence's terms at its offset.
    assert spans == [
        (t, s + k * len(unit), e + k * len(unit)) for k in range(count) for t, s, e in one
    ]


def test_text_without_breaks_is_cut_by_size_and_offsets_stay_right() -> None:
    text = "優先権" * 40_000  # 360 KB, no line, sentence or clause end
    spans = analysis.analyze_ja(text)
    assert len(spans) >= 2 * 40_000 - 10  # 優先 + 権 each time, give or take the cuts
    assert all(0 <= s < e <= len(text) for _, s, e in spans)
    assert all(text[s:e] == t for t, s, e in spans)
    assert all(a[2] <= b[1] for a, b in itertools.pairwise(spans))


def test_unknown_japanese_analyser_is_named() -> None:
    with pytest.raises(analysis.JaAnalyzerError, match="unknown Japanese analyser 'mecab'"):
        analysis.ja_backend("mecab")


def test_missing_janome_says_which_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(japanese, "_backends", {})
    monkeypatch.setitem(sys.modules, "janome", None)
    monkeypatch.setitem(sys.modules, "janome.tokenizer", None)
    with pytest.raises(analysis.JaAnalyzerError, match="needs the package janome"):
        analysis.ja_backend("janome")


def test_a_lone_surrogate_in_a_query_is_a_space(searcher) -> None:
    # Before: the Japanese analyser raised UnicodeEncodeError from deep inside the search.
    assert clean_query("a\ud800b\udfff") == "a b "
    assert searcher.search("priority\ud800").hits


def test_after_is_a_word_of_the_rules_not_a_stop_word() -> None:
    # "priority after a spell resolves" (117.3b): the order of events is what is asked.
    assert terms("priority after a spell resolves", "en") == [
        "prioriti",
        "after",
        "spell",
        "resolv",
    ]


def test_the_build_cache_knows_every_module_the_analysis_runs() -> None:
    # The build keeps each text's analysis, keyed by the source of the code computing it: a
    # module of the analysis missing there would let a changed stop word list go unnoticed.
    import inspect
    from pathlib import Path

    from kb.base.buildcache import CODE
    from kb.base.paths import PACKAGE_DIR
    from kb.search import stopwords

    modules = {stopwords, japanese, analysis}
    modules |= {inspect.getmodule(v) for v in vars(analysis).values() if inspect.isfunction(v)}
    modules |= {v for v in vars(analysis).values() if inspect.ismodule(v)}
    ours = {
        Path(m.__file__).resolve().relative_to(PACKAGE_DIR.resolve()).as_posix()
        for m in modules
        if m is not None and Path(m.__file__).resolve().is_relative_to(PACKAGE_DIR.resolve())
    }
    assert {"search/analysis.py", "search/stopwords.py", "search/japanese.py"} <= ours
    assert ours <= set(CODE["analysis"])
