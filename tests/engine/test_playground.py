"""The playground's scenario runner: a pasted block runs as it is, every problem has its line,
and nothing a visitor writes makes it raise."""

from __future__ import annotations

import random

from kb.engine.playground import MAX_CHARS, MAX_EVENTS, MAX_LINES, run_scenario

BOLT = """```game
players: Alice, Bob
Alice has: hand [Lightning Bolt]; battlefield [Mountain]
Alice taps Mountain for {R}
Alice casts Lightning Bolt targeting Bob
Alice passes
Bob passes
? life Bob: 17
```"""


def test_a_pasted_block_runs_with_its_fences() -> None:
    result = run_scenario(BOLT)
    assert result.passed and result.started and not result.problems
    texts = [e["text"] for e in result.events]
    assert any("Lightning Bolt resolves" in t or "resolves" in t for t in texts)
    assert all(isinstance(r, str) for e in result.events for r in e["rules"])
    assert any("117.3a" in e["rules"] for e in result.events)


def test_a_failed_expectation_names_its_line() -> None:
    result = run_scenario(BOLT.replace("? life Bob: 17", "? life Bob: 3"))
    assert not result.passed and result.started
    assert [(p.line, "expected life Bob: 3, got 17" in p.message) for p in result.problems] == [
        (8, True)
    ]


def test_syntax_errors_and_control_characters_have_their_lines() -> None:
    result = run_scenario("players: Alice, Bob\nAlice frobs\x00 it\nAlice dances")
    assert not result.started
    assert [p.line for p in result.problems] == [2]
    assert "U+0000" in result.problems[0].message
    result = run_scenario("players: Alice, Bob\nAlice dances")
    assert [p.line for p in result.problems] == [2]
    assert result.problems[0].message.startswith("syntax error")


def test_bounds_of_the_text() -> None:
    assert "too long" in run_scenario("x" * (MAX_CHARS + 1)).problems[0].message
    assert f"at most {MAX_LINES:,}" in run_scenario("\n" * MAX_LINES).problems[0].message
    assert "empty" in run_scenario("# only a comment\n\n").problems[0].message
    assert "players" in run_scenario("Alice has: life 3").problems[0].message
    assert "a text" in run_scenario(None).problems[0].message  # type: ignore[arg-type]


def test_the_trace_is_bounded() -> None:
    text = "players: Alice, Bob\nAlice has: library 1000\nBob has: library 1000\n" + (
        "advance to Bob upkeep\nadvance to Alice upkeep\n" * 40
    )
    result = run_scenario(text)
    assert len(result.events) == MAX_EVENTS and result.events_left_out > 0


def test_random_junk_never_raises() -> None:
    rng = random.Random(27)
    alphabet = "players: Alice, Bob\n[](){}?#,;:0123456789 casts has passes advance \x00\u2028é"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        result = run_scenario(text)
        assert isinstance(result.to_dict(), dict)


def test_an_expectation_before_the_players_is_a_problem_not_a_crash() -> None:
    """Found by the fuzz: '? stack:' before 'players:' started a game of no players."""
    result = run_scenario("? stack: \nplayers: Alice, Bob")
    assert not result.started and [p.line for p in result.problems] == [1]
    assert "players" in result.problems[0].message
