"""Snippets marked at the offsets the build stored (kb.search.snippets): the same marks as
analysing the text, for every current document, and the analysis still there without them."""

from __future__ import annotations

import marshal
import shutil
from pathlib import Path

import pytest

from kb.knowledge.model import LANGS, Rule
from kb.search import Searcher, build_index
from kb.search.analysis import ANALYZERS, bigrams_ja
from kb.search.compiled import Compiled
from kb.search.hits import HitMaker
from kb.search.japanese import MAX_PIECE_CHARS
from kb.search.snippets import FILE, SNIPPET_FIELDS
from tests.search.conftest import EN_NEW, FR, JA, small_kb


def _kb():
    """The small knowledge base, with texts whose analysis is not word for word: stems that
    change a word's first letters, an inherited title after a subrule's text, a non-NFKC
    text, and a Japanese text long enough to be analysed in pieces."""
    kb = small_kb()
    rules = kb.rules[EN_NEW]
    rules["702"] = Rule(EN_NEW, "en", "702", "rule", "", title="Keyword Abilities", canonical="702")
    rules["702.9"] = Rule(EN_NEW, "en", "702.9", "subrule", "", title="Flying", canonical="702.9")
    rules["702.9a"] = Rule(
        EN_NEW,
        "en",
        "702.9a",
        "subrule",
        "Flying is an evasion ability. A player using it flies; flying creatures fly.",
        canonical="702.9a",
        examples=["Example: A creature with flying can't be blocked except by flying ones."],
    )
    rules["702.9b"] = Rule(
        EN_NEW,
        "en",
        "702.9b",
        "subrule",
        "Ｆｌｙｉｎｇ ｗｉｔｈ full-width letters.",
        canonical="702.9b",
    )
    kb.rules[FR]["702.9a"] = Rule(
        FR,
        "fr",
        "702.9a",
        "subrule",
        "Le vol est une capacité d'évasion ; qu'un joueur vole.",
        canonical="702.9a",
    )
    long_ja = ("各プレイヤーは、優先権を得るたびに状況起因処理を確認する。" * 500)[
        : MAX_PIECE_CHARS + 700
    ]
    kb.rules[JA]["702.9a"] = Rule(
        JA,
        "ja",
        "702.9a",
        "subrule",
        long_ja + "\n飛行を持つクリーチャーはブロックされない。",
        canonical="702.9a",
    )
    return kb


@pytest.fixture(scope="module")
def spans_searcher(tmp_path_factory: pytest.TempPathFactory):
    kb = _kb()
    path = tmp_path_factory.mktemp("spans")
    build_index(kb, path)
    with Searcher(path, kb) as s:
        yield s


def _full_analysers(compiled: Compiled) -> None:
    """Mark with the index's own analysers (every term of a text), not the per-query markers."""
    compiled.markers.update(en=ANALYZERS["en"], fr=ANALYZERS["fr"], ja_gram=bigrams_ja)


def test_stored_marks_are_the_analysers_for_every_current_document(spans_searcher) -> None:
    s = spans_searcher
    analysing = HitMaker(s.kb, s._refs, s._langs, s._groups, s._editions)  # no stored spans
    seen, analysed = set(), set()
    for doc in range(s._stop):
        lang = s._langs[doc]
        # Every term of the document is wanted: each of its words is marked.
        names = SNIPPET_FIELDS[lang]
        wanted = {t for name in names for t in s._index.sequence(name, doc) or ()}
        marks = {"ja": wanted, "ja_gram": wanted} if lang == "ja" else {lang: wanted}
        fast = Compiled(None, marks=marks)
        slow = Compiled(None, marks=marks)
        _full_analysers(slow)
        hit = s._hits.hit(doc, 1.0, fast, LANGS, None)
        assert hit.snippet == analysing.hit(doc, 1.0, slow, LANGS, None).snippet, s._refs[doc]
        if fast.markers:  # the text was analysed: the stored spans were not used
            analysed.add(s._refs[doc])
        seen.add((s._refs[doc].split("|")[0], lang))
    # Rules in the three languages, glossary entries, commentary and tournament rules.
    assert {("r", "en"), ("r", "fr"), ("r", "ja"), ("g", "en"), ("c", "fr"), ("t", "fr")} <= seen
    # Analysed: only the headings (a title, no text), which show their title.
    headings = {
        f"r|{ed}|{n}"
        for ed, table in s.kb.rules.items()
        for n, r in table.items()
        if not r.text.strip() and not r.examples
    }
    assert analysed <= headings


def test_a_word_whose_stem_starts_otherwise_is_marked(spans_searcher) -> None:
    # "flying" stems to "fli" and "using" to "use": a marker looking for words by their stem's
    # first letters left them unmarked in the snippets of the rules they found.
    hit = spans_searcher.search("flying", lang="en").hits[0]
    assert hit.number == "702.9a"
    assert (
        "<mark>Flying</mark> is" in hit.snippet and "<mark>flying</mark> creatures" in hit.snippet
    )
    hit = spans_searcher.search("use evasion", lang="en").hits[0]
    assert "player <mark>using</mark> it" in hit.snippet


def test_the_inherited_title_is_never_marked_in_the_snippet(spans_searcher) -> None:
    # 702.9a's body ends with its title "Flying" (for search): the snippet is its text only,
    # every form of the word marked.
    hit = spans_searcher.search("flying", lang="en").hits[0]
    assert hit.snippet == (
        "<mark>Flying</mark> is an evasion ability. A player using it <mark>flies</mark>; "
        "<mark>flying</mark> creatures <mark>fly</mark>.\nExample: A creature with "
        "<mark>flying</mark> can't be blocked except by <mark>flying</mark> ones."
    )


def test_long_japanese_text_marked_past_the_first_piece(spans_searcher) -> None:
    hit = spans_searcher.search("飛行", lang="ja").hits[0]
    assert hit.number == "702.9a"
    assert "<mark>飛行</mark>を持つ" in hit.snippet


def test_without_the_stored_spans_hits_analyse_their_texts(tmp_path: Path, spans_searcher) -> None:
    kb = _kb()
    build_index(kb, tmp_path)
    queries = [("flying", "en"), ("priorité", "fr"), ("優先権", "ja"), ("état", None)]
    with Searcher(tmp_path, kb) as s:
        before = [s.search(q, lang=lang).to_json() for q, lang in queries]
    with Searcher(tmp_path, kb) as s:
        stop = s._stop
    malformed = [
        marshal.dumps((1, stop, [1, 2])),  # rows not by field
        marshal.dumps((1, stop, {"body_en": [b"abc"] * stop})),  # offsets not 4-byte ints
        marshal.dumps((1, stop, {"body_en": [3] * stop})),  # offsets not bytes
        marshal.dumps((99, stop, {})),  # another format
    ]
    for broken in (None, b"not marshal data", b"\xe9", *malformed):
        if broken is None:
            (tmp_path / FILE).unlink()
        else:
            (tmp_path / FILE).write_bytes(broken)
        with Searcher(tmp_path, kb) as s:
            after = [s.search(q, lang=lang).to_json() for q, lang in queries]
        # The same hits; "flying" only where the stems' first letters find it.
        assert [[h["number"] for h in r["hits"]] for r in after] == [
            [h["number"] for h in r["hits"]] for r in before
        ]
        assert after[1:] == before[1:]


def test_spans_of_another_build_are_not_used(tmp_path: Path) -> None:
    # A file of a build with other documents (copied by hand) is ignored, not misread.
    other = small_kb()
    build_index(other, tmp_path / "other")
    kb = _kb()
    build_index(kb, tmp_path / "mine")
    shutil.copy(tmp_path / "other" / FILE, tmp_path / "mine" / FILE)
    with Searcher(tmp_path / "mine", kb) as s:
        assert s._hits._spans.marks(0, "en", "priority", {"prioriti"}) is None
        assert "<mark>" in s.search("flying", lang="en").hits[0].snippet


def test_builds_reusing_earlier_analyses_store_the_same_spans(tmp_path: Path) -> None:
    # An incremental build analyses only new texts (the analysis memo): the offsets of the
    # texts it takes from the memo are those a fresh build stores.
    memo: dict = {}
    kb = _kb()
    build_index(kb, tmp_path / "fresh")
    build_index(kb, tmp_path / "filling", memo=memo)
    build_index(kb, tmp_path / "reusing", memo=memo)
    fresh = (tmp_path / "fresh" / FILE).read_bytes()
    assert (tmp_path / "filling" / FILE).read_bytes() == fresh
    assert (tmp_path / "reusing" / FILE).read_bytes() == fresh
    # One rule changed: its text is analysed, the others come from the memo.
    changed = _kb()
    changed.content_hash = "changed"
    rule = changed.rules[EN_NEW]["702.9a"]
    rule.text = "Flying creatures can be blocked only by flying or reach creatures."
    build_index(changed, tmp_path / "changed", memo=memo)
    build_index(changed, tmp_path / "changed-fresh")
    assert (tmp_path / "changed" / FILE).read_bytes() == (
        tmp_path / "changed-fresh" / FILE
    ).read_bytes()
    with Searcher(tmp_path / "changed", changed) as s:
        assert "<mark>flying</mark> or reach" in s.search("flying", lang="en").hits[0].snippet
