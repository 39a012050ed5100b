"""What the build stores for the searcher to read at open (kb.search.prepared) is what the
searcher would compute itself: the withdrawn documents and the term base's phrases; an index
without the file, or with another index's, is searched as before."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from kb.knowledge.model import Term
from kb.search import Searcher, build_index, prepared
from kb.search import searcher as searcher_module
from kb.search.postings import FILE as POSTINGS_FILE
from kb.search.postings import Postings
from kb.search.termnames import name_phrases
from kb.search.votes import withdrawn_docs
from tests.search.test_fixes_withdrawn import history_kb

QUERIES = [
    "summoning sickness",
    "mana burn",
    "priority",
    "priorité",
    "優先権",
    "state-based actions",
    "tapped creature",
]


@pytest.fixture()
def built(tmp_path: Path):
    kb = history_kb()
    kb.terms = [
        *kb.terms,
        Term("sba", ["state-based actions"], ["actions basées sur un état"]),
    ]
    build_index(kb, tmp_path)
    return kb, tmp_path


def _results(searcher: Searcher) -> list:
    out = []
    for query in QUERIES:
        for form in ({}, {"lang": "en"}, {"prefer_lang": "fr"}):
            result = searcher.search(query, **form)
            out.append(
                (
                    result.total,
                    [
                        (h.kind, h.number, h.key, round(h.score, 6), h.withdrawn)
                        for h in result.hits
                    ],
                )
            )
    return out


def test_the_build_stores_what_the_searcher_would_compute(built) -> None:
    kb, index_dir = built
    assert (index_dir / prepared.FILE).is_file()
    with Searcher(index_dir, kb) as searcher:
        computed = withdrawn_docs(
            kb, searcher._refs, searcher._langs, searcher._stop, searcher._editions
        )
        assert computed  # the history knowledge base has withdrawn texts
        assert searcher._withdrawn == computed
    postings = Postings(index_dir / POSTINGS_FILE)
    postings.learn_phrases(name_phrases(kb))
    stored = prepared.read(index_dir, kb.content_hash, len(searcher._refs), searcher._stop)
    assert stored is not None
    assert stored.phrases == dict(postings.phrases())
    assert any(len(words) > 1 and weights for (_, words), weights in stored.phrases.items())
    postings.close()


def test_searches_are_the_same_with_the_file_and_without(
    built, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb, index_dir = built

    def not_at_open(*args: object) -> None:
        raise AssertionError("computed at open despite the build's file")

    with monkeypatch.context() as patched:
        patched.setattr(searcher_module, "withdrawn_docs", not_at_open)
        patched.setattr(Postings, "learn_phrases", not_at_open)
        with Searcher(index_dir, kb) as searcher:
            assert searcher._index._phrases  # read from the file
            with_file = _results(searcher)
    (index_dir / prepared.FILE).unlink()
    with Searcher(index_dir, kb) as searcher:
        assert _results(searcher) == with_file


@pytest.mark.parametrize(
    "content",
    [
        b"not marshal at all \x00\xff",
        marshal.dumps(("a", "tuple")),
        marshal.dumps(((prepared.VERSION, "another index", 3, 2), {"withdrawn": [0]})),
    ],
)
def test_a_file_of_another_index_or_none_is_ignored(built, content: bytes) -> None:
    kb, index_dir = built
    with Searcher(index_dir, kb) as searcher:
        expected = _results(searcher)
        withdrawn = searcher._withdrawn
    (index_dir / prepared.FILE).write_bytes(content)
    with Searcher(index_dir, kb) as searcher:
        assert searcher._withdrawn == withdrawn
        assert _results(searcher) == expected


def test_an_older_build_of_the_same_documents_is_not_read(built) -> None:
    """The file names the content it was built from: another content's is not used."""
    kb, index_dir = built
    with Searcher(index_dir, kb) as searcher:
        docs, stop = len(searcher._refs), searcher._stop
    assert prepared.read(index_dir, kb.content_hash, docs, stop) is not None
    assert prepared.read(index_dir, "another-hash", docs, stop) is None
    assert prepared.read(index_dir, kb.content_hash, docs + 1, stop) is None


def test_a_reused_index_keeps_its_file(built, tmp_path: Path) -> None:
    kb, index_dir = built
    copy = tmp_path / "copy"
    stats = build_index(kb, copy, previous=index_dir)
    assert stats.get("reused")
    assert (copy / prepared.FILE).read_bytes() == (index_dir / prepared.FILE).read_bytes()


def test_the_withdrawn_set_needs_only_the_documents(built) -> None:
    """Adding an edition gives the build the newest glossary of each language only: what
    has a glossary is read from the documents, so the set is the same without the others."""
    from kb.search.indexer import documents

    kb, _ = built
    docs = documents(kb)
    stop = sum(1 for d in docs if d.current)
    expected = prepared.withdrawn(kb, docs, stop)
    assert expected
    newest = {code: kb.glossary_edition(code) for code in ("en", "fr", "ja")}
    kept = {ed.id for ed in newest.values() if ed is not None}
    kb.glossary = {ed: entries for ed, entries in kb.glossary.items() if ed in kept}
    for ed in kb.editions.values():
        ed.counts = {}
    assert prepared.withdrawn(kb, docs, stop) == expected
