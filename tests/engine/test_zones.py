"""Tokens that have left the battlefield (111.8) and copies of spells (707.10, 704.5e)."""

from __future__ import annotations

from kb.engine import Action, Game, Step, default_pool


def game_with(alice_hand, alice_battlefield, bob_battlefield=()) -> Game:
    game = Game(["Alice", "Bob"], default_pool())
    game.put("Alice", "hand", alice_hand)
    game.put("Alice", "battlefield", alice_battlefield)
    game.put("Bob", "battlefield", list(bob_battlefield))
    for p in game.players:
        game.set_library_count(p.name, 5)
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    return game


def pass_both(game: Game) -> None:
    game.perform(Action("pass", game.priority_player))
    game.perform(Action("pass", game.priority_player))


def test_a_copy_of_a_permanent_spell_becomes_a_token_and_is_not_cast():
    game = game_with(["Grizzly Bears", "Twincast"], ["Forest", "Forest", "Island", "Island"])
    game.perform(Action("cast", "Alice", "Grizzly Bears"))
    game.perform(Action("cast", "Alice", "Twincast", targets=("Grizzly Bears",)))
    pass_both(game)
    assert game.stack_names() == ["Grizzly Bears", "Grizzly Bears (copy)"]
    pass_both(game)
    bears = [o for o in game.battlefield if o.name == "Grizzly Bears"]
    assert len(bears) == 1 and bears[0].token  # 707.10f
    assert not [e for e in game.events if e.kind == "cast" and "casts Grizzly" in e.text][1:]


def test_a_copy_ceasing_to_exist_is_a_state_based_action_citing_704_5e():
    game = game_with(["Shock", "Twincast"], ["Mountain", "Island", "Island"])
    game.perform(Action("cast", "Alice", "Shock", targets=("Bob",)))
    game.perform(Action("cast", "Alice", "Twincast", targets=("Shock",)))
    pass_both(game)
    pass_both(game)
    sba = [e for e in game.events if e.kind == "state-based actions"]
    assert sba and "704.5e" in sba[-1].rules
    assert [o.name for o in game.player("Alice").graveyard] == ["Twincast"]
    assert game.player("Bob").life == 18
