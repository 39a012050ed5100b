"""Reading the inputs in two processes gives the documents and problems of one process, in the
inputs' order, and still stops when nothing the user added could be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.base.forked import Forked
from kb.base.instance import BuildError
from kb.build import read as read_module
from kb.build.read import corpus_inputs, read_all


def _read(inputs, monkeypatch, split: bool):
    monkeypatch.setattr(read_module, "SPLIT_BYTES", 0 if split else 10**12)
    return read_all(inputs)


@pytest.mark.skipif(not Forked.available(), reason="needs fork and two cores")
def test_split_read_equals_one_process(cr_en_dir: Path, tmp_path: Path, monkeypatch) -> None:
    damaged = tmp_path / "MagicCompRules-2099-01-01.txt"
    damaged.write_text("Magic: The Gathering Comprehensive Rules\n\nnot rules at all\n")
    inputs = corpus_inputs([cr_en_dir, damaged])
    assert read_module._half(inputs) is None  # a few editions: one process by default
    one_docs, one_problems = _read(inputs, monkeypatch, split=False)
    two_docs, two_problems = _read(inputs, monkeypatch, split=True)
    assert [d.path for d in two_docs] == [d.path for d in one_docs]
    assert two_docs == one_docs
    assert [str(p) for p in two_problems] == [str(p) for p in one_problems]
    assert any(str(damaged) in str(p) for p in two_problems)  # left out, with its reason


@pytest.mark.skipif(not Forked.available(), reason="needs fork and two cores")
def test_split_read_stops_when_no_added_file_can_be_read(tmp_path: Path, monkeypatch) -> None:
    bad = []
    for day in ("01", "02"):
        path = tmp_path / f"MagicCompRules-2099-01-{day}.txt"
        path.write_text("Magic: The Gathering Comprehensive Rules\n\nnot rules at all\n")
        bad.append(path)
    inputs = [(p, None) for p in bad]
    with pytest.raises(BuildError, match="none of the 2 files added could be read"):
        _read(inputs, monkeypatch, split=True)
