"""Counts of the example language are bounded: a huge number is a line-numbered syntax error,
never a hang, a MemoryError or a traceback (found by the new-user trial)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.engine import run_example_file
from kb.engine.cards import CardError, default_pool, parse_card_line
from kb.engine.game import Game
from kb.engine.limits import MAX_NUMBER, MAX_REPEAT, NumberTooLarge, bounded
from kb.engine.objects import ScenarioError

HUGE = "99999999999999999"
DIGITS_5000 = "9" * 5000  # above Python's limit on converting digits to an int


def scenario(tmp_path: Path, *lines: str) -> list[str]:
    """Run a one-scenario example made of ``lines``; its failures (line 6 is the first line)."""
    body = "\n".join(["players: Alice, Bob", "turn: Alice, precombat main", *lines])
    path = tmp_path / "ex.md"
    path.write_text(f"# Limits\n\nrules: 117.3b\n\n```game\n{body}\n```\n", encoding="utf-8")
    return run_example_file(path).failures


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (f"Alice has: library {HUGE}", "library"),
        (f"Alice has: library {MAX_REPEAT + 1}", "library"),
        (f"Alice has: library {DIGITS_5000}", "library"),
        (f"Alice has: life {DIGITS_5000}", "life"),
        (f"Alice has: life -{HUGE}", "life"),
        (f"Alice has: poison {HUGE}", "poison"),
        (f"Alice has: lands played {HUGE}", "lands played"),
        (f"Alice has: battlefield [Grizzly Bears ({HUGE} damage)]", "damage"),
        (f"Alice has: battlefield [Grizzly Bears ({HUGE} +1/+1 counters)]", "counter"),
        (f"card Big Draw: sorcery {{U}}; draw {HUGE}", "draw"),
        (f"card Big Draw: sorcery {{U}}; draw {MAX_REPEAT + 1}", "draw"),
        (f"card Big Purge: sorcery {{B}}; discard {HUGE}", "discard"),
        (f"card Swarm: sorcery {{G}}; create {HUGE} 1/1 green saproling creature tokens", "tokens"),
        (f"card Peek: sorcery {{U}}; scry {HUGE}", "scry"),
        (f"card Fat: creature {{G}} {HUGE}/1", "power/toughness"),
        (f"card Pricey: sorcery {{{HUGE}}}; draw 1", "generic mana"),
        (f"card Walker: planeswalker {{2}}; loyalty {HUGE}", "loyalty"),
        (f"card Slow: sorcery {{R}}; suspend {HUGE} — {{R}}", "suspend"),
        (f"Alice casts Lightning Bolt choosing mode {HUGE}", "mode"),
        (f"Alice assigns Craw Wurm's combat damage: {DIGITS_5000} to Bob", "damage"),
    ],
)
def test_a_huge_count_is_a_syntax_error_naming_the_line(tmp_path, line, words):
    failures = scenario(tmp_path, line, "Alice passes")
    assert failures, line
    first = failures[0]
    assert ":8:" in first  # the line of the huge number
    assert "too large" in first and words in first


def test_the_turn_number_is_bounded(tmp_path):
    path = tmp_path / "ex.md"
    path.write_text(
        "# T\n\nrules: 117.3b\n\n```game\nplayers: Alice, Bob\n"
        f"turn: Alice, upkeep, turn {HUGE}\nAlice passes\n```\n",
        encoding="utf-8",
    )
    failures = run_example_file(path).failures
    assert failures and ":7:" in failures[0] and "turn" in failures[0]


def test_a_library_at_the_bound_still_plays(tmp_path):
    failures = scenario(
        tmp_path, f"Alice has: library {MAX_REPEAT}", f"? library Alice: {MAX_REPEAT}"
    )
    assert failures == []


def test_a_large_life_total_within_the_bound_is_kept(tmp_path):
    failures = scenario(tmp_path, f"Alice has: life {MAX_NUMBER}", f"? life Alice: {MAX_NUMBER}")
    assert failures == []


def test_bounded_reads_signs_and_refuses_before_converting():
    assert bounded("-20", "life") == -20
    assert bounded("+3", "loyalty") == 3
    assert bounded("0007", "x", 10) == 7
    with pytest.raises(NumberTooLarge, match=r"at most 1,000"):
        bounded("1001", "library", MAX_REPEAT)
    with pytest.raises(CardError):
        bounded(DIGITS_5000, "draw", error=CardError)


def test_card_definitions_refuse_huge_counts_directly():
    with pytest.raises(CardError, match="too large"):
        parse_card_line(f"Swarm: sorcery {{G}}; create {HUGE} 1/1 green saproling creature tokens")


def test_the_game_refuses_a_library_count_above_the_bound():
    game = Game(["Alice", "Bob"], default_pool())
    with pytest.raises(ScenarioError, match="library"):
        game.set_library_count("Alice", MAX_REPEAT + 1)


@pytest.mark.parametrize("text", ["²", "٣", "-+5", "1²"])
def test_only_ascii_digits_are_a_number(text: str) -> None:
    """str.isdigit says yes to "²": it must be a clear error, not int()'s ValueError."""
    with pytest.raises(NumberTooLarge, match="is a number, not"):
        bounded(text, "damage")
