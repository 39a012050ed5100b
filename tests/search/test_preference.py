"""The reader's language first (``prefer_lang``), examples below rules, example snippets in prose."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.knowledge.model import Commentary, ExampleInfo, KnowledgeBase
from kb.search import Searcher, SearchError, build_index
from kb.search.documents import example_prose, example_script

from .conftest import small_kb

EXAMPLE_MD = """# The active player receives priority after a resolution

rules: 117.3b

After a spell resolves, the active player receives priority again, whoever cast it.

```game
players: Alice, Bob
turn: Alice, precombat main
Alice casts Shock targeting Bob
Bob passes
? priority: Alice
```
"""


def _with_examples() -> KnowledgeBase:
    kb = small_kb()
    kb.content_hash = "test-hash-preference"
    kb.examples = [
        ExampleInfo(
            f"priority-{i}",
            f"Priority example {i}: the active player receives priority",
            f"ex{i}.md",
            ["117.3b"],
            EXAMPLE_MD,
            True,
        )
        for i in range(12)
    ]
    kb.commentary = [
        *kb.commentary,
        Commentary("ja-c1", "ja", "優先権を持つプレイヤーだけが呪文を唱えられる。", "ja-wiki.txt"),
    ]
    return kb


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory):
    kb = _with_examples()
    path = tmp_path_factory.mktemp("index-pref")
    build_index(kb, path)
    with Searcher(Path(path), kb) as s:
        yield s


def test_japanese_reader_sees_japanese_texts_first(searcher: Searcher) -> None:
    result = searcher.search("優先権", prefer_lang="ja")
    langs = [h.lang for h in result.hits]
    assert langs[0] == "ja", [(h.kind, h.lang, h.title) for h in result.hits]
    assert {"ja", "en"} <= set(langs)
    assert all(h.cross_language == (h.lang != "ja") for h in result.hits)
    # Rule 117 (Timing and Priority) is on the first page, in some language.
    assert any((h.canonical or "").startswith("117") for h in result.hits[:5])


def test_french_reader_sees_french_texts_first(searcher: Searcher) -> None:
    result = searcher.search("priorité", prefer_lang="fr")
    assert result.hits[0].lang == "fr"
    assert not result.hits[0].cross_language
    english = [h for h in result.hits if h.lang == "en"]
    assert english and all(h.cross_language for h in english)


def test_preference_changes_order_not_results(searcher: Searcher) -> None:
    plain = searcher.search("priority", limit=50)
    preferred = searcher.search("priority", limit=50, prefer_lang="ja")
    assert plain.total == preferred.total
    assert {(h.kind, h.key, h.lang) for h in plain.hits} == {
        (h.kind, h.key, h.lang) for h in preferred.hits
    }


def test_language_filter_wins_over_preference(searcher: Searcher) -> None:
    result = searcher.search("priority", lang="en", prefer_lang="ja")
    assert result.hits and all(h.lang == "en" and not h.cross_language for h in result.hits)


def test_unknown_preferred_language_is_refused(searcher: Searcher) -> None:
    with pytest.raises(SearchError, match="unknown language"):
        searcher.search("priority", prefer_lang="de")


def test_examples_rank_below_rules(searcher: Searcher) -> None:
    kinds = [h.kind for h in searcher.search("active player receives priority", limit=20).hits]
    assert "example" in kinds
    first_example = kinds.index("example")
    assert first_example > 0 and all(k != "example" for k in kinds[:first_example])
    assert any(k in ("rule", "subrule", "section") for k in kinds[:first_example])


def test_examples_first_when_asked_for(searcher: Searcher) -> None:
    assert searcher.search("example active player receives priority").hits[0].kind == "example"


def test_example_snippet_is_prose_not_script(searcher: Searcher) -> None:
    hits = [h for h in searcher.search("priority", kind="example").hits]
    assert hits
    for hit in hits:
        assert "whoever cast it" in hit.snippet
        assert "Bob passes" not in hit.snippet and "```" not in hit.snippet
        assert not hit.snippet.startswith("#")


def test_script_words_still_find_the_example(searcher: Searcher) -> None:
    hits = searcher.search("Shock", kind="example").hits
    assert hits and hits[0].kind == "example"


def test_prose_and_script_split() -> None:
    prose = example_prose(EXAMPLE_MD)
    assert prose == (
        "After a spell resolves, the active player receives priority again, whoever cast it."
    )
    assert example_script(EXAMPLE_MD).splitlines()[0] == "players: Alice, Bob"
    assert example_prose("# Title only") == ""
