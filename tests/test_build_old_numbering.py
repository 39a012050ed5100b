"""A knowledge base whose newest English edition predates a renumbering: nothing is attached to
its rules by numbers that mean another rule there (examples, far-off translations)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.build import build, load
from kb.knowledge.model import Edition, examples_fit


def _edition(date: str, kind: str = "full", lang: str = "en") -> Edition:
    return Edition(id=f"{lang}-{date}", lang=lang, kind=kind, date=date, numbering=None, sources=[])


def test_examples_fit_the_numbering_of_july_2019_on() -> None:
    assert examples_fit([_edition("2019-07-12"), _edition("2016-11-11")])
    assert not examples_fit([_edition("2019-06-12"), _edition("2016-11-11")])
    # Partial texts only (the embedded corpus): they follow their declared numbering.
    assert examples_fit([_edition("2024-07-30", kind="partial")])
    # Editions before M10 follow another numbering and do not decide.
    assert examples_fit([_edition("2005-10-01"), _edition("2024-07-30", kind="partial")])
    assert examples_fit([_edition("2023-11-17", lang="ja")])


@pytest.fixture(scope="module")
def old_only(tmp_path_factory, cr_en_dir: Path) -> Path:
    root = tmp_path_factory.mktemp("old-numbering")
    (root / "in").mkdir()
    shutil.copy(cr_en_dir / "MagicCompRules-2016-11-11.txt", root / "in")
    instance = root / "instance"
    report = build(instance, [root / "in"], run_examples_too=True)
    return instance, report


def test_no_example_is_attached_to_the_rule_of_an_older_numbering(old_only) -> None:
    instance, _ = old_only
    kb = load(instance)
    rule = kb.rules["en-2016-11-11"]["117.3b"]
    assert "life" in rule.text  # rule 117 is Costs in 2016: 117.3b is about paying life
    assert kb.examples, "the examples are still in the knowledge base"
    assert kb.examples_for(rule.canonical) == []


def test_a_translation_of_a_far_numbering_is_not_linked_by_number(old_only) -> None:
    instance, report = old_only
    assert any("over a year away" in note and "en-2016-11-11" in note for note in report.notes), (
        report.notes
    )
    kb = load(instance)
    ja = [e for e in kb.editions.values() if e.lang == "ja" and e.kind == "partial"]
    assert ja
    for ed in ja:
        for rule in kb.rules[ed.id].values():
            assert not rule.canonical or not rule.canonical[0].isdigit(), (
                rule.number,
                rule.canonical,
            )
