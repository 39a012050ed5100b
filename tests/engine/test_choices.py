"""Choices made on resolution (608.2d) announced early, and MTR 4.2's fifth and tenth bullets."""

from __future__ import annotations

from kb.engine import Action, Game, Step, default_pool


def started(mode: str = "strict") -> Game:
    game = Game(["Alice", "Bob"], default_pool(), mode)
    game.put("Alice", "hand", ["Opt", "Careful Study"])
    game.put("Alice", "battlefield", ["Island", "Island"])
    game.put("Alice", "library", ["Swamp", "Forest", "Plains"])
    game.set_library_count("Bob", 5)
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    return game


def refused(game: Game, action: Action, rule: str) -> None:
    before = game.snapshot()
    events = game.perform(action)
    assert events[-1].kind == "rejected" and rule in events[-1].rules, events[-1].text
    assert game.snapshot() == before


def test_announcements_name_one_of_your_own_spells_and_a_choice_it_offers():
    game = started()
    refused(game, Action("announce", "Alice", "Opt", phrase="bottom", names=("Swamp",)), "608.2d")
    game.perform(Action("cast", "Alice", "Opt"))
    refused(game, Action("announce", "Bob", "Opt", phrase="bottom", names=("Swamp",)), "608.2d")
    refused(game, Action("announce", "Alice", "Opt", phrase="discard", names=("Swamp",)), "608.2d")
    refused(game, Action("announce", "Alice", "Opt", phrase="sideways"), "608.2d")
    game.perform(Action("announce", "Alice", "Opt", phrase="bottom", names=("Swamp", "Forest")))
    # In strict mode the choice is only made on resolution: it may be changed.
    game.perform(Action("announce", "Alice", "Opt", phrase="top"))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    assert [c.name for c in game.player("Alice").hand] == ["Careful Study", "Swamp"]


def test_an_unknown_card_in_the_announcement_is_ignored_with_a_note():
    game = started()
    game.perform(Action("cast", "Alice", "Opt"))
    game.perform(Action("announce", "Alice", "Opt", phrase="bottom", names=("Mountain",)))
    game.perform(Action("pass", "Alice"))
    events = game.perform(Action("pass", "Bob"))
    assert any("not among the top 1" in e.text for e in events)
    assert game.player("Alice").hand[-1].name == "Swamp"


def test_inquiring_is_a_tournament_shortcut_by_the_player_with_priority():
    game = started()
    game.perform(Action("cast", "Alice", "Opt"))
    game.perform(Action("pass", "Alice"))
    refused(game, Action("inquire", "Bob", "Opt"), "MTR 4.2")
    game = started("tournament")
    game.perform(Action("cast", "Alice", "Opt"))
    refused(game, Action("inquire", "Alice", "Opt"), "MTR 4.2")
    refused(game, Action("inquire", "Bob", "Shock"), "MTR 4.2")
    events = game.perform(Action("inquire", "Bob", "Opt"))
    assert any(e.kind == "resolve" for e in events)
