"""The layer system (613) and replacement effects (614-616) through the engine's API: what the
layers make of permanents whatever the order they arrived in, dependency, control changes, the
card language's errors, and the 616.1 announcement."""

from __future__ import annotations

import pytest

from kb.engine.cards import CardError, default_pool, parse_card
from kb.engine.game import Action, Game
from kb.engine.layer_text import LayerPart, Selector
from kb.engine.layers import Source, compute, type_line
from kb.engine.steps import Step


def _game(alice: list[str], bob: list[str] | None = None, hand: list[str] | None = None) -> Game:
    game = Game(["Alice", "Bob"], default_pool())
    game.put("Alice", "battlefield", alice)
    game.put("Bob", "battlefield", bob or [])
    game.put("Alice", "hand", hand or [])
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 10)
    game.start("Alice", Step.PRECOMBAT_MAIN, 2)
    return game


@pytest.mark.parametrize(
    "order",
    [["Blood Moon", "Urborg, Tomb of Yawgmoth"], ["Urborg, Tomb of Yawgmoth", "Blood Moon"]],
)
def test_blood_moon_applies_before_urborg_whatever_their_timestamps(order: list[str]) -> None:
    game = _game([*order, "Forest"])
    urborg = game.find_permanent("Urborg, Tomb of Yawgmoth")
    forest = game.find_permanent("Forest")
    assert type_line(urborg.card) == "Legendary Land — Mountain"
    assert forest.card.subtypes == ("forest",)
    assert [a.text for a in urborg.card.abilities] == ["{T}: add {R}"]


def test_humility_and_opalescence_depend_on_timestamps() -> None:
    early = _game(["Humility", "Opalescence"])
    late = _game(["Opalescence", "Humility"])
    humility = early.find_permanent("Humility")
    assert (early.power(humility), early.toughness(humility)) == (4, 4)
    humility = late.find_permanent("Humility")
    assert (late.power(humility), late.toughness(humility)) == (1, 1)


def test_compute_orders_a_dependent_effect_after_the_one_it_depends_on() -> None:
    pool = default_pool()
    evening, opal, forest = (pool.get(n) for n in ("Enchanted Evening", "Opalescence", "Forest"))
    assert evening and opal and forest
    objects = [(1, opal, 0), (2, evening, 0), (3, forest, 0)]
    sources = [
        Source(1, "Opalescence", opal.statics[0].parts, 0, opal.statics[0].selector, None, 1,
               opal.statics[0]),
        Source(2, "Enchanted Evening", evening.statics[0].parts, 0,
               evening.statics[0].selector, None, 2, evening.statics[0]),
    ]  # fmt: skip
    result = compute(objects, sources, lambda *_: 0)
    land = result.chars[3]
    assert land.types == ["land", "enchantment", "creature"]
    assert (land.power, land.toughness) == (0, 0)
    assert any("on which it depends" in note for note in land.notes)


def test_a_locked_effect_keeps_applying_to_the_same_objects() -> None:
    """613.6: a static effect that started in layer 4 applies in 7b to the same objects."""
    card = parse_card("Animator", "enchantment {1}; static each other non-aura enchantment is a "
                      "creature in addition to its other types and has base power and toughness "
                      "each equal to its mana value")  # fmt: skip
    target = parse_card("Statue", "enchantment {3}")
    st = card.statics[0]
    later = Source(5, "Painter", (LayerPart("5", "color", "blue"),), 0, Selector("creature"))
    source = Source(1, "Animator", st.parts, 0, st.selector, None, 1, st)
    result = compute([(1, card, 0), (2, target, 0)], [source, later], lambda *_: 0)
    assert result.chars[2].colors == ["blue"]  # a creature by layer 5: Animator made it one
    assert (result.chars[2].power, result.chars[2].toughness) == (3, 3)
    assert source.locked == frozenset({2})


def test_a_stolen_creature_moves_between_the_controllers_indexes_and_comes_back() -> None:
    game = _game(["Mountain", "Mountain", "Mountain"], ["Hill Giant"], ["Act of Treason"])
    giant = game.find_permanent("Hill Giant")
    game.perform(Action("cast", "Alice", "Act of Treason", targets=("Hill Giant",)))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    assert giant in game.battlefield.of(0) and giant not in game.battlefield.of(1)
    assert giant.sick and game.has(giant, "haste")
    game.advance_to("Bob", Step.UPKEEP)
    assert giant.controller == 1 and giant in game.battlefield.of(1)


def test_a_game_without_layered_effects_never_computes_them() -> None:
    game = _game(["Grizzly Bears", "Glorious Anthem"])
    bears = game.find_permanent("Grizzly Bears")
    assert not game.layered and bears.printed is None
    assert (game.power(bears), game.toughness(bears)) == (3, 3)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("enchantment {1}; static nonbasic lands are wizards", "wizards"),
        ("enchantment {1}; static all dragonlords get +1/+1", "dragonlord"),
        ("instant {U}; target creature loses all abilities and becomes a purple frog with base "
         "power and toughness 1/1", "purple"),
        ("creature {1} */*; static this creature's power and toughness are each equal to the "
         "number of dreams", "dreams"),
    ],
)  # fmt: skip
def test_unreadable_continuous_effects_are_card_errors_naming_the_word(
    text: str, word: str
) -> None:
    with pytest.raises(CardError, match=word):
        parse_card("X", text)


def test_applying_first_an_effect_not_in_the_game_is_refused_and_changes_nothing() -> None:
    game = _game(["Rest in Peace"])
    before = game.snapshot()
    events = game.perform(Action("replace_first", "Bob", "Darksteel Colossus"))
    assert events[-1].kind == "rejected" and "616.1" in events[-1].rules
    assert game.snapshot() == before
    events = game.perform(Action("replace_first", "Bob", "Rest in Peace"))
    assert events[-1].kind == "choice" and game.replace_first == {1: "rest in peace"}


def test_an_unused_announcement_lapses_at_the_end_of_the_turn() -> None:
    game = _game(["Rest in Peace"])
    game.perform(Action("replace_first", "Alice", "Rest in Peace"))
    game.advance_to("Bob", Step.UPKEEP)
    assert game.replace_first == {}
    assert "lapses unused" in game.trace_text()


def test_fog_leaves_noncombat_damage_alone() -> None:
    game = _game(["Hill Giant", "Forest", "Mountain"], hand=["Fog", "Shock"])
    game.perform(Action("cast", "Alice", "Fog"))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    game.perform(Action("cast", "Alice", "Shock", targets=("Bob",)))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    assert game.players[1].life == 18


def test_a_draw_replacement_that_draws_doesnt_replace_its_own_draw() -> None:
    """614.5: "if you would draw a card, gain 1 life and draw two cards instead" applies once."""
    game = Game(["Alice", "Bob"], default_pool().copy())
    game.pool.add(
        parse_card(
            "Greedy Study",
            "enchantment {1}; static if you would draw a card, gain 1 life and draw two cards "
            "instead",
        )
    )
    game.put("Alice", "battlefield", ["Greedy Study"])
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 10)
    game.start("Alice", Step.UPKEEP, 2)
    game.advance_to("Alice", Step.PRECOMBAT_MAIN)
    assert len(game.players[0].hand) == 2 and game.players[0].life == 21


LAYERED_DECK = [
    "Mountain", "Forest", "Island", "Plains", "Humility", "Opalescence", "Blood Moon",
    "Act of Treason", "Turn to Frog", "Inside Out", "Diminish", "Fog", "Healing Salve",
    "River Boa", "Rest in Peace", "Magma Spray", "Servant of the Scale", "Scoured Barrens",
    "Goblin Chieftain", "Raging Goblin", "Maro", "Maro", "Maro", "Lightning Bolt", "Grizzly Bears",
    "Diabolic Edict", "Glorious Anthem", "Rubinia Soulsinger", "Enchanted Evening",
    "Urza's Armor", "Giant Growth", "Battlegrowth",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_cached_layers_equal_a_fresh_computation_in_random_games(seed: int) -> None:
    """The layers are recomputed only when what they read changed: after every action of a
    random game full of layered effects, a forced recomputation gives the same permanents."""
    import random

    rng = random.Random(seed)
    game = Game(["Alice", "Bob", "Carol"][: 2 + seed % 2], default_pool())
    for p in game.players:
        game.put(p.name, "battlefield", ["Mountain", "Forest", "Island", "Plains"])
        game.put(p.name, "hand", rng.choices(LAYERED_DECK, k=7))
        game.put(p.name, "library", rng.choices(LAYERED_DECK, k=20))
    game.start("Alice", Step.UPKEEP, 2)
    for _ in range(250):
        if game.game_over:
            break
        actions = game.legal_actions()
        action = actions[0] if rng.random() < 0.5 else rng.choice(actions)
        events = game.perform(action)
        assert all(e.kind != "rejected" for e in events), action.describe()
        seen = [
            (o.id, o.card, o.controller, game.power(o), game.toughness(o)) for o in game.battlefield
        ]
        game.layer_inputs = None
        game._refresh_layers()
        again = [
            (o.id, o.card, o.controller, game.power(o), game.toughness(o)) for o in game.battlefield
        ]
        assert seen == again
    assert game.layered
