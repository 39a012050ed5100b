"""The special actions of 116.2c, d, i, j and m: timing, cost, and refusals that change nothing."""

from __future__ import annotations

import pytest

from kb.engine import Action, Game, Step, default_pool, parse_card
from kb.engine.cards import CardError


def game_at(step: Step = Step.PRECOMBAT_MAIN, active: str = "Alice", **zones) -> Game:
    game = Game(["Alice", "Bob"], default_pool())
    for key, names in zones.items():
        who, zone = key.split("_", 1)
        game.put(who.capitalize(), zone, names)
    for p in game.players:
        game.set_library_count(p.name, 5)
    return game


def refused(game: Game, action: Action, rule: str) -> None:
    before = game.snapshot()
    events = game.perform(action)
    assert events[-1].kind == "rejected", events[-1].text
    assert rule in events[-1].rules, (events[-1].text, events[-1].rules)
    assert game.snapshot() == before


def test_the_planar_die_costs_one_more_each_roll_and_resets_next_turn():
    game = game_at(alice_battlefield=["Mountain"])
    game.planechase = True
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    game.perform(Action("planar_die", "Alice"))
    game.perform(Action("planar_die", "Alice"))  # {1}: the Mountain
    refused(game, Action("planar_die", "Alice"), "601.2h")  # {2}: no mana left
    refused(game, Action("planar_die", "Alice", phrase="six"), "901.3")
    game.advance_to("Bob", Step.PRECOMBAT_MAIN)
    game.perform(Action("planar_die", "Bob"))  # free again: Bob's first roll of his turn
    assert game.planar_rolls[2] == 1


def test_unlocking_refuses_another_players_room_and_a_door_it_lacks():
    game = game_at(bob_battlefield=["Bottomless Pool // Locker Room", "Island"])
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    refused(game, Action("unlock", "Alice", "Locker Room"), "709.5e")
    refused(game, Action("unlock", "Alice", "Dining Room"), "116.2m")


def test_a_room_set_up_unlocked_is_already_unlocked():
    game = game_at(alice_battlefield=["Bottomless Pool // Locker Room (unlocked)"])
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    refused(game, Action("unlock", "Alice", "Locker Room"), "709.5e")


def test_card_language_checks_doors_and_ignore_costs():
    with pytest.raises(CardError, match="only a Room has doors"):
        parse_card("Odd", "enchantment {U}; door Hall {1}")
    with pytest.raises(CardError, match="follows a static effect"):
        parse_card(
            "Odd", "enchantment {U}; any player may pay {1} to ignore this effect until end of turn"
        )


def test_ignoring_lasts_until_end_of_turn_only():
    game = game_at(
        step=Step.BEGINNING_OF_COMBAT,
        alice_battlefield=["Grizzly Bears", "Mountain", "Mountain", "Mountain", "Mountain"],
        bob_battlefield=["Stillness Field"],
    )
    game.start("Alice", Step.BEGINNING_OF_COMBAT, 2)
    game.perform(Action("ignore_effect", "Alice", "Stillness Field"))
    game.advance_to("Bob", Step.PRECOMBAT_MAIN)
    game.advance_to("Alice", Step.BEGINNING_OF_COMBAT)  # next turn: the effect applies again
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    refused(game, Action("attack", "Alice", attackers=(("Grizzly Bears", None),)), "508.1c")


def test_a_conspiracy_must_be_face_down_in_the_command_zone():
    game = game_at()
    with pytest.raises(Exception, match="not a conspiracy"):
        game.put("Alice", "conspiracy", ["Shock"])
