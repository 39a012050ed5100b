"""Searching the small trilingual index: query forms, filters, grouping, cross-language, bad input."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from whoosh import index as whoosh_index

from kb.cli.search import run_search_command
from kb.knowledge.model import Rule
from kb.search import (
    Searcher,
    SearchError,
    analysis,
    build_index,
    index_is_current,
)
from kb.search.indexer import FORMAT, HEAD_FILE, INDEX_NAME
from kb.search.query import Group, Phrase, Word, parse

from .conftest import EN_NEW, EN_OLD, FR, JA, small_kb


def numbers(result) -> list[str | None]:
    return [h.number for h in result.hits]


# ---- the index -----------------------------------------------------------------------------
def test_build_reports_stats_and_skips_when_current(kb, tmp_path: Path) -> None:
    stats = build_index(kb, tmp_path)
    assert stats["docs"] > 0 and stats["bytes"] > 0 and not stats["skipped"]
    assert index_is_current(kb, tmp_path)
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    again = build_index(kb, tmp_path)
    assert again["skipped"]
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before


def test_changed_content_is_not_current(kb, tmp_path: Path) -> None:
    build_index(kb, tmp_path)
    other = small_kb()
    other.content_hash = "something else"
    assert not index_is_current(other, tmp_path)
    assert not index_is_current(kb, tmp_path / "missing")
    assert not build_index(other, tmp_path)["skipped"]
    assert index_is_current(other, tmp_path)


def test_index_of_another_japanese_analyser_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("janome")
    kb = small_kb()
    rule = Rule(
        JA,
        "ja",
        "701.6a",
        "subrule",
        "呪文を打ち消すとは、それを取り除くことである。",
        canonical="701.6a",
    )
    kb.rules[JA][rule.number] = rule
    with monkeypatch.context() as m:
        m.setattr(analysis, "JA_DEFAULT", "janome")
        build_index(kb, tmp_path)
        assert index_is_current(kb, tmp_path)
        meta = json.loads((tmp_path / "meta.json").read_text(encoding="utf-8"))
        assert meta["ja_analyzer"].startswith("janome janome-")
        janome_terms = _body_ja_terms(tmp_path)
    monkeypatch.setattr(analysis, "JA_DEFAULT", "sudachi")
    assert not index_is_current(kb, tmp_path)
    assert not build_index(kb, tmp_path)["skipped"]
    assert index_is_current(kb, tmp_path)
    meta = json.loads((tmp_path / "meta.json").read_text(encoding="utf-8"))
    assert meta["ja_analyzer"].startswith("sudachi:A sudachipy-")
    assert meta["format"] == FORMAT
    # janome keeps the compound verb whole, Sudachi (mode A) indexes its parts.
    sudachi_terms = _body_ja_terms(tmp_path)
    assert "打ち消す" in janome_terms and "打ち消す" not in sudachi_terms
    assert {"打つ", "消す"} <= sudachi_terms


@pytest.mark.parametrize("head", [True, False])
def test_index_of_an_older_format_is_rebuilt(kb, tmp_path: Path, head: bool) -> None:
    # As an older version wrote it: its format in meta.json and in the head file, or in
    # meta.json alone (versions before the head file).
    build_index(kb, tmp_path)
    for name in ("meta.json", HEAD_FILE):
        path = tmp_path / name
        if name == HEAD_FILE and not head:
            path.unlink()
            continue
        meta = json.loads(path.read_text(encoding="utf-8"))
        meta["format"] = FORMAT - 1
        path.write_text(json.dumps(meta), encoding="utf-8")
    assert not index_is_current(kb, tmp_path)
    assert not build_index(kb, tmp_path)["skipped"]
    assert index_is_current(kb, tmp_path)


def _body_ja_terms(index_dir: Path) -> set[str]:
    """The Japanese body terms of the Whoosh index in ``index_dir``."""
    ix = whoosh_index.open_dir(str(index_dir), indexname=INDEX_NAME)
    try:
        with ix.reader() as reader:
            return {t.decode("utf-8") for t in reader.lexicon("body_ja")}
    finally:
        ix.close()


# ---- words, phrases, operators, prefixes ------------------------------------------------------
def test_free_words_find_stemmed_forms(searcher) -> None:
    result = searcher.search("resolving spells", lang="en")
    assert "117.3b" in numbers(result)


def test_phrase_requires_words_together(searcher) -> None:
    result = searcher.search('"state-based actions"', lang="en")
    assert "117.5" in numbers(result)
    assert "704.5a" not in numbers(result)
    assert searcher.search('"actions state-based"', lang="en").total == 0


def test_and_or_not(searcher) -> None:
    both = numbers(searcher.search("mana AND stack", lang="en"))
    assert both and set(both) <= {"605.3a"}
    either = numbers(searcher.search("life OR land", lang="en"))
    assert {"704.5a", "116.2a"} <= set(either)
    without = numbers(searcher.search("stack NOT mana", lang="en"))
    assert "116.2a" in without and "605.3a" not in without
    assert "605.3a" not in numbers(searcher.search("stack -mana", lang="en"))


def test_prefix(searcher) -> None:
    result = searcher.search("respon*", lang="en")
    assert {"116.2a", "605.3a"} <= set(numbers(result))


def test_parser_repairs_and_structure() -> None:
    assert parse("a b").tree == Group((Word("a"), Word("b")))
    assert parse('"x y').tree == Phrase("x y")
    assert parse('"x y').notes
    assert parse("trigg*").tree == Word("trigg", prefix=True)
    assert parse("((a)").notes and parse("a)").notes
    assert parse("*").tree is None


# ---- rule numbers -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "query", ["117.3b", "rule 117.3b", "r117.3b", "117.3 b", "１１７．３ｂ", "Rule 117.3b."]
)
def test_rule_number_spellings(searcher, query: str) -> None:
    result = searcher.search(query, lang="en")
    assert result.hits[0].number == "117.3b"
    assert result.hits[0].edition == EN_NEW


def test_old_number_with_edition_says_what_it_is_now(searcher) -> None:
    result = searcher.search("116.3b", lang="en", edition="2016-11-11")
    hit = result.hits[0]
    assert (hit.number, hit.edition, hit.canonical) == ("116.3b", EN_OLD, "117.3b")
    assert "117.3b" in result.message


def test_rule_number_lists_the_rule_then_its_subtree(searcher) -> None:
    result = searcher.search("117", lang="en")
    assert numbers(result) == ["117", "117.3b", "117.5"]


def test_unknown_rule_number_answers_with_neighbours(searcher) -> None:
    result = searcher.search("117.9z", lang="en")
    assert result.total == 0 and "117.9z" in result.message


def test_number_inside_words_ranks_that_rule(searcher) -> None:
    result = searcher.search("117.5 priority", lang="en")
    assert result.hits[0].number == "117.5"


# ---- glossary, typos ---------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["priority", "Priority", "what is priority", "SBA"])
def test_glossary_term_and_alias_first(searcher, query: str) -> None:
    hit = searcher.search(query, lang="en").hits[0]
    assert hit.kind == "glossary"
    assert hit.key in {"priority", "state-based actions"}


def test_a_word_of_one_language_is_no_typo_in_another(searcher) -> None:
    # Searching every language, "priority" is not corrected to the French index's "priorite".
    result = searcher.search("priority")
    assert result.hits and result.suggestion is None
    assert searcher.search("priorty").suggestion == "priority"


def test_typo_finds_the_word_and_suggests(searcher) -> None:
    result = searcher.search("priorty", lang="en")
    assert result.total > 0
    assert result.suggestion == "priority"


def test_suggest_completes_words_and_terms(searcher) -> None:
    out = searcher.suggest("prio", "en")
    assert "Priority" in out and "priority" in out
    assert searcher.suggest("", "en") == []


# ---- filters and defaults ---------------------------------------------------------------------
def test_default_edition_is_the_newest_version(searcher) -> None:
    result = searcher.search("priority", lang="en", kind="rule")
    assert {h.edition for h in result.hits} == {EN_NEW}
    assert "999.1" not in numbers(searcher.search("mana burn", lang="en"))


def test_edition_filter(searcher) -> None:
    result = searcher.search("priority", lang="en", edition="2016-11-11", kind="rule")
    assert result.hits and {h.edition for h in result.hits} == {EN_OLD}
    assert "116.3b" in numbers(result)
    assert "999.1" in numbers(searcher.search("mana burn", lang="en", edition=EN_OLD))


def test_kind_filter(searcher) -> None:
    assert {h.kind for h in searcher.search("priority", lang="en", kind="glossary").hits} == {
        "glossary"
    }
    assert {h.kind for h in searcher.search("priorité", lang="fr", kind="tournament").hits} == {
        "tournament"
    }


def test_partial_language_default_keeps_quoted_rules(searcher) -> None:
    result = searcher.search("priorité", lang="fr", kind="rule")
    assert result.hits and {h.edition for h in result.hits} == {FR}


# ---- grouping, highlighting, paging ------------------------------------------------------------
def test_same_rule_across_languages_is_one_hit(searcher) -> None:
    result = searcher.search("priority priorité 優先権", kind="rule")
    canon = [h.canonical for h in result.hits]
    assert len(canon) == len(set(canon))
    hit = next(h for h in result.hits if h.canonical == "117.3b")
    assert {EN_OLD, EN_NEW, FR, JA} <= set(hit.editions)


def test_editions_listed_for_one_language(searcher) -> None:
    hit = next(h for h in searcher.search("priority", lang="en").hits if h.number == "117.3b")
    assert hit.editions == [EN_OLD, EN_NEW]


def test_snippet_marks_and_escapes(kb, tmp_path: Path) -> None:
    kb = small_kb()
    kb.rules[EN_NEW]["117.3b"].text = "A <b>player</b> & resolving spells receive priority."
    build_index(kb, tmp_path)
    with Searcher(tmp_path, kb) as s:
        hit = next(h for h in s.search("resolve", lang="en").hits if h.number == "117.3b")
    assert "&lt;b&gt;player&lt;/b&gt; &amp; <mark>resolving</mark>" in hit.snippet
    assert "<b>" not in hit.snippet


def test_paging(searcher) -> None:
    first = searcher.search("player", lang="en", limit=2, page=1)
    second = searcher.search("player", lang="en", limit=2, page=2)
    assert first.total == second.total >= 3
    assert first.pages == second.pages == (first.total + 1) // 2
    assert not {h.number for h in first.hits} & {h.number for h in second.hits}
    beyond = searcher.search("player", lang="en", limit=2, page=99)
    assert beyond.hits == [] and "page" in beyond.message


# ---- cross-language ---------------------------------------------------------------------------
def test_japanese_query_finds_english_rule(searcher) -> None:
    result = searcher.search("優先権", lang="en", kind="rule")
    assert result.hits and result.hits[0].canonical.startswith("117")
    assert all(h.cross_language for h in result.hits)


def test_english_query_finds_french_text(searcher) -> None:
    result = searcher.search("state-based actions", lang="fr")
    assert result.hits[0].canonical == "117.5"
    assert result.hits[0].cross_language
    assert "<mark>actions</mark> <mark>basées</mark>" in result.hits[0].snippet


def test_french_query_finds_japanese_rule(searcher) -> None:
    result = searcher.search("action spéciale", lang="ja")
    assert "116.2a" in [h.canonical for h in result.hits]


def test_native_hits_are_not_cross_language(searcher) -> None:
    result = searcher.search("quand est-ce que je reçois la priorité", lang="fr")
    assert result.hits and not result.hits[0].cross_language


# ---- bad input never raises --------------------------------------------------------------------
@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "the of and",
        '"unbalanced',
        "(priority",
        "priority)",
        "*",
        "a*",
        "x" * 10_000,
        "priority " * 2000,
        "\x00\x01priority\x7f",
        "title:priority",
        "NOT priority",
        "AND OR NOT",
        "((((((((((",
        '"""',
        "-",
        "🂡",
    ],
)
def test_bad_input_gives_a_message_not_an_error(searcher, query: str) -> None:
    result = searcher.search(query, lang="en")
    payload = result.to_json()
    json.dumps(payload)
    # The page is consistent with the total, whatever the input.
    assert len(result.hits) == min(payload["total"], 10)
    assert payload["pages"] == -(-payload["total"] // 10)
    if not result.hits:
        assert result.message
    # Stray punctuation and control characters around a word still find the word.
    if query.strip("()\x00\x01\x7f ").split(" ")[0] == "priority":
        assert "117" in {(h.canonical or "").split(".")[0] for h in result.hits}


def test_unknown_field_syntax_searches_the_words(searcher) -> None:
    result = searcher.search("title:priority", lang="en")
    assert result.hits and "field syntax" in result.message


def test_unknown_language_and_edition_are_refused(searcher) -> None:
    with pytest.raises(SearchError, match="language"):
        searcher.search("priority", lang="de")
    with pytest.raises(SearchError, match="edition"):
        searcher.search("priority", lang="en", edition="1999-01-01")
    with pytest.raises(SearchError, match="edition"):
        searcher.search("priority", edition="nope")


def test_unknown_kind_is_a_message(searcher) -> None:
    result = searcher.search("priority", kind="card")
    assert result.total == 0 and "kind" in result.message


def test_limit_and_page_are_clamped(searcher) -> None:
    result = searcher.search("player", lang="en", limit=0, page=-3)
    assert result.page == 1 and result.hits


# ---- the JSON shape and the CLI --------------------------------------------------------------
def test_json_shape(searcher) -> None:
    data = searcher.search("priority", lang="en").to_json()
    assert set(data) == {
        *("query", "lang", "total", "suggestion", "hits", "page", "pages", "message", "notes")
    }
    assert {
        "kind",
        "number",
        "lang",
        "edition",
        "editions",
        "canonical",
        "title",
        "snippet",
        "score",
        "cross_language",
    } <= set(data["hits"][0])


def test_cli(kb, tmp_path: Path) -> None:
    kb.save(tmp_path / "kb.json")
    build_index(kb, tmp_path / "index")
    out = StringIO()
    assert run_search_command(tmp_path, "priority", "en", None, None, 5, True, out) == 0
    assert json.loads(out.getvalue())["hits"]
    out = StringIO()
    assert run_search_command(tmp_path, "priority", "en", None, None, 5, False, out) == 0
    assert "[priority]" in out.getvalue().lower()
    out = StringIO()
    assert run_search_command(tmp_path, "priority", "en", "1999", None, 5, False, out) == 2
    assert "edition" in out.getvalue()


def test_cli_pages_say_how_to_see_more(kb, tmp_path: Path) -> None:
    # The hint names what the command can do: the next page (--limit stops at 100).
    kb.save(tmp_path / "kb.json")
    build_index(kb, tmp_path / "index")
    out = StringIO()
    assert run_search_command(tmp_path, "priority", "en", None, None, 1, True, out) == 0
    total = json.loads(out.getvalue())["total"]
    assert total >= 3
    first, second, last = StringIO(), StringIO(), StringIO()
    assert run_search_command(tmp_path, "priority", "en", None, None, 1, False, first) == 0
    assert f"… {total - 1} more: --page 2 (--limit up to 100)" in first.getvalue()
    assert run_search_command(tmp_path, "priority", "en", None, None, 1, False, second, 2) == 0
    assert f"… {total - 2} more: --page 3 " in second.getvalue()
    assert second.getvalue() != first.getvalue()
    assert run_search_command(tmp_path, "priority", "en", None, None, 1, False, last, total) == 0
    assert "more:" not in last.getvalue()


def test_long_japanese_text_is_indexed_and_highlighted(tmp_path: Path) -> None:
    # 120 KB of Japanese, over SudachiPy's 49,149-byte input limit; the word sought is at the end.
    kb = small_kb()
    body = "各プレイヤーは、優先権を得るたびに状況起因処理を確認する。" * 1400
    text = body + "\n《待ち受ける禿鷹》は墓地から唱えられる。"
    assert len(text.encode("utf-8")) > 100_000
    kb.rules[JA]["999.1"] = Rule(JA, "ja", "999.1", "subrule", text, canonical="999.1")
    build_index(kb, tmp_path)
    with Searcher(tmp_path, kb) as s:
        hits = s.search("禿鷹", lang="ja").hits
    assert [h.number for h in hits] == ["999.1"]
    assert "<mark>禿鷹</mark>" in hits[0].snippet
