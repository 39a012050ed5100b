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


def test_every_sample_is_there() -> None:
    names = {p.name for p in REVIEWS}
    assert {"review-2026-12-07.toml", "review-2026-12-08.toml", "review-2026-12-08b.toml"} <= names


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
        elif entry.get("action") == "twin deleted":
            assert key in corpus, f"kept question missing from corpus/asks: {entry['q']}"
            assert (entry["lang"], entry["duplicate_of"]) not in corpus, entry["duplicate_of"]
        elif entry.get("action") == "reworded":
            assert key not in corpus, f"reworded question still in corpus/asks: {entry['q']}"
            assert (entry["lang"], entry["reworded_as"]) in corpus, entry["reworded_as"]
        elif "better" in entry:
            assert corpus.get(key) == entry["better"], entry["q"]
    for fix in data.get("corpus_fix", []):
        key = (fix["lang"], fix["q"])
        if fix.get("action") == "deleted":
            assert key not in corpus, fix["q"]
        else:
            assert corpus.get(key) == fix["rules"], fix["q"]


@pytest.mark.parametrize(
    "path", [p for p in REVIEWS if p.name != "review-2026-12-07.toml"], ids=lambda p: p.name
)
def test_near_duplicates_name_a_question_still_in_the_corpus(path: Path) -> None:
    corpus = _corpus()
    data = _load(path)
    summary = data["summary"]
    flagged = [e for e in data["review"] if "near-duplicate" in e.get("flags", [])]
    assert len(flagged) == summary["overall"]["near_duplicates"]
    for lang in ("en", "fr", "ja"):
        mine = [e for e in flagged if e["lang"] == lang]
        assert len(mine) == summary[lang]["near_duplicates"], lang
    for entry in flagged:
        if entry.get("action") == "twin deleted":
            continue  # the pair's other question went (checked with the recorded fixes)
        assert entry.get("action") == "deleted", entry["q"]
        assert (entry["lang"], entry["duplicate_of"]) in corpus, entry["duplicate_of"]
    for fix in data.get("corpus_fix", []):
        if "duplicate_of" in fix:
            assert (fix["lang"], fix["duplicate_of"]) in corpus, fix["duplicate_of"]
    paraphrased = [e for e in data["review"] if "near-paraphrase" in e.get("flags", [])]
    assert len(paraphrased) == summary["paraphrases"]
    for entry in paraphrased:
        assert entry.get("action") in {"deleted", "reworded"}, entry["q"]


def test_the_second_review_records_its_corpus_wide_duplicate_scan() -> None:
    data = _load(ROOT / "tests" / "asks_review" / "review-2026-12-08.toml")
    kept = [f for f in data["corpus_fix"] if "duplicate_of" in f]
    assert kept, "the corpus-wide near-duplicate scan is recorded"


def test_the_third_sample_is_drawn_from_questions_not_already_judged() -> None:
    second = _load(ROOT / "tests" / "asks_review" / "review-2026-12-08.toml")
    third = _load(ROOT / "tests" / "asks_review" / "review-2026-12-08b.toml")
    judged = {(e["lang"], e["q"]) for e in second["review"]}
    drawn = [(e["lang"], e["q"]) for e in third["review"]]
    assert len(set(drawn)) == len(drawn)
    assert not judged & set(drawn)
    assert third["summary"]["seed"] != second["summary"]["seed"]
