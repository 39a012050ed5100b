"""Protection from a color (702.16): damage, blocks, targets and attachments, and a text change
of its color word (612.2)."""

from __future__ import annotations

from kb.engine.cards import default_pool, parse_card
from kb.engine.game import Action, Game
from kb.engine.steps import Step


def _game(step: Step = Step.PRECOMBAT_MAIN) -> Game:
    pool = default_pool().copy()
    pool.add(parse_card("Red Ward Knight", "creature {W} 2/2; protection from red"))
    game = Game(["Alice", "Bob"], pool)
    game.put("Alice", "battlefield", ["Red Ward Knight", "Mountain"])
    game.put("Bob", "battlefield", ["Mountain", "Hill Giant"])
    game.put("Bob", "hand", ["Lightning Bolt"])
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 10)
    game.start("Alice", step, 2)
    return game


def test_a_red_spell_cannot_target_it() -> None:
    game = _game()
    game.perform(Action("pass", "Alice"))
    events = game.perform(
        Action("cast", "Bob", card="Lightning Bolt", targets=("Red Ward Knight",))
    )
    assert events[-1].kind == "rejected" and "702.16b" in events[-1].rules


def test_red_damage_is_prevented_and_a_red_creature_cannot_block_it() -> None:
    game = _game(Step.DECLARE_ATTACKERS)
    game.perform(Action("attack", "Alice", attackers=(("Red Ward Knight", None),)))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    events = game.perform(Action("block", "Bob", blocks=(("Hill Giant", "Red Ward Knight"),)))
    assert events[-1].kind == "rejected" and "702.16f" in events[-1].rules


def test_damage_from_a_source_of_that_color_is_prevented() -> None:
    game = _game()
    knight = game.find_permanent("Red Ward Knight")
    game._damage(("object", knight.id), 3, "Hill Giant", frozenset(), 1, True, colors=("red",))
    assert knight.damage == 0
    assert "702.16e" in game.events[-1].rules


def test_a_text_change_moves_the_protection_to_another_color() -> None:
    game = _game()
    game.put("Alice", "hand", ["Sleight of Mind"])
    game.put("Alice", "battlefield", ["Island"])
    game.perform(Action("cast", "Alice", card="Sleight of Mind", targets=("Red Ward Knight",)))
    game.perform(
        Action("announce", "Alice", card="Sleight of Mind", phrase="change", names=("red to blue",))
    )
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    knight = game.find_permanent("Red Ward Knight")
    assert game.has(knight, "protection from blue") and not game.has(knight, "protection from red")
    game.perform(Action("pass", "Alice"))
    game.perform(Action("cast", "Bob", card="Lightning Bolt", targets=("Red Ward Knight",)))
    game.perform(Action("pass", "Bob"))
    game.perform(Action("pass", "Alice"))
    assert game.zone("Alice", "graveyard")[-1].name == "Red Ward Knight"


def test_an_aura_of_that_color_falls_off() -> None:
    """702.16c: a state-based action puts it into its owner's graveyard."""
    pool = default_pool().copy()
    pool.add(parse_card("White Ward Knight", "creature {R} 2/2; protection from white"))
    game = Game(["Alice", "Bob"], pool)
    game.put(
        "Alice",
        "battlefield",
        ["White Ward Knight", "Holy Strength (attached to White Ward Knight)"],
    )
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 10)
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    game.perform(Action("pass", "Alice"))
    assert [c.name for c in game.zone("Alice", "graveyard")] == ["Holy Strength"]
    assert any("702.16c" in e.rules for e in game.events)
