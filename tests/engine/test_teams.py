"""Shared team turns (117.6, 805) as Two-Headed Giant plays them (810)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.engine import Action, Game, Step, default_pool
from kb.engine.game import ScenarioError
from tests.engine.test_properties import DECK


def two_headed(step: Step = Step.PRECOMBAT_MAIN, turn: int = 2, **zones) -> Game:
    game = Game(["Alice", "Bob", "Carol", "Dave"], default_pool())
    game.set_teams([["Alice", "Bob"], ["Carol", "Dave"]])
    for key, names in zones.items():
        who, zone = key.split("_", 1)
        game.put(who.capitalize(), zone, names)
    for p in game.players:
        game.set_library_count(p.name, 5)
    game.start("Alice", step, turn)
    return game


def test_the_starting_team_skips_its_first_draw_step():
    game = two_headed(step=Step.UPKEEP, turn=1)
    game.perform(Action("pass", "Alice"))
    events = game.perform(Action("pass", "Dave"))
    assert game.step == Step.PRECOMBAT_MAIN
    assert any("103.8b" in e.rules for e in events)
    assert [len(p.library) for p in game.players] == [5, 5, 5, 5]


def test_a_team_loses_together_and_the_other_team_wins():
    game = two_headed()
    game.perform(Action("concede", "Bob"))
    assert game.game_over and game.player("Alice").lost and game.player("Bob").lost
    assert "Carol and Dave's team wins" in game.events[-1].text


def test_either_teammate_may_act_for_the_team_and_opponents_are_the_other_team():
    game = two_headed(bob_hand=["Shock"], bob_battlefield=["Mountain"])
    assert game.opponents(game.player("Alice").index) == [2, 3]
    game.perform(Action("pass", "Bob"))  # Bob passes for his team: Carol's team has priority
    assert game.priority_player == "Carol"
    events = game.perform(Action("cast", "Bob", "Shock", targets=("Carol",)))
    assert events[-1].kind == "rejected" and "117.6" in events[-1].rules


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cards=st.lists(st.sampled_from(DECK), min_size=8, max_size=28),
    choices=st.lists(st.integers(min_value=0, max_value=1_000), min_size=30, max_size=150),
)
def test_random_two_headed_giant_playouts_accept_every_listed_action(cards, choices):
    game = Game(["Alice", "Bob", "Carol", "Dave"], default_pool())
    game.set_teams([["Alice", "Bob"], ["Carol", "Dave"]])
    for i, p in enumerate(game.players):
        game.put(p.name, "battlefield", ["Mountain", "Forest", "Island", "Grizzly Bears"])
        game.put(p.name, "hand", cards[i::4][:7])
        game.put(p.name, "library", (cards * 2)[:15])
    game.start("Alice", Step.UPKEEP, 2)
    for choice in choices:
        if game.game_over:
            break
        if game.priority is not None:
            assert game.awaiting is None and game.players[game.priority].in_game
        legal = game.legal_actions()
        assert legal
        events = game.perform(legal[choice % len(legal)])
        assert not [e for e in events if e.kind == "rejected"], [e.text for e in events]
        assert all(e.rules for e in events)


def test_the_active_team_attacks_together_and_divides_its_creatures_damage():
    game = two_headed(
        step=Step.DECLARE_ATTACKERS,
        bob_battlefield=["Hill Giant"],
        carol_battlefield=["Grizzly Bears"],
        dave_battlefield=["Llanowar Elves"],
    )
    game.perform(Action("attack", "Alice", attackers=(("Hill Giant", None),)))
    assert game.find_permanent("Hill Giant").attacking == game.player("Dave").index  # across
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Carol"))
    # 805.10d: Carol's creature blocks a creature attacking her teammate Dave.
    game.perform(Action("block", "Carol", blocks=(("Grizzly Bears", "Hill Giant"),)))
    game.perform(Action("block", "Dave", blocks=(("Llanowar Elves", "Hill Giant"),)))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Carol"))
    assert game.awaiting == ("damage", 0, 0)
    assert game.legal_actions()  # the listed divisions are Alice's to announce for Bob's creature
    parts = (("Grizzly Bears", 2), ("Llanowar Elves", 1))
    events = game.perform(Action("assign", "Alice", assignment=(("Hill Giant", parts),)))
    assert not [e for e in events if e.kind == "rejected"], [e.text for e in events]
    assert not game.zone("Carol", "battlefield") and not game.zone("Dave", "battlefield")


def test_a_team_shares_its_life_total_and_loses_together_at_zero():
    game = two_headed(alice_hand=["Lightning Bolt"], alice_battlefield=["Mountain"])
    assert [p.life for p in game.players] == [30, 30, 30, 30]  # 810.4
    game.set_life("Dave", 3)
    assert game.player("Carol").life == 3
    game.perform(Action("cast", "Alice", "Lightning Bolt", targets=("Carol",)))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Carol"))
    assert game.game_over and game.player("Dave").lost and game.player("Carol").lost
    assert "Alice and Bob's team wins" in game.events[-1].text


def test_a_team_shares_poison_counters_and_loses_at_fifteen():
    game = two_headed(alice_battlefield=["Glistener Elf"], step=Step.DECLARE_ATTACKERS)
    game.player("Carol").poison = game.player("Dave").poison = 14
    game.perform(Action("attack", "Alice", attackers=(("Glistener Elf", None),)))
    with pytest.raises(ScenarioError, match="the game ended"):
        game.advance_to("Alice", Step.END_OF_COMBAT)
    assert game.game_over and game.player("Dave").lost
    assert game.player("Dave").poison == 15
    assert any("810.8d" in e.rules for e in game.events)
