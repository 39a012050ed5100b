"""The build with the six official English editions of ../shared/corpus-raw (skipped where absent)."""

from __future__ import annotations

import re

import pytest

from kb.align.concordance import diff_editions


def test_editions_dates(full_kb) -> None:
    dates = [e.date for e in full_kb.editions_of("en", full_only=True)]
    assert dates == [
        "2011-09-30",
        "2016-11-11",
        "2019-06-14",
        "2019-07-12",
        "2023-11-17",
        "2025-11-14",
    ]


@pytest.mark.parametrize(
    ("edition", "number", "canonical"),
    [
        ("2011-09-30", "116.3b", "117.3b"),  # Timing and Priority 116 -> 117
        ("2016-11-11", "116", "117"),
        ("2019-06-14", "115.2a", "116.2a"),  # Special Actions 115 -> 116
        ("2019-06-14", "115", "116"),
        ("2019-07-12", "117.3b", "117.3b"),
    ],
)
def test_renumbering_followed(full_kb, edition: str, number: str, canonical: str) -> None:
    ed = full_kb.edition("en", edition)
    assert full_kb.rules[ed.id][number].canonical == canonical


def test_history_of_timing_and_priority(full_kb) -> None:
    history = full_kb.history("117.3b", "en")
    numbers = {h["date"]: h["number"] for h in history if h["date"]}
    assert numbers["2011-09-30"] == "116.3b" and numbers["2019-06-14"] == "116.3b"
    assert numbers["2019-07-12"] == "117.3b" and numbers["2025-11-14"] == "117.3b"


def test_japanese_follows_the_english_it_translates(full_kb) -> None:
    ja = full_kb.newest("ja")
    assert ja.translates == "en-2023-11-17"
    rule = full_kb.rules[ja.id]["116.2a"]
    en = full_kb.rules["en-2023-11-17"]["116.2a"]
    assert rule.lineage == en.lineage


def test_unchanged_rules_marked_same(full_kb) -> None:
    changes = diff_editions(full_kb, "en-2019-07-12", "en-2025-11-14")
    changed_new = {c.new for c in changes}
    old = full_kb.rules["en-2019-07-12"]
    new = full_kb.rules["en-2025-11-14"]
    # 117.1 (Timing and Priority) reads the same in both: no change listed, "same" on the rule.
    assert old["117.1"].text == new["117.1"].text
    assert "117.1" not in changed_new
    same = [n for n, r in new.items() if r.change == "same"]
    assert len(same) > 1000


def test_created_rule_marked_created(full_kb) -> None:
    # Rule 111 (Tokens) appears in July 2019: created then, and absent before.
    rule = full_kb.rules["en-2019-07-12"]["111"]
    assert rule.change == "created"
    changes = diff_editions(full_kb, "en-2019-06-14", "en-2019-07-12")
    assert any(c.change == "created" and c.new == "111" for c in changes)


def test_quote_of_a_present_edition_is_checked_not_duplicated(full_kb) -> None:
    ed = full_kb.edition("en", "2011-09-30")
    assert ed.kind == "full"
    assert any("en-site-rule-505" in s for s in ed.sources)
    assert not [
        e
        for e in full_kb.editions.values()
        if e.id != ed.id and e.date == "2011-09-30" and e.lang == "en"
    ]


def test_undated_quote_fits_editions(full_kb) -> None:
    quote = next(e for e in full_kb.editions_of("en") if e.date is None)
    assert quote.fits, "the English quote of the French wiki page fits no edition"
    assert all(f.startswith("en-201") for f in quote.fits)


# References that really dangle in the published texts (they name numbers that do not exist in
# that edition), found by reading them: edition date -> numbers, in rules and in the glossary.
DANGLING = {
    "2011-09-30": (set(), set()),
    "2016-11-11": ({"903.11a"}, set()),  # 702.123d "See rule 903.11a." before Brawl existed
    "2019-06-14": (set(), set()),
    "2019-07-12": (set(), set()),
    "2023-11-17": (set(), {"110.10"}),  # Map Token: "see rule 110.10" (tokens are 111)
    "2025-11-14": (set(), {"110.10"}),
}


def test_every_rule_reference_resolves(full_kb) -> None:
    for ed in full_kb.editions_of("en", full_only=True):
        in_rules = {
            ref.number for r in full_kb.rules[ed.id].values() for ref in r.refs if not ref.resolved
        }
        in_glossary = {
            ref.number
            for g in full_kb.glossary[ed.id].values()
            for ref in g.refs
            if not ref.resolved
        }
        assert (in_rules, in_glossary) == DANGLING[ed.date], ed.id


def test_references_counted_against_raw_text(full_kb, cr_en_dir) -> None:
    # Independent count: "rule NNN" mentions in the raw rules region of the newest edition.
    raw = (cr_en_dir / "MagicCompRules-2025-11-14.txt").read_text(encoding="utf-8-sig")
    body = raw[raw.index("Credits") + 7 : raw.rindex("Glossary")]
    mentions = len(re.findall(r"\brules? \d{3}", body))
    refs = sum(len(r.refs) for r in full_kb.rules["en-2025-11-14"].values())
    assert refs >= mentions


def test_plain_words_and_redirects_are_not_linked(full_kb) -> None:
    rules = full_kb.rules["en-2025-11-14"]
    uses_if = [r for r in rules.values() if " if " in r.text]
    assert uses_if and not any("if" in r.terms for r in uses_if)
    assert not any("apnap order" in r.terms for r in rules.values())  # a "See …" redirect
    assert {"priority", "pass", "mana pool"} <= set(rules["117.3d"].terms)


def test_small_edits_and_rewrites_keep_their_lineage(full_kb) -> None:
    changes = {
        (c.change, c.old, c.new) for c in diff_editions(full_kb, "en-2019-06-14", "en-2019-07-12")
    }
    # "its subtype" -> "its subtype(s)", moved into the new rule 111 (Tokens) with its siblings.
    assert ("edited", "110.5c", "111.4") in changes
    # The July 2019 mulligan rewrite keeps the rule's number and opening words: edited, not replaced.
    assert ("edited", "103.4c", "103.4c") in changes
    assert not any(kind == "deleted" for kind, _, _ in changes)
