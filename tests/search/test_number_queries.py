"""Rule numbers and ranges in every spelling the reference finder reads reach the number path."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.knowledge.printed import PRINTED_AS
from kb.search import Searcher, build_index

from .conftest import EN_NEW, EN_OLD, _rule, small_kb


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


@pytest.mark.parametrize(("lang", "edition"), [(None, None), ("en", None), ("en", EN_OLD)])
def test_a_misprinted_number_finds_the_rule_printed_so(tmp_path: Path, lang, edition) -> None:
    # An edition printed 116.55 for its 116.6 (as 2010-06-18 printed 505.54 for 505.5): the
    # search said there was no rule 116.55, while `kb rule 116.55` showed 116.6.
    kb = small_kb()
    misprinted = _rule(EN_OLD, "en", "116.6", "Players may cast spells.", "117.5")
    misprinted.flags.append(f"{PRINTED_AS}116.55")
    kb.rules[EN_OLD]["116.6"] = misprinted
    build_index(kb, tmp_path)
    with Searcher(tmp_path, kb) as searcher:
        result = searcher.search("116.55", lang=lang, edition=edition)
        assert [(h.number, h.edition) for h in result.hits] == [("116.6", EN_OLD)]
        told = [n for n in result.notes if n.code.startswith("renumbered")]
        assert told and told[0].params["number"] == "116.55"
        assert told[0].params["canonical"] == "117.5"
        assert not searcher.search("116.56", lang=lang, edition=edition).hits
