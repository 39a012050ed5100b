"""The search evaluation's data files (tests/search/eval/{test,tune}.toml) are well formed: every
question has a query, a known kind, expected rules and a source; every expected rule number exists
in the newest English Comprehensive Rules of the shared corpus (when that file is present); no
query is in both halves."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.bench.bench_search_eval import KINDS as KINDS_MEASURED

EVAL = Path(__file__).resolve().parent / "eval"
CR_2025 = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "corpus-raw"
    / "cr-en"
    / "MagicCompRules-2025-11-14.txt"
)
KINDS = set(KINDS_MEASURED)  # the kinds the benchmark reports, and no other
NUMBER = re.compile(r"^(\d{3}(?:\.\d+[a-z]?)?)\.?\s")


def load(half: str) -> list[dict]:
    return tomllib.loads((EVAL / f"{half}.toml").read_text(encoding="utf-8"))["q"]


@pytest.mark.parametrize("half", ["test", "tune"])
def test_fields_and_kinds(half: str) -> None:
    for item in load(half):
        assert item["query"].strip(), item
        assert item["kind"] in KINDS, item
        assert item["expect"] and all(isinstance(e, str) for e in item["expect"]), item
        assert item.get("source", "").strip(), item


def test_bench_reports_every_kind() -> None:
    bench = (Path(__file__).resolve().parents[1] / "bench" / "bench_search_eval.py").read_text(
        encoding="utf-8"
    )
    for kind in KINDS:
        assert f'"{kind}"' in bench, kind


def test_no_query_in_both_halves() -> None:
    test = {q["query"].strip().lower() for q in load("test")}
    tune = {q["query"].strip().lower() for q in load("tune")}
    assert not test & tune


def test_no_duplicate_query_within_a_half() -> None:
    for half in ("test", "tune"):
        queries = [q["query"].strip().lower() for q in load(half)]
        assert len(queries) == len(set(queries)), half


def test_expected_rules_exist_in_2025_11_14() -> None:
    if not CR_2025.is_file():
        pytest.skip(f"{CR_2025} is not present (the shared corpus is outside the repository)")
    numbers = set()
    for line in CR_2025.read_text(encoding="utf-8-sig").splitlines():
        match = NUMBER.match(line)
        if match:
            numbers.add(match.group(1))
    missing = [
        (half, item["query"], e)
        for half in ("test", "tune")
        for item in load(half)
        for e in item["expect"]
        if not e.startswith("mtr:") and e not in numbers
    ]
    assert not missing, missing
