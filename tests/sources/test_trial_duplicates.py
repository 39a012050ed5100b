"""Two files giving one edition: the warning says whether the second is a copy or a different
text, and which file was kept (found by the new-user trial: a different text was called a copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.sources.registry import duplicate_edition, read_source
from tests.conftest import SHARED_RAW

OLD = SHARED_RAW / "cr-en" / "MagicCompRules-2023-11-17.txt"

pytestmark = pytest.mark.skipif(not OLD.exists(), reason=f"official text absent: {OLD}")


def test_a_different_text_is_not_called_a_copy(tmp_path: Path) -> None:
    text = OLD.read_text(encoding="utf-8-sig")
    changed = tmp_path / "edited.txt"
    changed.write_text(text.replace("117.3b", "117.3b (edited)", 1), encoding="utf-8")
    doc = read_source(changed)[0]
    problem = duplicate_edition("en-2023-11-17", str(OLD), doc)
    message = str(problem)
    assert problem.path == str(changed)
    assert "copy" not in message and "differ" in message
    assert f"kept {OLD}" in message and "line " in message


def test_a_copy_is_called_a_copy_even_re_encoded(tmp_path: Path) -> None:
    text = OLD.read_text(encoding="utf-8-sig")
    copy = tmp_path / "copy.txt"
    copy.write_bytes(text.replace("\n", "\r\n").encode("utf-16"))
    doc = read_source(copy)[0]
    message = str(duplicate_edition("en-2023-11-17", str(OLD), doc))
    assert "is a copy of it" in message and str(OLD) in message


def test_the_build_reports_a_different_text_of_one_edition(tmp_path: Path) -> None:
    from kb.build import build_kb

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_bytes(OLD.read_bytes())
    text = OLD.read_text(encoding="utf-8-sig")
    (corpus / "b.txt").write_text(text.replace("117.3b", "117.3b (edited)", 1), encoding="utf-8")
    _kb, problems, _notes = build_kb([corpus], run_examples_too=False)
    said = [str(p) for p in problems if "en-2023-11-17" in str(p)]
    assert said and "differ" in said[0] and "copy" not in said[0]
