"""Indestructible (702.12), hexproof (702.11), shroud (702.18) and sacrifice (701.21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.engine import Action, CardError, Game, Step, default_pool, parse_card, run_example_file
from kb.engine.effect_text import parse_effects

EXTRA = {
    "Shrouded Wolf": "creature {2}{G} 3/1; shroud",
    "Veil of Leaves": "instant {G}; target creature gains hexproof until end of turn",
    "Shroud Ward": "instant {G}; target creature gains shroud until end of turn",
    "Pinger Totem": "artifact {1}; trigger at the beginning of your upkeep: deal 1 damage to "
    "target creature",
    "Grim Offering": "sorcery {B}; sacrifice a creature",
    "Stone Sentinel": "artifact creature {4} 1/4; indestructible",
}


def new_game(step: Step = Step.PRECOMBAT_MAIN, **zones: list[str]) -> Game:
    """A started two-player game in Alice's turn; zones like ``bob_battlefield=[...]``."""
    pool = default_pool().copy()
    for name, text in EXTRA.items():
        pool.add(parse_card(name, text))
    game = Game(["Alice", "Bob"], pool)
    for key, names in zones.items():
        who, zone = key.split("_", 1)
        game.put(who.capitalize(), zone, names)
    for p in game.players:
        game.set_library_count(p.name, 10)
    game.start("Alice", step, 2)
    return game


def act(game: Game, player: str, kind: str, card=None, *targets, **kw):
    return game.perform(Action(kind, player, card, tuple(targets), **kw))


def resolve(game: Game) -> list:
    """Both players pass: the top of the stack resolves (Alice is active and acts first)."""
    act(game, "Alice", "pass")
    return act(game, "Bob", "pass")


def names(objs) -> list[str]:
    return [o.name for o in objs]


# ---- indestructible (702.12) ----------------------------------------------------------------


def test_indestructible_is_not_destroyed_by_a_destroy_effect_or_lethal_damage():
    game = new_game(
        alice_hand=["Murder", "Lightning Bolt"],
        alice_battlefield=["Swamp", "Swamp", "Swamp", "Mountain"],
        bob_battlefield=["Darksteel Myr"],
    )
    act(game, "Alice", "cast", "Murder", "Darksteel Myr")
    events = resolve(game)
    assert any("702.12b" in e.rules and "isn't destroyed" in e.text for e in events)
    assert names(game.zone("Bob", "battlefield")) == ["Darksteel Myr"]
    act(game, "Alice", "cast", "Lightning Bolt", "Darksteel Myr")
    resolve(game)
    myr = game.find_permanent("Darksteel Myr")
    assert myr.damage == 3 and game.player("Bob").graveyard == []
    assert not any(e.kind == "state-based actions" for e in game.events)


def test_indestructible_ignores_deathtouch_damage_in_combat():
    game = new_game(
        step=Step.DECLARE_ATTACKERS,
        alice_battlefield=["Typhoid Rats"],
        bob_battlefield=["Stone Sentinel"],
    )
    act(game, "Alice", "attack", attackers=(("Typhoid Rats", None),))
    resolve(game)
    act(game, "Bob", "block", blocks=(("Stone Sentinel", "Typhoid Rats"),))
    resolve(game)
    sentinel = game.find_permanent("Stone Sentinel")
    assert sentinel.damage == 1  # not lethal: only 704.5h could destroy it
    assert names(game.zone("Bob", "battlefield")) == ["Stone Sentinel"]
    assert names(game.zone("Alice", "graveyard")) == ["Typhoid Rats"]


def test_indestructible_still_dies_of_zero_toughness():
    game = new_game(
        alice_hand=["Disfigure"],
        alice_battlefield=["Swamp"],
        bob_battlefield=["Darksteel Myr"],
    )
    act(game, "Alice", "cast", "Disfigure", "Darksteel Myr")
    resolve(game)
    assert names(game.player("Bob").graveyard) == ["Darksteel Myr"]
    assert any("704.5f" in e.rules for e in game.events if e.kind == "state-based actions")


def test_indestructible_gained_until_end_of_turn_saves_from_a_destroy_then_ends():
    game = new_game(
        alice_hand=["Murder"],
        alice_battlefield=["Swamp", "Swamp", "Swamp"],
        bob_hand=["Sheltering Light"],
        bob_battlefield=["Grizzly Bears", "Plains"],
    )
    act(game, "Alice", "cast", "Murder", "Grizzly Bears")
    act(game, "Alice", "pass")
    act(game, "Bob", "cast", "Sheltering Light", "Grizzly Bears")
    act(game, "Bob", "pass")
    act(game, "Alice", "pass")  # Sheltering Light resolves
    resolve(game)  # Murder resolves
    bears = game.find_permanent("Grizzly Bears")
    assert game.has(bears, "indestructible")
    assert names(game.zone("Bob", "battlefield")) == ["Grizzly Bears", "Plains"]
    game.advance_to("Bob", Step.UPKEEP)  # "until end of turn" ends in the cleanup step (514.2)
    assert not game.has(game.find_permanent("Grizzly Bears"), "indestructible")


# ---- hexproof (702.11) and shroud (702.18) --------------------------------------------------


def test_hexproof_refuses_an_opponents_target_citing_the_rule_and_changes_nothing():
    game = new_game(
        alice_hand=["Shock"],
        alice_battlefield=["Mountain"],
        bob_battlefield=["Gladecover Scout"],
    )
    before = game.snapshot()
    events = act(game, "Alice", "cast", "Shock", "Gladecover Scout")
    assert events[-1].kind == "rejected"
    assert "702.11b" in events[-1].rules and "hexproof" in events[-1].text
    assert game.snapshot() == before
    listed = [a for a in game.legal_actions() if a.kind == "cast"]
    assert listed and all(a.targets[0][0] == "player" for a in listed)


def test_hexproof_lets_its_controller_target_it():
    game = new_game(
        step=Step.END,
        alice_battlefield=["Forest"],
        bob_hand=["Giant Growth"],
        bob_battlefield=["Gladecover Scout", "Forest"],
    )
    act(game, "Alice", "pass")
    events = act(game, "Bob", "cast", "Giant Growth", "Gladecover Scout")
    assert events[-1].kind != "rejected", events[-1].text
    assert names(game.stack) == ["Giant Growth"]


def test_shroud_refuses_every_players_target():
    game = new_game(
        alice_hand=["Shock"],
        alice_battlefield=["Mountain"],
        bob_hand=["Giant Growth"],
        bob_battlefield=["Shrouded Wolf", "Forest"],
    )
    events = act(game, "Alice", "cast", "Shock", "Shrouded Wolf")
    assert events[-1].kind == "rejected" and "702.18a" in events[-1].rules
    act(game, "Alice", "pass")
    events = act(game, "Bob", "cast", "Giant Growth", "Shrouded Wolf")
    assert events[-1].kind == "rejected" and "702.18a" in events[-1].rules


def test_shroud_from_an_equipment_refuses_its_controllers_equip_target():
    game = new_game(
        alice_battlefield=["Lightning Greaves", "Grizzly Bears", "Llanowar Elves"],
    )
    act(game, "Alice", "activate", "Lightning Greaves", "Grizzly Bears", ability=1)
    resolve(game)
    bears = game.find_permanent("Grizzly Bears")
    assert game.has(bears, "shroud") and game.has(bears, "haste")
    events = act(game, "Alice", "activate", "Lightning Greaves", "Grizzly Bears", ability=1)
    assert events[-1].kind == "rejected" and "702.18a" in events[-1].rules


@pytest.mark.parametrize("ward", ["Veil of Leaves", "Shroud Ward"])
def test_a_target_that_gains_hexproof_or_shroud_is_illegal_on_resolution(ward):
    game = new_game(
        alice_hand=["Shock"],
        alice_battlefield=["Mountain"],
        bob_hand=[ward],
        bob_battlefield=["Grizzly Bears", "Forest"],
    )
    act(game, "Alice", "cast", "Shock", "Grizzly Bears")
    act(game, "Alice", "pass")
    act(game, "Bob", "cast", ward, "Grizzly Bears")
    act(game, "Bob", "pass")
    act(game, "Alice", "pass")  # the ward resolves
    events = resolve(game)  # Shock: its only target is now illegal
    assert any(e.kind == "fizzle" and e.rules == ["608.2b"] for e in events)
    assert game.find_permanent("Grizzly Bears").damage == 0


def test_a_triggered_ability_does_not_default_to_a_hexproof_target():
    game = new_game(
        step=Step.UPKEEP,
        alice_battlefield=["Pinger Totem"],
        bob_battlefield=["Gladecover Scout", "Grizzly Bears"],
    )
    assert names(game.stack) == ["Pinger Totem trigger"]
    resolve(game)
    assert names(game.player("Bob").graveyard) == []
    assert game.find_permanent("Grizzly Bears").damage == 1
    assert game.find_permanent("Gladecover Scout").damage == 0


# ---- sacrifice (701.21) ---------------------------------------------------------------------


def test_sacrifice_is_not_destroy_and_the_creature_dies():
    game = new_game(
        alice_hand=["Diabolic Edict"],
        alice_battlefield=["Blood Artist", "Swamp", "Swamp"],
        bob_battlefield=["Darksteel Myr"],
    )
    act(game, "Alice", "cast", "Diabolic Edict", "Bob")
    events = resolve(game)
    assert any(e.kind == "sacrifice" and "701.21a" in e.rules for e in events)
    assert names(game.player("Bob").graveyard) == ["Darksteel Myr"]
    assert names(game.stack) == ["Blood Artist trigger"]  # it died (700.4)
    resolve(game)
    assert game.player("Bob").life == 19 and game.player("Alice").life == 21


def test_each_player_sacrifices_the_controller_as_announced():
    game = new_game(
        alice_hand=["Innocent Blood"],
        alice_battlefield=["Grizzly Bears", "Llanowar Elves", "Swamp"],
        bob_battlefield=["Hill Giant"],
    )
    act(game, "Alice", "cast", "Innocent Blood")
    events = game.perform(
        Action("announce", "Alice", "Innocent Blood", phrase="sacrifice", names=("Grizzly Bears",))
    )
    assert events[-1].kind != "rejected", events[-1].text
    resolve(game)
    assert names(game.player("Alice").graveyard) == ["Grizzly Bears", "Innocent Blood"]
    assert names(game.player("Bob").graveyard) == ["Hill Giant"]


def test_sacrifice_without_an_announcement_and_without_a_creature():
    game = new_game(
        alice_hand=["Grim Offering", "Diabolic Edict"],
        alice_battlefield=["Grizzly Bears", "Llanowar Elves", "Swamp", "Swamp", "Swamp"],
    )
    act(game, "Alice", "cast", "Grim Offering")
    resolve(game)
    assert names(game.player("Alice").graveyard) == ["Llanowar Elves", "Grim Offering"]
    act(game, "Alice", "cast", "Diabolic Edict", "Bob")
    events = resolve(game)
    assert any("sacrifices nothing" in e.text for e in events)


def test_only_a_sacrifice_of_ones_own_can_be_announced():
    game = new_game(
        alice_hand=["Diabolic Edict"],
        alice_battlefield=["Swamp", "Swamp"],
        bob_battlefield=["Grizzly Bears"],
    )
    act(game, "Alice", "cast", "Diabolic Edict", "Bob")
    events = game.perform(
        Action("announce", "Alice", "Diabolic Edict", phrase="sacrifice", names=("Grizzly Bears",))
    )
    assert events[-1].kind == "rejected" and "608.2d" in events[-1].rules


def test_the_card_language_reads_the_new_effects_and_refuses_unknown_keywords():
    (edict,) = parse_effects("target player sacrifices a creature")
    assert (edict.kind, edict.target) == ("sacrifice", "player")
    (each,) = parse_effects("each opponent sacrifices a creature")
    assert (each.kind, each.target, each.scope) == ("sacrifice", None, "each opponent")
    (veil,) = parse_effects("target creature gains hexproof until end of turn")
    assert veil.kind == "pump" and veil.keywords == {"hexproof"} and veil.target == "creature"
    with pytest.raises(CardError, match="unknown keyword"):
        parse_effects("target creature gains wings until end of turn")
    assert parse_card("X", "creature {G} 1/1; hexproof; shroud; indestructible").keywords == {
        "hexproof",
        "shroud",
        "indestructible",
    }


SACRIFICE_ANNOUNCED = """# A sacrifice chosen in advance

rules: 701.21a, 608.2d

```game
players: Alice, Bob
turn: Alice, precombat main
Alice has: hand [Innocent Blood]; battlefield [Grizzly Bears, Llanowar Elves, Swamp]
Bob has: battlefield [Hill Giant]
Alice casts Innocent Blood
Alice announces for Innocent Blood: sacrifice Grizzly Bears
Alice passes
Bob passes
? battlefield Alice: [Llanowar Elves, Swamp]
? graveyard Bob: [Hill Giant]
```
"""


def test_the_example_language_announces_a_sacrifice(tmp_path: Path) -> None:
    path = tmp_path / "sacrifice.md"
    path.write_text(SACRIFICE_ANNOUNCED, encoding="utf-8")
    result = run_example_file(path)
    assert result.passed, result.failures
