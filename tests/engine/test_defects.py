"""Defects a tester found in the engine and the example language: each test failed before its
fix. Statements must be honoured as written or refused, never accepted with no effect."""

from __future__ import annotations

import io
from pathlib import Path

from kb.engine import examples_cli, run_example_file
from kb.engine.cards import default_pool
from kb.engine.game import Action, Game
from kb.engine.steps import Step


def _example(tmp_path: Path, body: str, name: str = "ex.md") -> Path:
    path = tmp_path / name
    path.write_text(f"# A test\n\nrules: 117.1\n\n```game\n{body.strip()}\n```\n", encoding="utf-8")
    return path


def _failures(tmp_path: Path, body: str) -> list[str]:
    return run_example_file(_example(tmp_path, body)).failures


# ---- a setup marker naming a permanent not yet set up ------------------------------------------


def test_attached_to_a_permanent_listed_later_is_a_setup_failure_not_a_crash(
    tmp_path: Path,
) -> None:
    bad = _example(
        tmp_path,
        """
players: Alice, Bob
Alice has: battlefield [Holy Strength (attached to Grizzly Bears), Grizzly Bears]
""",
        "bad.md",
    )
    _example(tmp_path, "players: Alice, Bob\nAlice passes\n? priority: Bob", "good.md")
    result = run_example_file(bad)
    assert not result.passed
    assert "Grizzly Bears" in result.failures[0] and "before" in result.failures[0]
    out = io.StringIO()
    assert examples_cli([str(tmp_path)], out=out) == 1
    assert out.getvalue().splitlines()[-1] == "1 passed, 1 failed"


def test_attached_to_a_quoted_name_with_a_comma(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
card "Tarkir, Hound": creature {W} 2/2
Alice has: battlefield ["Tarkir, Hound", Holy Strength (attached to "Tarkir, Hound")]
? pt "Tarkir, Hound": 3/4
"""
    assert _failures(tmp_path, body) == []


# ---- holding priority lapses -----------------------------------------------------------------


def test_a_hold_announcement_lapses_when_the_player_passes(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
mode: tournament
turn: Alice, upkeep
Alice has: hand [Shock]; battlefield [Mountain]
Alice holds priority
Alice passes
advance to Alice precombat main
Alice casts Shock targeting Bob
? priority: Bob
"""
    assert _failures(tmp_path, body) == []


# ---- statements accepted with no effect -------------------------------------------------------


def test_ordering_unknown_trigger_sources_is_refused(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
turn: Bob, end
Alice has: battlefield [Phyrexian Arena, Howling Mine]
Alice orders triggers Phyrexian Arena, Lightning Bolt
? rejected: 603.3b
? rejected: Lightning Bolt
"""
    assert _failures(tmp_path, body) == []


def test_a_late_trigger_order_is_refused_not_kept_for_a_later_batch(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
turn: Bob, end
card Morning Tithe: enchantment {2}; trigger at the beginning of your upkeep: gain 2 life
Alice has: battlefield [Phyrexian Arena, Morning Tithe]
advance to Alice upkeep
? stack: [Phyrexian Arena trigger, Morning Tithe trigger]
Alice orders triggers Morning Tithe, Phyrexian Arena
? rejected: already on the stack
"""
    assert _failures(tmp_path, body) == []


def test_a_trigger_order_lapses_after_the_next_turn(tmp_path: Path) -> None:
    game = Game(["Alice", "Bob"], default_pool())
    game.put("Alice", "battlefield", ["Phyrexian Arena", "Howling Mine"])
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 20)
    game.start("Bob", Step.UPKEEP, 2)
    game.perform(Action("order_triggers", "Alice", names=("Howling Mine", "Phyrexian Arena")))
    assert game.trigger_order
    game.advance_to("Alice", Step.END)  # one trigger at a time: no batch to order
    assert game.trigger_order
    game.advance_to("Bob", Step.END)
    assert not game.trigger_order
    assert "lapses unused" in game.trace_text()


def test_keeping_the_old_of_a_name_not_legendary_is_refused(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
Alice has: battlefield [Grizzly Bears]
Alice keeps the old Grizzly Bears
? rejected: 704.5j
Alice keeps the old Nonexistent Card
? rejected: Nonexistent Card
"""
    assert _failures(tmp_path, body) == []


def test_the_keep_choice_applies_to_the_name_it_names(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
turn: Alice, precombat main
card "Kira, Legend": legendary creature {W} 1/1
Alice has: hand ["Isamaru, Hound of Konda"]; battlefield ["Isamaru, Hound of Konda" (tapped), "Kira, Legend", Plains]
Alice keeps the old "Kira, Legend"
Alice casts "Isamaru, Hound of Konda"
Alice passes
Bob passes
? untapped: "Isamaru, Hound of Konda"   # the choice named another legend: the newest stays
"""
    assert _failures(tmp_path, body) == []


def test_targeting_a_player_not_in_the_game_is_refused(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
Alice has: battlefield [Blood Artist]
Alice targets Carol with Blood Artist
? rejected: Carol
Alice targets Bob with Grizzly Bears
? rejected: 603.3d
"""
    assert _failures(tmp_path, body) == []


def test_announcing_the_sacrifice_of_a_creature_not_yours_is_refused(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
turn: Alice, precombat main
Alice has: hand [Innocent Blood]; battlefield [Swamp, Grizzly Bears, Savannah Lions]
Bob has: battlefield [Hill Giant]
Alice casts Innocent Blood
Alice announces for Innocent Blood: sacrifice Hill Giant
? rejected: 701.21a
"""
    assert _failures(tmp_path, body) == []


def test_unknown_words_after_casts_are_named(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
Alice has: hand [Shock]; battlefield [Mountain]
Alice casts Shock targetting Bob
? rejected: targetting Bob
"""
    assert _failures(tmp_path, body) == []


# ---- the sacrificing player chooses ------------------------------------------------------------


def test_a_player_sacrificing_to_an_opponents_spell_chooses_what(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
turn: Alice, precombat main
Alice has: hand [Diabolic Edict]; battlefield [Swamp, Swamp]
Bob has: battlefield [Hill Giant, Grizzly Bears]
Alice casts Diabolic Edict targeting Bob
Bob announces for Diabolic Edict: sacrifice Hill Giant
Alice passes
Bob passes
? graveyard Bob: [Hill Giant]
? battlefield Bob: [Grizzly Bears]
"""
    assert _failures(tmp_path, body) == []


# ---- citations ---------------------------------------------------------------------------------


def test_a_tapped_creatures_tap_ability_cites_107_5(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
Alice has: battlefield [Prodigal Sorcerer (tapped)]
Alice activates Prodigal Sorcerer targeting Bob
? rejected: 107.5
"""
    assert _failures(tmp_path, body) == []
    game = Game(["Alice", "Bob"], default_pool())
    game.put("Alice", "battlefield", ["Prodigal Sorcerer (tapped)"])
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    err = game.why_illegal(Action("activate", "Alice", "Prodigal Sorcerer", targets=("Bob",)))
    assert err is not None and "302.6" not in err.rules


def test_a_second_companion_action_cites_once_a_game(tmp_path: Path) -> None:
    body = """
players: Alice, Bob
Alice has: companion [Lurrus of the Dream-Den]; battlefield [Plains, Plains, Swamp, Swamp, Swamp, Swamp]
Alice puts companion Lurrus of the Dream-Den into hand
Alice puts companion Lurrus of the Dream-Den into hand
? rejected: 116.2g
"""
    assert _failures(tmp_path, body) == []


# ---- an expectation before the players (found by the playground's fuzzing) -------------------


def test_an_expectation_before_players_is_a_failure_naming_its_line(tmp_path: Path) -> None:
    failures = _failures(tmp_path, "? priority: Alice\nplayers: Alice, Bob")
    assert len(failures) == 1
    assert ":6:" in failures[0] and "no 'players:' line" in failures[0]
