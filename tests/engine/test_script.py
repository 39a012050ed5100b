"""The example language: parsing, error messages with file:line, the runner and the CLI."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kb.engine import examples_cli, run_example_file, run_examples
from kb.engine.cards import CardError, parse_card
from kb.engine.examples import parse_rules_line

GOOD = """# Bolt the bear

rules: 117.3b, 117.4

```game
players: Alice, Bob
turn: Alice, precombat main
Alice has: hand [Lightning Bolt]; battlefield [Mountain]
Bob has: battlefield [Grizzly Bears]
Alice casts Lightning Bolt targeting Grizzly Bears
Alice passes
Bob passes
? resolved: Lightning Bolt
? graveyard Bob: [Grizzly Bears]
? priority: Alice
```
"""


def write(tmp_path: Path, text: str, name: str = "ex.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_example_passes_with_trace(tmp_path):
    result = run_example_file(write(tmp_path, GOOD))
    assert result.passed, result.failures
    assert result.title == "Bolt the bear"
    assert result.rules == ["117.3b", "117.4"]
    assert result.id == "ex"
    kinds = [e["kind"] for e in result.trace]
    assert "resolve" in kinds and "state-based actions" in kinds
    assert all({"seq", "kind", "player", "text", "rules", "step"} <= set(e) for e in result.trace)
    assert "Lightning Bolt resolves" in result.trace_text


def test_failing_expectation_names_file_line_expected_and_actual(tmp_path):
    path = write(tmp_path, GOOD.replace("? priority: Alice", "? priority: Bob"))
    result = run_example_file(path)
    assert not result.passed
    assert result.failures == [f"{path}:15: expected priority: Bob, got Alice"]


def test_syntax_errors_name_file_and_line(tmp_path):
    text = GOOD.replace("Alice passes\n", "Alice dances\n", 1).replace(
        "? priority: Alice", "? weather: sunny"
    )
    path = write(tmp_path, text)
    result = run_example_file(path)
    assert not result.passed
    assert result.failures[0].startswith(f"{path}:11: syntax error: unknown action 'dances'")
    assert result.failures[1].startswith(f"{path}:15: syntax error: unknown expectation 'weather'")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("card Oops: instant {R}; explode loudly", "unknown effect"),
        ("turn: Zed, upkeep", "unknown player 'Zed'"),
        ("turn: Alice, lunch", "unknown step 'lunch'"),
        ("Alice has: hand Lightning Bolt", "is a list in brackets"),
        ('Alice says "hurry"', "unknown shortcut"),
        ("advance to Alice teatime", "unknown step"),
    ],
)
def test_bad_lines_are_reported(tmp_path, line, message):
    text = GOOD.replace("Alice passes\n", line + "\n", 1)
    result = run_example_file(write(tmp_path, text))
    assert not result.passed
    assert any(":11: syntax error:" in f and message in f for f in result.failures), result.failures


def test_unexpected_rejection_fails_at_the_action_line(tmp_path):
    text = GOOD.replace("Alice passes\n", "Alice plays Mountain\n", 1)
    result = run_example_file(write(tmp_path, text))
    assert not result.passed
    assert ":11: action rejected:" in result.failures[0]
    assert "305.1" in result.failures[0]


def test_expected_rejection_that_was_accepted_fails(tmp_path):
    text = GOOD.replace("Alice passes\n", "Alice passes\n? rejected: 117.1\n", 1)
    result = run_example_file(write(tmp_path, text))
    assert any("the action at line 11 was accepted" in f for f in result.failures)


def test_unknown_card_in_setup_is_a_failure_not_an_exception(tmp_path):
    text = GOOD.replace("Grizzly Bears]", "Black Lotus]", 1)
    result = run_example_file(write(tmp_path, text))
    assert not result.passed
    assert "setup: unknown card 'Black Lotus'" in result.failures[0]


def test_unreadable_and_empty_files_never_raise(tmp_path):
    missing = run_example_file(tmp_path / "nope.md")
    assert not missing.passed and missing.failures
    empty = run_example_file(write(tmp_path, "just prose\n"))
    assert not empty.passed
    assert any("no ```game block" in f for f in empty.failures)
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"\xff\xfe\x00bad")
    assert not run_example_file(binary).passed


def test_cli_prints_one_line_per_example_and_a_summary(tmp_path):
    write(tmp_path, GOOD, "a-good.md")
    write(
        tmp_path,
        GOOD.replace("? life", "?").replace("? priority: Alice", "? priority: Bob"),
        "b-bad.md",
    )
    out = io.StringIO()
    code = examples_cli([str(tmp_path)], out=out)
    lines = out.getvalue().splitlines()
    assert code == 1
    assert lines[0] == "PASS a-good (117.3b, 117.4)"
    assert lines[1].startswith("FAIL b-bad (117.3b, 117.4): ")
    assert "expected priority: Bob, got Alice" in lines[1]
    assert lines[-1] == "1 passed, 1 failed"


def test_cli_trace_and_missing_path(tmp_path):
    path = write(tmp_path, GOOD)
    out = io.StringIO()
    assert examples_cli([str(path)], trace=True, out=out) == 0
    assert "Alice receives priority" in out.getvalue()
    out = io.StringIO()
    assert examples_cli([str(tmp_path / "missing.md")], out=out) == 1
    assert "no such file" in out.getvalue()


def test_run_examples_expands_folders(tmp_path):
    write(tmp_path, GOOD, "one.md")
    write(tmp_path, GOOD, "two.md")
    assert [r.id for r in run_examples([tmp_path])] == ["one", "two"]


def test_rules_line_parsing():
    assert parse_rules_line("x\nrules: 117.3b, 117.4, MTR 4.2\n") == ["117.3b", "117.4", "MTR 4.2"]
    assert parse_rules_line("no rules here") == []


def test_card_language():
    elves = parse_card("Elves", "creature {G} 1/1; ability {T}: add {G}")
    assert elves.abilities[0].is_mana_ability and elves.abilities[0].tap
    pinger = parse_card(
        "Pinger", "creature {2}{U} 1/1; ability {1}, {T}: deal 1 damage to any target"
    )
    assert not pinger.abilities[0].is_mana_ability and pinger.abilities[0].mana_cost.total == 1
    helix = parse_card("Helix", "instant {R}{W}; deal 3 damage to any target and gain 3 life")
    assert [e.kind for e in helix.effects] == ["damage", "gain"] and helix.targets == ["any"]
    with pytest.raises(CardError, match="no card type"):
        parse_card("Blob", "{2} 2/2")
    with pytest.raises(CardError, match="needs power/toughness"):
        parse_card("Blob", "creature {2}")
    with pytest.raises(CardError, match="unknown trigger condition"):
        parse_card("Blob", "creature {2} 1/1; trigger whenever the moon rises: draw 1")


# ---- issue 10: unknown words are errors naming them; quoted names; teams not modelled ---------
@pytest.mark.parametrize(
    ("definition", "word"),
    [
        ("creature — Sliver {R} 1/1", "'Sliver'"),
        ("snow creature {G} 2/2", "'snow'"),
        ("tribal instant {R}; deal 1 damage to any target", "'tribal'"),
        ("creature {G} 2/2; fear", "'fear'"),
    ],
)
def test_unknown_words_in_a_card_are_errors_naming_them(definition: str, word: str) -> None:
    with pytest.raises(CardError, match=word):
        parse_card("X", definition)


def test_legendary_and_modelled_subtypes_are_kept() -> None:
    card = parse_card("Isamaru", "legendary creature {W} 2/2")
    assert card.legendary and card.types == ("creature",)
    aura = parse_card(
        "Rancor",
        "enchantment — Aura {G}; enchant creature; static enchanted creature gets +2/+0 and has trample",
    )
    assert aura.has_sub("aura") and aura.attached_bonus == (2, 0, frozenset({"trample"}))
    with pytest.raises(CardError, match="enchant creature"):
        parse_card("Bad", "enchantment — Aura {G}")


def test_a_card_name_with_a_comma_is_quoted(tmp_path: Path) -> None:
    from kb.engine.cards import parse_card_line

    assert parse_card_line('"Isamaru, Hound of Konda": legendary creature {W} 2/2').name == (
        "Isamaru, Hound of Konda"
    )
    with pytest.raises(CardError, match="quoted"):
        parse_card_line("Isamaru, Hound of Konda: legendary creature {W} 2/2")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("teams: A+C, B+D", "two teams of two"),
        ("teams: A & B & C vs D", "two teams of two"),
        ("teams: A & C vs B & D", "sit next to each other"),
        ("teams: A & B vs C & E", "no player named 'E'"),
    ],
)
def test_a_teams_line_that_is_not_two_adjacent_pairs_is_an_error(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "teams.md"
    path.write_text(f"# Teams\n\nrules: 117.6\n\n```game\nplayers: A, B, C, D\n{line}\n```\n")
    result = run_example_file(path)
    assert not result.passed
    assert message in result.failures[0], result.failures


def test_delayed_trigger_with_a_comma_parses() -> None:
    card = parse_card("Late", "instant {U}; at the beginning of the next cleanup step, draw a card")
    assert card.effects[0].kind == "delayed" and card.effects[0].delayed.step.value == "cleanup"


# ---- the lines of issue 10's second session ---------------------------------------------------


def _actions(*lines: str):
    from kb.engine.script import parse_block

    numbered = list(enumerate(["players: Alice, Bob", *lines], 1))
    statements, problems = parse_block(numbered)
    assert not problems, [p.message for p in problems]
    return [s.data["action"] for s in statements if s.kind == "action"]


def test_consecutive_assignment_lines_make_one_announcement():
    (action,) = _actions(
        "Alice assigns Hill Giant's combat damage: 2 to Grizzly Bears, 1 to Llanowar Elves",
        "Alice assigns Craw Wurm's damage: 6 to Bob",
    )
    assert action.kind == "assign"
    assert action.assignment == (
        ("Hill Giant", (("Grizzly Bears", 2), ("Llanowar Elves", 1))),
        ("Craw Wurm", (("Bob", 6),)),
    )


def test_group_announcements_and_special_action_lines_parse():
    group, announce, ask, stop, ignore, die, reveal, unlock, interrupt = _actions(
        "Alice adds a group: casts Shock targeting Bob; casts Shock targeting Bob",
        "Alice announces for Opt: bottom Island, Forest",
        "Bob asks about the choices for Opt",
        "Bob pays {U} to stop Quenchable Fire",
        "Alice ignores Stillness Field until end of turn",
        "Alice rolls the planar die (chaos)",
        "Alice turns the conspiracy Secret Summoning face up",
        "Alice unlocks Locker Room",
        "Bob interrupts the group at 2",
    )
    assert [a.kind for a in group.group] == ["cast", "cast"]
    assert (announce.card, announce.phrase, announce.names) == (
        "Opt",
        "bottom",
        ("Island", "Forest"),
    )
    assert (ask.kind, stop.kind, stop.card, ignore.kind) == (
        "inquire",
        "stop_effect",
        "Quenchable Fire",
        "ignore_effect",
    )
    assert (die.kind, die.phrase, reveal.kind, unlock.card) == (
        "planar_die",
        "chaos",
        "reveal_conspiracy",
        "Locker Room",
    )
    assert (interrupt.kind, interrupt.ability) == ("interrupt_group", 2)


def test_a_malformed_assignment_or_group_part_is_a_syntax_error():
    from kb.engine.script import parse_block

    for line in (
        "Alice assigns Hill Giant's combat damage: lots to Bob",
        "Alice adds a group: casts Shock; dances",
        "option: archenemy",
    ):
        _, problems = parse_block([(1, "players: Alice, Bob"), (2, line)])
        assert problems and problems[0].line == 2, line


def test_a_quoted_name_after_n_to_in_a_damage_assignment_is_unquoted():
    (action,) = _actions(
        "Alice assigns Colossal Dreadmaw's combat damage: 2 to Grizzly Bears, 4 to \"Chandra, "
        'Torch of Defiance"'
    )
    assert action.assignment == (
        ("Colossal Dreadmaw", (("Grizzly Bears", 2), ("Chandra, Torch of Defiance", 4))),
    )


def test_trample_damage_assigned_to_a_planeswalker_with_a_comma_in_its_name(tmp_path):
    text = """# Trample over a blocker into a planeswalker

rules: 702.19b

```game
players: Alice, Bob
turn: Alice, declare attackers
Alice has: battlefield [Colossal Dreadmaw]
Bob has: battlefield [Grizzly Bears, "Chandra, Torch of Defiance" (4 loyalty)]
Alice attacks with Colossal Dreadmaw attacking "Chandra, Torch of Defiance"
Alice passes
Bob passes
Bob blocks Colossal Dreadmaw with Grizzly Bears
Alice passes
Bob passes
Alice assigns Colossal Dreadmaw's combat damage: 2 to Grizzly Bears, 4 to "Chandra, Torch of Defiance"
? graveyard Bob: [Grizzly Bears, "Chandra, Torch of Defiance"]
? life Bob: 20
```
"""
    result = run_example_file(write(tmp_path, text))
    assert result.passed, result.failures
