"""``kb editions`` lists a file the build left out (damaged), with its line and the reason, next
to the editions it built."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kb.build import build
from kb.cli.main import main

from .conftest import SHARED_RAW

DAMAGED = SHARED_RAW / "cr-en-archive" / "MagicCompRules-2013-02-01.txt"


@pytest.fixture(scope="module")
def with_damaged(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path) -> Path:
    if not DAMAGED.is_file():
        pytest.skip(f"{DAMAGED} not found")
    folder = tmp_path_factory.mktemp("corpus")
    (folder / DAMAGED.name).symlink_to(DAMAGED)
    good = cr_en_dir / "MagicCompRules-2025-11-14.txt"
    (folder / good.name).symlink_to(good)
    instance = tmp_path_factory.mktemp("left-out") / "instance"
    report = build(instance, [folder], run_examples_too=False)
    assert len(report.left_out) == 1 and DAMAGED.name in report.left_out[0]
    return instance


def _run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(args), out=out)
    return code, out.getvalue()


def test_editions_lists_the_left_out_file_with_its_reason(with_damaged: Path) -> None:
    code, out = _run("editions", "--instance", str(with_damaged))
    assert code == 0
    lines = [line for line in out.splitlines() if DAMAGED.name in line]
    assert len(lines) == 1, out
    assert "left out" in lines[0]
    assert "2025-11-14" in out  # the rest is built and listed


def test_editions_json_marks_the_left_out_file(with_damaged: Path) -> None:
    code, out = _run("editions", "--json", "--instance", str(with_damaged))
    rows = json.loads(out)
    assert code == 0
    left = [r for r in rows if r["kind"] == "left out"]
    assert len(left) == 1
    assert left[0]["source"] == DAMAGED.name
    assert left[0]["line"] and left[0]["reason"]
    assert left[0]["rules"] == 0 and left[0]["id"] is None
    assert any(r["date"] == "2025-11-14" and r["kind"] == "full" for r in rows)
