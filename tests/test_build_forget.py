"""Issue 28.6: ``kb build --forget PATH``. A file that cannot be read, once added, kept ``kb
build`` exiting 3 forever; forgetting the path ends that, and only a remembered path can be
forgotten (a clear error otherwise)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.build import BuildError, build, remembered_paths
from kb.cli.main import main


def test_forget_a_left_out_file(tmp_path: Path, write_edition, capsys) -> None:  # type: ignore[no-untyped-def]
    instance = tmp_path / "instance"
    good = write_edition(tmp_path / "texts", "2031-02-01", "February 1, 2031")
    bad = tmp_path / "damaged.txt"
    bad.write_bytes(b"\x00\x01\x02 not a rules text \xff" * 40)
    first = build(instance, [good, bad], run_examples_too=False)
    assert first.left_out
    again = main(["--instance", str(instance), "build", "--quiet"])
    assert again == 3  # remembered: left out again, and again
    assert main(["--instance", str(instance), "build", "--quiet", "--forget", str(bad)]) == 0
    assert remembered_paths(instance) == [good.resolve()]
    assert main(["--instance", str(instance), "build", "--quiet"]) == 0
    capsys.readouterr()


def test_forget_a_path_that_is_not_remembered(tmp_path: Path, write_edition) -> None:  # type: ignore[no-untyped-def]
    instance = tmp_path / "instance"
    folder = tmp_path / "texts"
    write_edition(folder, "2031-02-01", "February 1, 2031")
    build(instance, [folder], run_examples_too=False)
    inside = folder / "MagicCompRules-2031-02-01.txt"
    with pytest.raises(BuildError, match="part of the remembered folder"):
        build(instance, forget=[inside], run_examples_too=False)
    with pytest.raises(BuildError, match="not a remembered corpus path"):
        build(instance, forget=[tmp_path / "elsewhere.txt"], run_examples_too=False)


def test_forget_a_folder_moved_away(tmp_path: Path, write_edition) -> None:  # type: ignore[no-untyped-def]
    instance = tmp_path / "instance"
    folder = tmp_path / "texts"
    write_edition(folder, "2031-02-01", "February 1, 2031")
    build(instance, [folder], run_examples_too=False)
    moved = folder.rename(tmp_path / "moved")
    with pytest.raises(BuildError, match="no longer exists"):
        build(instance, run_examples_too=False)
    report = build(instance, forget=[folder], run_examples_too=False)
    assert remembered_paths(instance) == [] and report.editions
    assert moved.is_dir()
