"""A trailing ``*`` searches the words starting with what precedes it; one that no word of the
rules starts with finds no results, and says so rather than "only common words or exclusions"."""

from __future__ import annotations

import pytest

from kb.search import Searcher


@pytest.mark.parametrize("lang", [None, "en", "fr", "ja"])
def test_prefix_matching_no_word_is_no_results(searcher: Searcher, lang: str | None) -> None:
    result = searcher.search("zqx*", lang=lang)
    assert result.hits == [] and result.total == 0
    assert [n.code for n in result.notes] == ["no_results"]
    assert "common words" not in result.message


def test_prefix_expands_to_the_words_it_starts(searcher: Searcher) -> None:
    result = searcher.search("prio*", lang="en", limit=20)
    assert result.hits and all("priorit" in h.snippet.lower() for h in result.hits)
    assert "<mark>priority</mark>" in " ".join(h.snippet for h in result.hits)


def test_too_short_wildcard_is_told_then_no_results(searcher: Searcher) -> None:
    result = searcher.search("ab*")
    assert [n.code for n in result.notes] == ["short_wildcard", "no_results"]
    assert result.message == "'ab*': a wildcard needs at least 3 characters before '*'. No results."


@pytest.mark.parametrize("query", ["the", "-zqx*", "the of -priority"])
def test_only_common_words_or_exclusions_is_still_nothing_to_search(
    searcher: Searcher, query: str
) -> None:
    result = searcher.search(query)
    assert [n.code for n in result.notes][-1] == "nothing_to_search"
