"""The trace tells an event before what it causes: a permanent's arrival comes before the
abilities its arrival triggers (603.2) and before what the layers then make of others (613)."""

from __future__ import annotations

from kb.engine.cards import default_pool
from kb.engine.game import Action, Game
from kb.engine.steps import Step


def _kinds_after_resolving(battlefield: list[str], hand: list[str]) -> list[str]:
    game = Game(["Alice", "Bob"], default_pool())
    game.put("Alice", "battlefield", battlefield)
    game.put("Alice", "hand", hand)
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 10)
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    game.perform(Action("cast", "Alice", card=hand[0]))
    game.perform(Action("pass", "Alice"))
    return [e.text for e in game.perform(Action("pass", "Bob"))]


def test_the_creature_enters_before_soul_warden_triggers() -> None:
    texts = _kinds_after_resolving(["Soul Warden", "Forest", "Forest"], ["Grizzly Bears"])
    enters = next(i for i, t in enumerate(texts) if "Grizzly Bears enters the battlefield" in t)
    triggers = next(i for i, t in enumerate(texts) if "Soul Warden's ability triggers" in t)
    assert enters < triggers, texts


def test_a_land_played_is_traced_before_its_arrival_triggers() -> None:
    game = Game(["Alice", "Bob"], default_pool())
    game.put("Alice", "battlefield", ["Blood Moon"])
    game.put("Alice", "hand", ["Urborg, Tomb of Yawgmoth"])
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 10)
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    texts = [
        e.text for e in game.perform(Action("play_land", "Alice", card="Urborg, Tomb of Yawgmoth"))
    ]
    assert "plays Urborg" in texts[0], texts
