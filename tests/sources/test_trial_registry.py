"""``kb build --corpus DIR`` reads subfolders, and a folder that adds nothing is an error
(found by the new-user trial: a text in ``n/sub/`` or an empty ``n`` built "nothing", exit 0)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from kb.build import remembered_paths
from kb.cli.main import main as cli
from kb.sources import registry
from kb.sources.records import SourceError


def test_subfolders_are_read_sorted_by_path(tmp_path: Path) -> None:
    (tmp_path / "b" / "deep").mkdir(parents=True)
    (tmp_path / "a").mkdir()
    for rel in ("z.txt", "b/deep/x.txt", "b/y.txt", "a/w.TXT", "a/notes.md", ".hidden.txt"):
        (tmp_path / rel).write_text("text", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.txt").write_text("x", encoding="utf-8")
    got = registry.iter_corpus_files(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in got] == [
        "a/w.TXT",
        "b/deep/x.txt",
        "b/y.txt",
        "z.txt",
    ]
    assert got == registry.iter_corpus_files(tmp_path)  # deterministic


def test_an_empty_folder_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as err:
        registry.iter_corpus_files(tmp_path)
    assert err.value.problem.path == str(tmp_path)
    assert "empty" in str(err.value.problem)


def test_a_folder_without_texts_says_what_it_holds(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "rules.pdf").write_bytes(b"%PDF")
    with pytest.raises(SourceError, match=r"1 other file, not \.txt"):
        registry.iter_corpus_files(tmp_path)


def test_build_with_an_empty_corpus_folder_fails_and_remembers_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "n"
    (empty / "sub").mkdir(parents=True)
    instance = tmp_path / "inst"
    err = io.StringIO()
    with redirect_stderr(err):
        status = cli(["--instance", str(instance), "build", "--corpus", str(empty)], io.StringIO())
    assert status == 1
    assert str(empty) in err.getvalue() and "nothing to add" in err.getvalue()
    assert remembered_paths(instance) == []
