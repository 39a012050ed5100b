"""``--edition``: a file's own date names its edition, a prefix needs at least a year, and a
prefix naming several editions is named back (found by the new-user trial: ``--edition
2019-06-12`` found nothing, ``--edition 2`` silently meant the newest edition)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from kb.cli.main import CommandError, _pinned_edition, main
from kb.knowledge.model import Edition, KnowledgeBase


@pytest.fixture
def kb() -> KnowledgeBase:
    kb = KnowledgeBase()
    for date, source in [
        ("2019-05-03", "raw/MagicCompRules-2019-05-03.txt"),
        ("2019-06-14", "raw/MagicCompRules-2019-06-12.txt"),  # effective two days after its name
        ("2025-11-14", "raw/MagicCompRules 20251114.txt"),
    ]:
        kb.editions[f"en-{date}"] = Edition(
            id=f"en-{date}",
            lang="en",
            date=date,
            kind="full",
            numbering=f"en-{date}",
            sources=[source],
        )
    return kb


@pytest.mark.parametrize(
    ("spec", "found"),
    [
        ("2019-06-12", ["en-2019-06-14"]),  # the file's own date
        ("2019-06-14", ["en-2019-06-14"]),
        ("en-2019-05-03", ["en-2019-05-03"]),
        ("2025-11-14", ["en-2025-11-14"]),
        ("2019-06", ["en-2019-06-14"]),
        ("2019", ["en-2019-05-03", "en-2019-06-14"]),
        ("2", []),
        ("201", []),
        ("2019-0", []),
        ("2019-06-13", []),
    ],
)
def test_what_an_edition_spec_names(kb: KnowledgeBase, spec: str, found: list[str]) -> None:
    assert [e.id for e in kb.edition_matches("en", spec)] == found
    newest = kb.edition("en", spec)
    assert (newest.id if newest else None) == (found[-1] if found else None)


def test_the_command_names_the_candidates_of_an_ambiguous_prefix(kb: KnowledgeBase) -> None:
    assert _pinned_edition(kb, "en", "2019-06-12").id == "en-2019-06-14"
    with pytest.raises(
        CommandError, match=r"'2019' names 2 en editions \(2019-05-03, 2019-06-14\)"
    ):
        _pinned_edition(kb, "en", "2019")
    with pytest.raises(
        CommandError, match=r"no en edition '2' \(known: 2019-05-03, 2019-06-14, 2025-11-14\)"
    ):
        _pinned_edition(kb, "en", "2")


def test_kb_rule_refuses_a_one_digit_edition(embedded_instance: Path) -> None:
    err = io.StringIO()
    with redirect_stderr(err):
        status = main(
            ["rule", "117.3a", "--edition", "2", "--instance", str(embedded_instance)],
            io.StringIO(),
        )
    assert status == 1 and "no en edition '2'" in err.getvalue()
