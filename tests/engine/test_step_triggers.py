"""Triggers of each player's step with "that player" (Howling Mine), intervening "if this is
untapped" clauses (603.4), and "target player loses N life" (Blood Artist)."""

from __future__ import annotations

import pytest

from kb.engine import Action, CardError, Game, Step, default_pool, parse_card


def new_game(active: str, step: Step, **zones: list[str]) -> Game:
    """A started two-player game in ``active``'s turn 2; zones like ``bob_battlefield=[...]``."""
    game = Game(["Alice", "Bob"], default_pool().copy())
    for key, names in zones.items():
        who, zone = key.split("_", 1)
        game.put(who.capitalize(), zone, names)
    for p in game.players:
        game.set_library_count(p.name, 10)
    game.start(active, step, 2)
    return game


def names(objs) -> list[str]:
    return [o.name for o in objs]


def pass_both(game: Game) -> None:
    active = game.players[game.active].name
    other = "Bob" if active == "Alice" else "Alice"
    game.perform(Action("pass", active))
    game.perform(Action("pass", other))


def test_howling_mine_triggers_in_each_players_draw_step_and_that_player_draws():
    game = new_game("Bob", Step.UPKEEP, alice_battlefield=["Howling Mine"])
    game.advance_to("Bob", Step.DRAW)
    assert names(game.stack) == ["Howling Mine trigger"]  # Alice's, in Bob's draw step
    assert game.stack[-1].controller == game.player("Alice").index
    pass_both(game)
    assert not game.stack
    assert len(game.player("Bob").hand) == 2  # the turn's draw and the Mine's
    assert len(game.player("Alice").hand) == 0


def test_a_tapped_howling_mine_does_not_trigger():
    # Alice's own draw step (her Mine stays tapped: the game starts after her untap step)
    game = new_game("Alice", Step.UPKEEP, alice_battlefield=["Howling Mine (tapped)"])
    events = game.advance_to("Alice", Step.DRAW)
    assert not game.stack and not any(e.kind == "triggered" for e in events)
    assert len(game.player("Alice").hand) == 1


def test_howling_mine_tapped_before_its_ability_resolves_does_nothing():
    game = new_game("Bob", Step.UPKEEP, alice_battlefield=["Howling Mine"])
    game.advance_to("Bob", Step.DRAW)
    game.find_permanent("Howling Mine").tapped = True  # as an effect could have tapped it
    game.perform(Action("pass", "Bob"))
    events = game.perform(Action("pass", "Alice"))
    assert not game.stack
    assert any("603.4" in e.rules and "does nothing" in e.text for e in events)
    assert len(game.player("Bob").hand) == 1


def test_blood_artist_targets_a_player_who_loses_life_and_its_controller_gains():
    game = new_game(
        "Alice",
        Step.PRECOMBAT_MAIN,
        alice_hand=["Lightning Bolt"],
        alice_battlefield=["Mountain", "Blood Artist"],
        bob_battlefield=["Grizzly Bears"],
    )
    game.perform(Action("trigger_targets", "Alice", "Blood Artist", ("Alice",)))
    game.perform(Action("cast", "Alice", "Lightning Bolt", ("Grizzly Bears",)))
    pass_both(game)
    assert names(game.stack) == ["Blood Artist trigger"]
    assert game.stack[-1].targets == [("player", game.player("Alice").index)]
    pass_both(game)
    assert (game.player("Alice").life, game.player("Bob").life) == (20, 20)


def test_that_player_and_untapped_clauses_are_checked_when_a_card_is_read():
    card = parse_card(
        "Howling Mine",
        "artifact {2}; trigger at the beginning of each player's draw step, "
        "if Howling Mine is untapped: that player draws 1",
    )
    assert card.triggers[0].condition.if_untapped
    for name, text in (
        (
            "Bad Mine",
            "artifact {2}; trigger at the beginning of your draw step: that player draws 1",
        ),
        ("Bad Spell", "sorcery {U}; that player draws 1"),
        ("Bad Artist", "creature {B} 1/1; trigger whenever a creature dies: that player draws 1"),
        (
            "Bad Idol",
            "artifact {2}; trigger at the beginning of your upkeep, if Other Idol is "
            "untapped: draw 1",
        ),
    ):
        with pytest.raises(CardError):
            parse_card(name, text)
