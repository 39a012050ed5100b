"""Shortcuts taken for search latency give what the long way gives: rule ancestors cut as text,
the question frames' single pattern, the Japanese analyser's parts of speech read by number,
and the proximity of a text's words read from the postings."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.knowledge.model import ancestor_numbers as _ancestors
from kb.search.ranking import _proximity
from kb.search.wording import _FRAME_RE, _FRAMES
from kb.text.rulenum import LETTERS, try_parse


def _parsed_ancestors(number: str) -> tuple[str, ...]:
    parsed = try_parse(number)
    return tuple(str(a) for a in parsed.ancestors()) if parsed else ()


@pytest.mark.parametrize(
    "number",
    [
        *("117.3b", "117.3", "117", "1", "9", "702.19c", "117.0", "117.03", "099", "117."),
        *("117.3B", "r117.3b", "117.3 b", "１１７．３ａ", "117.1000", "1.1", "abc", ""),
    ],
)
def test_rule_ancestors_cut_as_text_are_the_parsed_ones(number: str) -> None:
    assert _ancestors.__wrapped__(number) == _parsed_ancestors(number)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="0123456789.abclzB ", max_size=9))
def test_random_numbers_have_the_parsed_ancestors(number: str) -> None:
    assert _ancestors.__wrapped__(number) == _parsed_ancestors(number)


def test_every_form_of_rule_number_has_the_parsed_ancestors() -> None:
    numbers = [
        f"{rule}.{subrule}{letter}" if subrule is not None else str(rule)
        for rule in range(100, 1000, 37)
        for subrule in (None, *range(0, 41))
        for letter in ("", *LETTERS)
        if subrule is not None or not letter
    ]
    assert [n for n in numbers if _ancestors.__wrapped__(n) != _parsed_ancestors(n)] == []


#: Each Latin frame with its own start-of-word test, as the pattern was written before.
_ONE_BY_ONE = {
    lang: re.compile(
        "|".join(f"(?<![\\w-])(?:{p})(?:(?<=')|(?![\\w-]))" for p in patterns), re.IGNORECASE
    )
    for lang, patterns in _FRAMES.items()
    if lang != "ja"
}
_FRAME_PIECES = st.sampled_from(
    [
        *("what happens if", "how does", "can i", "que se passe-t-il", "est-ce qu'", "puis-je"),
        *("work", "works with", "question", "x", "-", "'", "?", " ", "  ", "priority", "l'", "ok"),
    ]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_FRAME_PIECES, max_size=8))
def test_the_frames_single_pattern_removes_what_each_frame_did(pieces: list[str]) -> None:
    text = "".join(pieces)
    for lang, one_by_one in _ONE_BY_ONE.items():
        assert _FRAME_RE[lang].sub(" ", text) == one_by_one.sub(" ", text)


def test_japanese_parts_of_speech_read_by_number_are_the_morphemes_own() -> None:
    from sudachipy import Dictionary

    from kb.search.analysis import analyze_ja
    from kb.search.japanese import SUDACHI_DICT, SUDACHI_MODE, _sudachi

    text = "対象が不適正になった呪文はどうなる？マナ能力はスタックを使うか"
    tok = Dictionary(dict=SUDACHI_DICT).tokenizer(mode=SUDACHI_MODE)
    own = [
        (m.dictionary_form(), m.part_of_speech()[0], m.begin(), m.end()) for m in tok.tokenize(text)
    ]
    assert _sudachi()(text) == own
    assert analyze_ja(text)


@pytest.mark.parametrize(
    ("seq", "pairs"),
    [
        (("a", "b", "c", "a", "x", "x", "x", "b"), [("a", "b"), ("b", "c")]),
        (("a", "x", "x", "x", "b"), [("a", "b")]),
        (("b", "a"), [("a", "b")]),
        (("a",), [("a", "b")]),
    ],
)
def test_proximity_with_the_words_known_is_the_same(seq: tuple[str, ...], pairs) -> None:
    words = frozenset(t for pair in pairs for t in pair)
    present = set(words.intersection(seq))
    assert _proximity(seq, pairs, 3, words, present) == _proximity(seq, pairs, 3)


@settings(max_examples=1500, deadline=None)
@given(
    st.text(alphabet="aAéÉeEsS'’ -.1İǅﬁßœ優xyzLd", max_size=30),
    st.sampled_from(["en", "en_plain", "fr", "fr_plain"]),
)
def test_terms_without_offsets_are_the_analysers(text: str, analyzer: str) -> None:
    from kb.search.analysis import ANALYZERS, _latin_word_texts, _latin_words, terms

    assert terms(text, analyzer) == [t for t, _, _ in ANALYZERS[analyzer](text)]
    assert _latin_word_texts(text) == [w for w, _, _ in _latin_words(text)]


def test_rule_hits_made_again_from_their_facts_are_the_same(searcher, monkeypatch) -> None:
    """A current rule's hit copied from its remembered facts is the hit made anew; the facts
    remembered are bounded."""
    from kb.search import hits as hits_module

    queries = ["priority", "stack", "mana ability", "priorité", "優先権"]
    searcher._hits._rule_facts.clear()
    first = [[h.to_json() for h in searcher.search(q).hits] for q in queries]
    assert searcher._hits._rule_facts
    assert [[h.to_json() for h in searcher.search(q).hits] for q in queries] == first
    monkeypatch.setattr(hits_module, "_RULE_FACTS", 3)
    searcher._hits._rule_facts.clear()
    for q in queries:
        searcher.search(q, lang="en")
    assert 0 < len(searcher._hits._rule_facts) <= 3
