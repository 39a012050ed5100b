"""Which Sudachi dictionary the Japanese analyser loads: sudachidict-small by default (a server
process stays under 200 MB RSS with it), core on request, and a clear error when it is missing."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

import pytest

from kb.search import japanese


def test_default_dictionary_is_small() -> None:
    assert japanese.SUDACHI_DICT == "small"
    assert " sudachidict-small-" in japanese.ja_backend_id("sudachi")
    if not os.environ.get("KB_JA_ANALYZER"):
        assert " sudachidict-small-" in japanese.ja_backend_id()


def test_another_dictionary_is_another_index() -> None:
    # The index records this id: one built with core is not current for small, so it rebuilds.
    small, core = japanese.ja_backend_id("sudachi"), japanese.ja_backend_id("sudachi-core")
    assert small.startswith("sudachi:A ") and core.startswith("sudachi:A ")
    assert " sudachidict-core-" in core and small != core


@pytest.mark.parametrize(("name", "expected"), [("sudachi", "small"), ("sudachi-core", "core")])
def test_backend_asks_sudachi_for_its_dictionary(
    monkeypatch: pytest.MonkeyPatch, name: str, expected: str
) -> None:
    import sudachipy

    asked: list[Any] = []
    real = sudachipy.Dictionary

    def recording(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("dict"))
        return real(*args, **kwargs)

    if expected == "core" and importlib.util.find_spec("sudachidict_core") is None:
        pytest.skip("sudachidict-core is not installed")
    monkeypatch.setattr(japanese, "_backends", {})
    monkeypatch.setattr(sudachipy, "Dictionary", recording)
    run = japanese.ja_backend(name)
    assert asked == [expected]
    assert [m[0] for m in run("優先権を得る")] == ["優先", "権", "を", "得る"]


def test_missing_dictionary_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(japanese, "_backends", {})
    monkeypatch.setitem(sys.modules, "sudachidict_small", None)  # as if not installed
    with pytest.raises(japanese.JaAnalyzerError, match="pip install sudachidict-small"):
        japanese.ja_backend("sudachi-small")


def test_uninstalled_dictionary_names_the_package() -> None:
    if importlib.util.find_spec("sudachidict_full") is not None:
        pytest.skip("sudachidict-full is installed")
    with pytest.raises(japanese.JaAnalyzerError, match="dictionary sudachidict-full"):
        japanese._sudachi("A", "full")
