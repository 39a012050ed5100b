"""A file that cannot be read is left out of a build of several files: reported with file and
line in the summary and on stderr, the rest built and written, exit status 3."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kb.build import KB_FILE, BuildError, build, load
from kb.cli.main import EXIT_LEFT_OUT, main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cr"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(FIXTURES / "en-duplicate-rule.txt", corpus / "good.txt")
    shutil.copy(FIXTURES / "en-truncated.txt", corpus / "damaged.txt")
    return corpus


def test_damaged_file_is_left_out_and_the_rest_builds(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    instance = tmp_path / "instance"
    out_path = tmp_path / "out.json"
    with out_path.open("w", encoding="utf-8") as out:
        code = main(["build", "--corpus", str(folder), "--instance", str(instance), "--json"], out)
    err = capsys.readouterr().err
    assert code == EXIT_LEFT_OUT
    assert (instance / KB_FILE).is_file()
    data = json.loads(out_path.read_text(encoding="utf-8"))
    (left,) = data["left_out"]
    assert "damaged.txt:21:" in left and "truncated" in left
    assert "damaged.txt:21:" in err and "left out" in err and "Traceback" not in err
    # The good file is in the build.
    assert "en-2025-02-07" in {e["id"] for e in data["editions"]}
    # An unchanged rebuild still says what was left out, with the same status.
    with out_path.open("w", encoding="utf-8") as out:
        again = main(["build", "--instance", str(instance)], out)
    text = out_path.read_text(encoding="utf-8")
    assert again == EXIT_LEFT_OUT and "Left out 1 file" in text and "damaged.txt:21" in text


def test_summary_lists_left_out_files_apart_from_warnings(folder: Path, tmp_path: Path) -> None:
    report = build(tmp_path / "instance", [folder], run_examples_too=False)
    summary = report.summary()
    assert "Left out 1 file(s) that could not be read" in summary
    left = summary.index("Left out")
    warnings = summary.index("Warnings:")
    assert left < summary.index("damaged.txt:21") < warnings
    assert summary.count("damaged.txt:21") == 1


def test_nothing_readable_stops_the_build(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match=r"damaged\.txt:21: .*truncated"):
        shutil.copy(FIXTURES / "en-truncated.txt", tmp_path / "damaged.txt")
        build(tmp_path / "instance", [tmp_path / "damaged.txt"], run_examples_too=False)
    # No build was written: the instance folder may hold the build lock and cache, never a build.
    with pytest.raises(BuildError, match="no knowledge base built"):
        load(tmp_path / "instance")


def test_left_out_file_stays_reported_when_a_build_reuses_the_cache(
    folder: Path, tmp_path: Path
) -> None:
    """A later build that takes the readable files from the build cache still reads (and
    reports) the damaged one, and the good edition stays in: it is never cached as empty."""
    instance = tmp_path / "instance"
    build(instance, [folder], run_examples_too=False)
    # Changing the good file's folder contents forces a new build that reuses the cache.
    shutil.copy(FIXTURES / "en-utf16be-cr.txt", folder / "more.txt")
    report = build(instance, run_examples_too=False)
    assert not report.skipped
    assert [p for p in report.left_out if "damaged.txt:21" in p]
    assert "en-2025-02-07" in {e["id"] for e in report.editions}


def test_only_the_damaged_file_added_to_a_built_instance_is_left_out(tmp_path: Path) -> None:
    """Adding just a damaged file to an instance whose other files come from the cache is not
    'nothing readable': the build goes on without it and says so."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(FIXTURES / "en-duplicate-rule.txt", corpus / "good.txt")
    instance = tmp_path / "instance"
    build(instance, [corpus / "good.txt"], run_examples_too=False)
    shutil.copy(FIXTURES / "en-truncated.txt", corpus / "damaged.txt")
    report = build(instance, [corpus / "damaged.txt"], run_examples_too=False)
    assert [p for p in report.left_out if "damaged.txt:21" in p]
    assert "en-2025-02-07" in {e["id"] for e in report.editions}
