"""The query compiler's shortcuts give what the long way gives: plain words parsed without the
parser, corrections written in without a regular expression, words' facts remembered across
queries (bounded), and a query compiled again equal to its first compilation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.knowledge.model import LANGS
from kb.search import Searcher
from kb.search import compiler as compiler_module
from kb.search.query import MAX_NODES, MAX_QUERY, parse, parse_syntax
from kb.search.wording import replace_word

from .conftest import small_kb

#: Pieces of queries: words, operators, quotes, parentheses, prefixes, field syntax, spaces.
_PIECES = st.sampled_from(
    [
        *("priority", "mana", "É", "état", "優先権", "x-y", "can't", "1.2", "'", "-", "ANDy"),
        *("AND", "OR", "NOT", "&&", "||", "-stack", '"', "(", ")", "*", "ab*", "f:v"),
        *(" ", "  ", "\t", "\u3000"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_PIECES, st.sampled_from(["", " "])), max_size=10))
def test_plain_words_parse_as_the_parser_reads_them(pieces: list[tuple[str, str]]) -> None:
    text = "".join(a + b for a, b in pieces)
    assert parse(text) == parse_syntax(text)


@pytest.mark.parametrize("count", [MAX_NODES - 1, MAX_NODES, MAX_NODES + 1, MAX_NODES + 5])
def test_the_word_limit_is_the_parsers(count: int) -> None:
    text = " ".join(["word"] * count)
    assert parse(text) == parse_syntax(text)
    assert parse(text).notes == ([] if count <= MAX_NODES else parse_syntax(text).notes)


def test_a_long_query_is_cut_with_its_note() -> None:
    text = "wordy " * (MAX_QUERY // 12) + "x" * MAX_QUERY
    assert [n.code for n in parse(text).notes] == ["query_cut"]
    assert parse(text) == parse_syntax(text)


@settings(max_examples=600, deadline=None)
@given(
    st.text(alphabet="ab_ é1'-?.x優", max_size=14),
    st.text(alphabet="ab_ é1'-?.x優", min_size=1, max_size=3),
    st.sampled_from(["Z", "mana ability", ""]),
)
def test_a_correction_replaces_whole_words_as_the_pattern_would(
    text: str, wrong: str, right: str
) -> None:
    expected = re.sub(rf"(?<!\w){re.escape(wrong)}(?!\w)", lambda _m: right, text)
    assert replace_word(text, wrong, right) == expected


def test_an_empty_word_replaces_nothing() -> None:
    assert replace_word("state based", "", "x") == "state based"


@pytest.fixture()
def searcher(tmp_path: Path):
    from kb.search import build_index

    kb = small_kb()
    build_index(kb, tmp_path)
    with Searcher(tmp_path, kb) as found:
        yield found


_QUERIES = [
    "priority",
    "tapped creatures",
    "the player receives priority",
    "two blockers untapped",
    "prioirty stak",
    "manaability",
    "-priority stack",
    '"state-based actions" OR mana',
    "priorité du joueur",
    "優先権を得る",
    "trigg*",
]


def _compiled(searcher: Searcher, query: str):
    out = searcher._compile(query, LANGS, None)
    return (
        repr(out.query),
        out.marks,
        out.corrections,
        out.known,
        out.unknown,
        out.glossary,
        out.boosts,
        out.order,
    )


def test_remembered_words_compile_as_new_ones(searcher: Searcher) -> None:
    """Each query compiled with the words' facts cold, then warm (other queries first, the
    query cache cleared), compiles to the same query, marks and corrections."""
    cold = {}
    for query in _QUERIES:
        searcher._compiler._word_cache.clear()
        searcher._compiler._variant_cache.clear()
        searcher._compiler._clause_cache.clear()
        searcher._compiler._phrase_cache.clear()
        searcher.clear_caches()
        cold[query] = _compiled(searcher, query)
    for query in reversed(_QUERIES):
        searcher.clear_caches()
        assert _compiled(searcher, query) == cold[query], query
    compiler = searcher._compiler
    assert compiler._word_cache and compiler._variant_cache and compiler._clause_cache
    assert compiler._phrase_cache


def test_the_words_remembered_are_bounded(
    searcher: Searcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiler_module, "WORD_CACHE", 4)
    for i in range(20):
        searcher.clear_caches()
        searcher.search(f"priority word{i} other{i}")
    compiler = searcher._compiler
    assert 0 < len(compiler._word_cache) <= 4
    assert 0 < len(compiler._variant_cache) <= 4
    assert 0 < len(compiler._clause_cache) <= 4
    assert len(compiler._phrase_cache) <= 4
    # The newest words are the ones kept.
    assert any("other19" in key[0] for key in compiler._word_cache)


def test_a_query_text_is_not_remembered_as_a_word(searcher: Searcher) -> None:
    """Only single words are kept across queries: never a query's whole text."""
    searcher.clear_caches()
    searcher.search("stack tapped creatures")
    assert all(key[0].split() == [key[0]] for key in searcher._compiler._word_cache)
