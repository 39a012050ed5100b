"""MTR 4.2's fourth bullet: a group of objects added to the stack one at a time."""

from __future__ import annotations

from kb.engine import Action, Game, Step, default_pool


def tournament_game() -> Game:
    game = Game(["Alice", "Bob"], default_pool(), "tournament")
    game.put("Alice", "hand", ["Shock", "Shock", "Lightning Bolt"])
    game.put("Alice", "battlefield", ["Mountain", "Mountain"])
    for p in game.players:
        game.set_library_count(p.name, 5)
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    return game


def shock(target: str = "Bob", card: str = "Shock") -> Action:
    return Action("cast", "Alice", card, targets=(target,))


def test_a_group_stops_at_the_first_object_that_cant_be_added():
    game = tournament_game()
    events = game.perform(
        Action("group", "Alice", group=(shock(), shock(), shock(card="Lightning Bolt")))
    )
    assert game.player("Bob").life == 16  # two Shocks; no mana is left for the Bolt
    assert any("object 3 of the group can't be added" in e.text for e in events)
    assert [c.name for c in game.player("Alice").hand] == ["Lightning Bolt"]


def test_an_illegal_group_is_refused_and_changes_nothing():
    game = tournament_game()
    before = game.snapshot()
    for bad in (
        Action("group", "Alice", group=(shock(),)),
        Action("group", "Alice", group=(shock(card="Counterspell"), shock())),
        Action("group", "Alice", group=(Action("pass", "Alice"), shock())),
        Action("group", "Bob", group=(shock(), shock())),
        Action("interrupt_group", "Bob", ability=1),
    ):
        events = game.perform(bad)
        assert events[-1].kind == "rejected" and events[-1].rules, bad.describe()
        assert game.snapshot() == before
