"""An excluded word excludes its translations through the term base, as a searched word finds
them; a query of only exclusions has nothing to search for, in every language scope."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.knowledge.model import LANGS, KnowledgeBase, Term
from kb.search import Searcher, build_index
from tests.search.conftest import small_kb


@pytest.fixture(scope="module")
def kb_players() -> KnowledgeBase:
    kb = small_kb()
    # "active player" is in the English, French and Japanese texts of 117.3b, with "priority".
    kb.terms.append(
        Term("active-player", ["active player"], ["joueur actif"], ["アクティブ・プレイヤー"], [])
    )
    return kb


@pytest.fixture(scope="module")
def players(
    kb_players: KnowledgeBase, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Searcher]:
    path: Path = tmp_path_factory.mktemp("exclusion")
    build_index(kb_players, path)
    with Searcher(path, kb_players) as s:
        yield s


@pytest.mark.parametrize(
    "query", ["-priority", "NOT priority", "-priorité", "-優先権", "-priority -stack"]
)
@pytest.mark.parametrize("lang", [None, "en", "fr", "ja"])
def test_only_exclusions_is_nothing_to_search(
    players: Searcher, query: str, lang: str | None
) -> None:
    result = players.search(query, lang=lang)
    assert result.hits == []
    assert result.total == 0
    assert [n.code for n in result.notes][-1] == "nothing_to_search"


@pytest.mark.parametrize("lang", ["fr", "ja"])
def test_searched_word_does_reach_the_translations(players: Searcher, lang: str) -> None:
    # The premise of the next test: without the exclusion, the quote of 117.3b is found.
    hits = players.search("active player", lang=lang, limit=50).hits
    assert any(h.canonical == "117.3b" for h in hits)


@pytest.mark.parametrize("exclusion", ["-priority", "NOT priority", "-priorité", "-優先権"])
@pytest.mark.parametrize("lang", [None, "en", "fr", "ja"])
def test_exclusion_excludes_the_translations(
    players: Searcher, exclusion: str, lang: str | None
) -> None:
    result = players.search(f"active player {exclusion}", lang=lang, limit=50)
    assert not any(h.canonical == "117.3b" for h in result.hits)
    for hit in result.hits:
        text = f"{hit.title} {hit.snippet}".lower()
        assert not any(w in text for w in ("priority", "priorité", "優先権")), hit


def test_exclusion_inside_a_group_excludes_translations(players: Searcher) -> None:
    for lang in ("fr", "ja"):
        result = players.search("(active player -priority) OR land", lang=lang, limit=50)
        assert not any(h.canonical == "117.3b" for h in result.hits)


def test_an_excluded_concept_raises_none_of_its_rules(players: Searcher) -> None:
    assert "117" in players._compile("stack priority", LANGS, None).boosts
    assert "117" not in players._compile("stack -priority", LANGS, None).boosts
