"""Issue 28.6: "pasing" is corrected to "passing" (a dropped double letter), not to the more
frequent "paying" at the same edit distance."""

from __future__ import annotations

from kb.search.spelling import typo_rank


def test_a_dropped_double_letter_is_the_likelier_slip() -> None:
    assert typo_rank("pasing", "passing") == 0
    assert typo_rank("pasing", "paying") == 1
    assert typo_rank("ocur", "occur") == 0
    assert typo_rank("stak", "stack") == 1
