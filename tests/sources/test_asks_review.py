"""The reviews of "Players ask" (tests/asks_review/review-*.toml) and the by-eye dedupe of the new
questions no review judged (dedupe-2026-12-08.toml) agree with themselves and with the corpus: each
summary counts its own entries, and every fix they record is in corpus/asks."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REVIEWS = sorted((ROOT / "tests" / "asks_review").glob("review-*.toml"))
DEDUPE = ROOT / "tests" / "asks_review" / "dedupe-2026-12-08.toml"
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


def _deleted_later() -> set[tuple[str, str]]:
    """Return the (lang, question) pairs the dedupe pass deleted after the reviews."""
    return {(e["lang"], e["q"]) for e in _load(DEDUPE)["dedupe"] if e["action"] == "deleted"}


def test_every_sample_is_there() -> None:
    names = {p.name for p in REVIEWS}
    assert {
        "review-2026-12-07.toml",
        "review-2026-12-08.toml",
        "review-2026-12-08b.toml",
        "review-2026-12-08c.toml",
    } <= names


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
    later = _deleted_later()
    for fix in data.get("corpus_fix", []):
        key = (fix["lang"], fix["q"])
        if fix.get("action") == "deleted" or key in later:
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


def test_the_fourth_sample_leaves_out_both_earlier_samples() -> None:
    fourth = _load(ROOT / "tests" / "asks_review" / "review-2026-12-08c.toml")
    earlier = [
        _load(ROOT / "tests" / "asks_review" / name) for name in fourth["summary"]["excludes"]
    ]
    assert len(earlier) == 2
    judged = {(e["lang"], e["q"]) for data in earlier for e in data["review"]}
    drawn = [(e["lang"], e["q"]) for e in fourth["review"]]
    assert len(set(drawn)) == len(drawn)
    assert not judged & set(drawn)
    assert fourth["summary"]["seed"] not in {data["summary"]["seed"] for data in earlier}


def test_the_weighted_share_of_todays_samples_follows_from_their_verdicts() -> None:
    """Each sample's share (answers / sample) weighted by the pool it was drawn from."""
    weighted = _load(ROOT / "tests" / "asks_review" / "review-2026-12-08c.toml")["summary"][
        "weighted"
    ]
    samples = [
        _load(ROOT / "tests" / "asks_review" / name)["summary"] for name in weighted["samples"]
    ]
    total = pooled = 0.0
    for lang in ("en", "fr", "ja"):
        pools = weighted["pools"][lang]
        assert len(pools) == len(samples)
        for pool, summary in zip(pools, samples, strict=True):
            assert summary[lang]["sample"] == round(pool / 10), (lang, pool)
        share = sum(
            pool * s[lang]["answers"] / s[lang]["sample"]
            for pool, s in zip(pools, samples, strict=True)
        )
        assert weighted[lang] == round(100 * share / sum(pools), 1), lang
        total += share
        pooled += sum(pools)
    assert weighted["overall"] == round(100 * total / pooled, 1)


def test_the_dedupe_summary_counts_its_entries() -> None:
    data = _load(DEDUPE)
    entries, summary = data["dedupe"], data["summary"]
    assert [e["n"] for e in entries] == list(range(len(entries)))
    total = Counter()
    for lang in ("en", "fr", "ja"):
        if lang not in summary:
            continue
        mine = [e for e in entries if e["lang"] == lang]
        row = summary[lang]
        deleted = [e for e in mine if e["action"] == "deleted"]
        corrected = [e for e in mine if e["action"] == "corrected"]
        assert len(deleted) + len(corrected) == len(mine), lang
        assert row["deleted"] == len(deleted) and row["corrected"] == len(corrected), lang
        assert row["kept"] == row["judged"] - row["deleted"] >= row["corrected"], lang
        assert row["miscited_duplicates"] == sum(1 for e in deleted if "note" in e), lang
        total.update({k: row[k] for k in ("judged", "deleted", "corrected", "kept")})
    for key in ("judged", "deleted", "corrected", "kept"):
        assert summary["overall"][key] == total[key], key


def test_the_dedupe_judged_only_questions_no_review_sample_had() -> None:
    """The samples drawn before the dedupe (its excludes) share no question with it."""
    before = _load(DEDUPE)["summary"]["excludes"]
    sampled = {
        (e["lang"], e["q"])
        for name in before
        for e in _load(ROOT / "tests" / "asks_review" / name)["review"]
    }
    keys = [(e["lang"], e["q"]) for e in _load(DEDUPE)["dedupe"]]
    assert len(set(keys)) == len(keys)
    assert not sampled & set(keys)


def test_the_dedupe_deletions_are_gone_and_corrections_present() -> None:
    corpus = _corpus()
    for entry in _load(DEDUPE)["dedupe"]:
        key = (entry["lang"], entry["q"])
        if entry["action"] == "deleted":
            assert key not in corpus, f"deleted duplicate still in corpus/asks: {entry['q']}"
            assert entry["duplicate_of"] != entry["q"]
            kept = (entry["lang"], entry["duplicate_of"])
            assert kept in corpus, f"the question it duplicates is gone: {entry['duplicate_of']}"
        else:
            assert entry["action"] == "corrected", entry
            assert entry["corrected"] != entry["rules"], entry["q"]
            assert corpus.get(key) == entry["corrected"], entry["q"]
            assert entry["note"].strip(), entry["q"]


def test_the_english_and_french_citation_check_is_in_the_corpus() -> None:
    """citecheck-2026-12-08-a: every corrected citation is what corpus/asks cites now, every deleted
    question is gone (and the question it repeats, if any, stays), and the summary counts the changes."""
    data = _load(ROOT / "tests" / "asks_review" / "citecheck-2026-12-08-a.toml")
    corpus = _corpus()
    changes, summary = data["change"], data["summary"]
    assert [e["n"] for e in changes] == list(range(len(changes)))
    assert len({(e["lang"], e["q"]) for e in changes}) == len(changes)
    total = Counter()
    for lang in ("en", "fr"):
        mine = [e for e in changes if e["lang"] == lang]
        deleted = sum(1 for e in mine if e["action"] == "deleted")
        row = summary[lang]
        assert row["changed"] == len(mine) and row["deleted"] == deleted, lang
        assert row["corrected"] == len(mine) - deleted <= row["judged"], lang
        total.update({k: row[k] for k in ("judged", "changed", "corrected", "deleted")})
    for key in ("judged", "changed", "corrected", "deleted"):
        assert summary["overall"][key] == total[key], key
    for entry in changes:
        assert entry["lang"] in ("en", "fr") and entry["note"].strip(), entry["q"]
        key = (entry["lang"], entry["q"])
        if entry["action"] == "deleted":
            assert key not in corpus, f"deleted question still in corpus/asks: {entry['q']}"
            if "duplicate_of" in entry:
                kept = (entry["lang"], entry["duplicate_of"])
                assert kept in corpus, f"the question it repeats is gone: {entry['duplicate_of']}"
        else:
            assert entry["action"] == "corrected", entry
            assert entry["rules_now"] != entry["rules"], entry["q"]
            assert corpus.get(key) == entry["rules_now"], entry["q"]


def test_the_ja_citation_check_is_counted_and_in_the_corpus() -> None:
    """citecheck-2026-12-08-b.toml counts its changes, judged only questions no sample had, and every
    correction (new rules) or deletion it records is in corpus/asks/ja."""
    data = _load(ROOT / "tests" / "asks_review" / "citecheck-2026-12-08-b.toml")
    summary, changes = data["summary"], data["change"]
    deleted = [c for c in changes if c["new"] == "deleted"]
    assert summary["changed"] == len(changes) <= summary["judged"]
    assert summary["deleted"] == len(deleted)
    assert summary["corrected"] == len(changes) - len(deleted)
    keys = [(c["lang"], c["q"]) for c in changes]
    assert len(set(keys)) == len(keys)
    assert all(lang == summary["lang"] for lang, _ in keys)
    sampled = {
        (e["lang"], e["q"])
        for name in summary["excludes"]
        for e in _load(ROOT / "tests" / "asks_review" / name)["review"]
    }
    assert not sampled & set(keys)
    corpus = _corpus()
    for change in changes:
        key = (change["lang"], change["q"])
        assert change["why"].strip(), change["q"]
        if change["new"] == "deleted":
            assert key not in corpus, f"deleted question still in corpus/asks: {change['q']}"
        else:
            assert change["new"] != change["rules"], change["q"]
            assert corpus.get(key) == change["new"], change["q"]
