"""The reviews of "Players ask" (tests/asks_review/review-*.toml) agree with themselves and with the
corpus: each summary counts its own verdicts, and every fix a review records is in corpus/asks."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REVIEWS = sorted((ROOT / "tests" / "asks_review").glob("review-*.toml"))
VERDICTS = {"answers", "partial", "wrong"}


def _corpus() -> dict[tuple[str, str], list[str]]:
    """Map each (lang, question) of corpus/asks to the rules it cites now."""
    asks = {}
    for path in sorted((ROOT / "corpus" / "asks").rglob("*.toml")):
        for ask in tomllib.loads(path.read_text(encoding="utf-8")).get("ask", []):
            asks[(ask["lang"], ask["q"])] = ask["rules"]
    return asks


def _load(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_both_samples_are_there() -> None:
    names = [p.name for p in REVIEWS]
    assert "review-2026-12-07.toml" in names and "review-2026-12-08.toml" in names


@pytest.mark.parametrize("path", REVIEWS, ids=lambda p: p.name)
def test_summary_counts_its_verdicts(path: Path) -> None:
    data = _load(path)
    tally: dict[str, Counter] = {}
    for entry in data["review"]:
        assert entry["verdict"] in VERDICTS, entry
        assert entry["note"].strip(), entry
        if entry["verdict"] != "answers":
            assert entry.get("fixed") is True, f"unfixed {entry['verdict']}: {entry['q']}"
        tally.setdefault(entry["lang"], Counter())[entry["verdict"]] += 1
    summary = data["summary"]
    total = Counter()
    for lang, counts in tally.items():
        row = summary[lang]
        assert row["sample"] == sum(counts.values())
        for verdict in VERDICTS:
            assert row[verdict] == counts[verdict], (lang, verdict)
        assert row["share"] == round(100 * counts["answers"] / row["sample"], 1)
        total += counts
    assert summary["overall"]["sample"] == sum(total.values())
    assert summary["overall"]["answers"] == total["answers"]
    assert [e["n"] for e in data["review"]] == list(range(len(data["review"])))


@pytest.mark.parametrize("path", REVIEWS, ids=lambda p: p.name)
def test_recorded_fixes_are_in_the_corpus(path: Path) -> None:
    corpus = _corpus()
    data = _load(path)
    for entry in data["review"]:
        key = (entry["lang"], entry["q"])
        if entry.get("action") == "deleted":
            assert key not in corpus, f"deleted question still in corpus/asks: {entry['q']}"
        elif "better" in entry:
            assert corpus.get(key) == entry["better"], entry["q"]
    for fix in data.get("corpus_fix", []):
        key = (fix["lang"], fix["q"])
        if fix.get("action") == "deleted":
            assert key not in corpus, fix["q"]
        else:
            assert corpus.get(key) == fix["rules"], fix["q"]


def test_near_duplicates_name_a_question_still_in_the_corpus() -> None:
    corpus = _corpus()
    data = _load(ROOT / "tests" / "asks_review" / "review-2026-12-08.toml")
    flagged = [e for e in data["review"] if "near-duplicate" in e.get("flags", [])]
    assert len(flagged) == data["summary"]["overall"]["near_duplicates"]
    for entry in flagged:
        assert (entry["lang"], entry["duplicate_of"]) in corpus, entry["duplicate_of"]
    kept = [f for f in data["corpus_fix"] if "duplicate_of" in f]
    assert kept, "the corpus-wide near-duplicate scan is recorded"
    for fix in kept:
        assert (fix["lang"], fix["duplicate_of"]) in corpus, fix["duplicate_of"]
