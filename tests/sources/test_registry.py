"""Manifest, sniffing and dispatch: every file is placed by its manifest entry or its own marks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.sources import registry
from kb.sources.records import SourceError
from tests.conftest import MTR_EN_DIR, shared_editions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"

#: seed file -> (format, [(kind, lang, date, numbering) of each document])
SEEDS = {
    "fr-wiki-la-priorite.txt": (
        "fr-wiki",
        [
            ("commentary", "fr", None, "2010-07-01..2019-06-30"),
            ("cr-partial", "fr", None, "2010-07-01..2019-06-30"),
            ("cr-partial", "en", None, "2010-07-01..2019-06-30"),
        ],
    ),
    "en-wiki-priority.txt": ("en-wiki", [("cr-partial", "en", "2024-07-30", "2024-07-30")]),
    "ja-mtgwiki-yusenken.txt": (
        "ja-mtgwiki",
        [
            ("commentary", "ja", None, "2023-11-17"),
            ("cr-partial", "ja", "2023-11-17", "2023-11-17"),
        ],
    ),
    "en-site-rule-505-2011-09-30.txt": (
        "bilingual-site",
        [("cr-partial", "en", "2011-09-30", "2011-09-30")],
    ),
    "fr-mtr-4.2-raccourcis.txt": ("mtr-bullets", [("mtr", "fr", None, None)]),
}


def summary(docs: list) -> list[tuple[str, str, str | None, str | None]]:
    return [(d.kind, d.lang, d.date, d.numbering) for d in docs]


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_sniffed_under_a_neutral_name(name: str, corpus_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "document.txt"
    shutil.copy(corpus_dir / "sources" / name, copy)
    fmt, expected = SEEDS[name]
    assert registry.sniff(copy, copy.read_text(encoding="utf-8")) == fmt
    docs = registry.read_source(copy)
    assert summary(docs) == expected
    assert all(d.format == fmt and d.path == str(copy) for d in docs)


def test_neutral_mtr_copy_still_finds_its_section(corpus_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "document.txt"
    shutil.copy(corpus_dir / "sources" / "fr-mtr-4.2-raccourcis.txt", copy)
    (doc,) = registry.read_source(copy)
    assert doc.tournament[0].key == "4.2-1"
    assert any("assumed 4.2" in p.message for p in doc.problems)


def test_manifest_describes_every_seed(corpus_dir: Path) -> None:
    manifest = registry.load_manifest(corpus_dir)
    on_disk = sorted(p.name for p in (corpus_dir / "sources").glob("*.txt"))
    assert sorted(manifest) == on_disk
    for name, entry in manifest.items():
        assert entry["format"] == SEEDS[name][0]
        assert entry["description"] and entry["origin"]
        assert "seed document" in entry["origin"]


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_read_with_manifest_entry(name: str, corpus_dir: Path) -> None:
    entry = registry.load_manifest(corpus_dir)[name]
    docs = registry.read_source(corpus_dir / "sources" / name, entry)
    assert summary(docs) == SEEDS[name][1]
    # The manifest only fills in: it never disagrees with what the texts say.
    assert not any("manifest says" in p.message for d in docs for p in d.problems)
    assert all(d.lang in entry["langs"] for d in docs)


def test_manifest_fills_what_the_text_does_not_say(corpus_dir: Path) -> None:
    path = corpus_dir / "sources" / "fr-mtr-4.2-raccourcis.txt"
    entry = {"format": "mtr-bullets", "langs": ["fr"], "section": "4.2", "date": "2020-01-01"}
    (doc,) = registry.read_source(path, entry)
    assert doc.date == "2020-01-01"
    path = corpus_dir / "sources" / "en-wiki-priority.txt"
    entry = {"format": "en-wiki", "langs": ["fr"], "date": "2025-11-14"}
    (doc,) = registry.read_source(path, entry)
    assert doc.date == "2024-07-30"  # the text says so: the text wins, the clash is reported
    messages = [p.message for p in doc.problems]
    assert any("manifest says date = '2025-11-14'" in m for m in messages)
    assert any("not among the manifest" in m for m in messages)


def test_manifest_parts_apply_to_one_document(corpus_dir: Path) -> None:
    docs = registry.read_source(
        corpus_dir / "sources" / "ja-mtgwiki-yusenken.txt",
        registry.load_manifest(corpus_dir)["ja-mtgwiki-yusenken.txt"],
    )
    assert [d.version for d in docs] == [None, "20231117.0"]


def test_official_cr_text_is_sniffed(cr_en_dir: Path) -> None:
    from kb.sources.decode import read_text

    for path in shared_editions():
        assert registry.sniff(path, read_text(path)) == "cr", path.name


def test_english_mtr_is_sniffed_and_read() -> None:
    paths = sorted(MTR_EN_DIR.glob("*.txt")) if MTR_EN_DIR.is_dir() else []
    if not paths:
        pytest.skip(f"English MTR texts not found at {MTR_EN_DIR} (../shared/corpus-raw is absent)")
    for path in paths:
        assert registry.sniff(path, path.read_text(encoding="utf-8")) == "mtr-en"
        (doc,) = registry.read_source(path)
        assert (doc.kind, doc.lang, doc.date) == ("mtr", "en", "2025-11-10")


def test_unknown_text_is_an_error_naming_the_file() -> None:
    path = FIXTURES / "unknown-prose.txt"
    assert registry.sniff(path, path.read_text(encoding="utf-8")) is None
    with pytest.raises(SourceError) as info:
        registry.read_source(path)
    assert info.value.problem.path == str(path)
    assert info.value.problem.line == 1
    assert "unknown format" in str(info.value)


@pytest.mark.parametrize(
    ("data", "why"),
    [(b"", "empty"), (b"\x00\x01\x02binary\x00\xff" * 20, "binary")],
)
def test_unreadable_files(tmp_path: Path, data: bytes, why: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(SourceError, match=why) as info:
        registry.read_source(path)
    assert "bad.txt" in str(info.value)


def test_unknown_manifest_format(corpus_dir: Path) -> None:
    with pytest.raises(SourceError, match="manifest format 'pdf'"):
        registry.read_source(corpus_dir / "sources" / "en-wiki-priority.txt", {"format": "pdf"})


def test_utf16_seed_is_decoded(corpus_dir: Path, tmp_path: Path) -> None:
    text = (corpus_dir / "sources" / "ja-mtgwiki-yusenken.txt").read_text(encoding="utf-8")
    path = tmp_path / "page.txt"
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-16"))
    docs = registry.read_source(path)
    assert [d.kind for d in docs] == ["commentary", "cr-partial"]
    assert docs[1].rules[1].number == "116"


# ---- manifest errors -------------------------------------------------------------------------


def make_corpus(tmp_path: Path, manifest: str) -> Path:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "a.txt").write_text("x", encoding="utf-8")
    (tmp_path / "manifest.toml").write_text(manifest, encoding="utf-8")
    return tmp_path


def test_broken_manifest_names_file_and_line(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path, '["a.txt"]\nlangs = ["en"]\nformat = "en-wiki\n')
    with pytest.raises(SourceError) as info:
        registry.load_manifest(corpus)
    assert info.value.problem.path == str(corpus / "manifest.toml")
    assert info.value.problem.line == 3


@pytest.mark.parametrize(
    ("manifest", "message", "line"),
    [
        ('# c\n["a.txt"]\nlangs = ["en"]\nformat = "word"\n', "format 'word'", 2),
        ('["a.txt"]\nlangs = ["de"]\nformat = "en-wiki"\n', "langs", 1),
        ('["b.txt"]\nlangs = ["en"]\nformat = "en-wiki"\n', "no such file", 1),
        ('"a.txt" = 3\n', "must be a table", None),
    ],
)
def test_invalid_manifest_entries(
    tmp_path: Path, manifest: str, message: str, line: int | None
) -> None:
    with pytest.raises(SourceError, match=message) as info:
        registry.load_manifest(make_corpus(tmp_path, manifest))
    assert info.value.problem.line == line


def test_no_manifest_is_an_empty_one(tmp_path: Path) -> None:
    assert registry.load_manifest(tmp_path) == {}


def test_iter_corpus_files(tmp_path: Path) -> None:
    for name in ("b.txt", "a.txt", "notes.md", "C.TXT"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    assert [p.name for p in registry.iter_corpus_files(tmp_path)] == ["C.TXT", "a.txt", "b.txt"]
    assert registry.iter_corpus_files(tmp_path / "a.txt") == [tmp_path / "a.txt"]
    with pytest.raises(SourceError, match="no such file"):
        registry.iter_corpus_files(tmp_path / "missing")
