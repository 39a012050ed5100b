"""Rule numbers and ranges in every spelling the reference finder reads reach the number path."""

from __future__ import annotations

import pytest

from .conftest import EN_NEW


@pytest.mark.parametrize("query", ["CR 117.3b", "ルール117.3b", "「ルール117.3b」", "règle 117.3b"])
def test_prefixed_and_bracketed_numbers_find_the_rule(searcher, query: str) -> None:
    result = searcher.search(query, lang="en")
    assert result.hits[0].number == "117.3b"
    assert result.hits[0].edition == EN_NEW


def test_a_range_lists_its_rules_and_names_the_missing_numbers(searcher) -> None:
    result = searcher.search("117.3b-d", lang="en")
    assert [h.number for h in result.hits] == ["117.3b"]
    missing = [n for n in result.notes if n.code == "range_missing"]
    assert missing and missing[0].params["numbers"] == ["117.3c", "117.3d"]


def test_a_range_with_no_rule_says_there_is_none(searcher) -> None:
    result = searcher.search("998.1a-c", lang="en")
    assert not result.hits
    assert "998.1a" in result.message


def test_words_with_a_number_still_search_text(searcher) -> None:
    result = searcher.search("rule 117.3b priority", lang="en")
    assert all(n.code != "range_missing" for n in result.notes)
