"""Unit tests of the engine core: priority, the stack, SBAs, triggers, timing, shortcuts."""

from __future__ import annotations

import pytest

from kb.engine import Action, Game, Step, default_pool, parse_card
from kb.engine.game import ScenarioError


def new_game(
    players=("Alice", "Bob"), mode="strict", step=Step.PRECOMBAT_MAIN, active=None, turn=2, **zones
):
    """A started game; zones like ``alice_hand=[...]``, ``bob_battlefield=[...]``."""
    pool = default_pool().copy()
    game = Game(list(players), pool, mode)
    for key, names in zones.items():
        who, zone = key.split("_", 1)
        if zone == "life":
            game.player(who).life = names
        else:
            game.put(who.capitalize(), zone, names)
    for p in game.players:
        if not p.library:
            game.set_library_count(p.name, 10)
    game.start(active or players[0], step, turn)
    return game


def act(game: Game, player: str, kind: str, card=None, *targets, **kw):
    return game.perform(Action(kind, player, card, tuple(targets), **kw))


def rejected(events):
    bad = [e for e in events if e.kind == "rejected"]
    return bad[0] if bad else None


# ---- priority -------------------------------------------------------------------------------


def test_active_player_receives_priority_at_start_of_step():
    game = new_game(step=Step.UPKEEP)
    assert game.priority_player == "Alice"
    assert "117.3a" in game.events[-1].rules


def test_passing_gives_priority_to_next_player_in_turn_order():
    game = new_game(players=("Alice", "Bob", "Carol"), active="Bob")
    act(game, "Bob", "pass")
    assert game.priority_player == "Carol"
    act(game, "Carol", "pass")
    assert game.priority_player == "Alice"
    assert game.step == Step.PRECOMBAT_MAIN
    act(game, "Alice", "pass")
    assert game.step == Step.BEGINNING_OF_COMBAT
    assert game.priority_player == "Bob"


def test_caster_keeps_priority_and_resolution_gives_it_to_active_player():
    game = new_game(
        alice_battlefield=["Mountain"], bob_hand=["Shock"], bob_battlefield=["Mountain"]
    )
    act(game, "Alice", "pass")
    act(game, "Bob", "cast", "Shock", "Alice")
    assert game.priority_player == "Bob"  # 117.3c
    act(game, "Bob", "pass")
    assert game.stack_names() == ["Shock"]  # only Bob passed since the cast
    act(game, "Alice", "pass")
    assert game.stack_names() == []
    assert game.player("Alice").life == 18
    assert game.priority_player == "Alice"  # 117.3b


def test_an_action_between_passes_resets_the_succession():
    game = new_game(
        alice_hand=["Shock"],
        alice_battlefield=["Mountain"],
        bob_hand=["Shock"],
        bob_battlefield=["Mountain"],
    )
    act(game, "Alice", "cast", "Shock", "Bob")
    act(game, "Alice", "pass")
    act(game, "Bob", "cast", "Shock", "Alice")
    act(game, "Bob", "pass")
    assert game.stack_names() == ["Shock", "Shock"]
    act(game, "Alice", "pass")
    assert game.stack_names() == ["Shock"]


def test_mana_ability_is_an_action_that_breaks_the_succession():
    game2 = new_game(alice_battlefield=["Mountain"], bob_battlefield=["Forest"])
    act(game2, "Alice", "pass")
    act(game2, "Bob", "mana", "Forest", mana="{G}")
    assert game2.priority_player == "Bob"
    act(game2, "Bob", "pass")
    assert game2.step == Step.PRECOMBAT_MAIN  # Alice must pass again
    assert game2.priority_player == "Alice"


def test_pool_is_announced_on_pass_and_empties_at_end_of_step():
    game = new_game(alice_battlefield=["Mountain"])
    act(game, "Alice", "mana", "Mountain", mana="{R}")
    events = act(game, "Alice", "pass")
    assert "announcing {R}" in events[0].text and "106.4b" in events[0].rules
    events = act(game, "Bob", "pass")
    assert any(e.kind == "mana empties" and "500.5" in e.rules for e in events)
    assert game.player("Alice").pool.is_empty()


def test_no_priority_in_untap_and_normal_cleanup():
    game = new_game(
        step=Step.END, alice_battlefield=["Mountain (tapped)"], bob_battlefield=["Forest (tapped)"]
    )
    act(game, "Alice", "pass")
    events = act(game, "Bob", "pass")
    kinds = [(e.kind, e.step) for e in events]
    assert ("no priority", "cleanup") in kinds
    assert ("no priority", "untap") in kinds
    priority_steps = {e.step for e in events if e.kind == "priority"}
    assert priority_steps == {"upkeep"}
    assert game.active == 1 and game.step == Step.UPKEEP
    assert game.find_permanent("Forest").tapped is False
    assert game.find_permanent("Mountain").tapped is True


# ---- timing and rejections ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "action", "rule"),
    [
        (
            {"alice_hand": ["Divination"], "alice_battlefield": ["Island"] * 3},
            ("Bob", "cast", "Divination"),
            "117.1a",
        ),
        (
            {"bob_hand": ["Divination"], "bob_battlefield": ["Island"] * 3},
            ("Bob", "pass_then_cast", "Divination"),
            "307.1",
        ),
        ({"alice_hand": ["Forest", "Forest"]}, ("Alice", "two_lands", "Forest"), "305.2"),
        ({"alice_hand": ["Lightning Bolt"]}, ("Alice", "cast", "Lightning Bolt"), "601.2c"),
        (
            {"alice_hand": ["Lightning Bolt"], "bob_battlefield": ["Grizzly Bears"]},
            ("Alice", "cast_unpaid", "Lightning Bolt"),
            "601.2h",
        ),
        (
            {"alice_battlefield": ["Llanowar Elves (new)"]},
            ("Alice", "mana", "Llanowar Elves"),
            "302.6",
        ),
        ({"alice_hand": ["Mountain"]}, ("Alice", "cast", "Mountain"), "305.9"),
        ({}, ("Alice", "discard", "Mountain"), "514.1"),
        ({}, ("Alice", "attack", None), "508.1"),
    ],
)
def test_illegal_actions_are_rejected_with_a_rule_and_change_nothing(setup, action, rule):
    game = new_game(**setup)
    player, kind, card = action
    if kind == "pass_then_cast":
        act(game, "Alice", "pass")
        kind = "cast"
    if kind == "two_lands":
        act(game, "Alice", "play_land", "Forest")
        kind = "play_land"
    if kind == "cast_unpaid":
        before = game.snapshot()
        events = act(game, player, "cast", card, "Grizzly Bears")
    else:
        before = game.snapshot()
        events = act(game, player, kind, card, **({"mana": "{G}"} if kind == "mana" else {}))
    bad = rejected(events)
    assert bad is not None, [e.text for e in events]
    assert rule in bad.rules, (bad.text, bad.rules)
    assert len(events) == 1
    assert game.snapshot() == before


def test_play_land_rejections_cite_the_rule_broken_and_is_legal_agrees():
    game = new_game(alice_hand=["Forest"], bob_hand=["Forest"])
    own = game.players[0].hand[0].id
    act(game, "Alice", "pass")
    bob = Action("play_land", "Bob", game.players[1].hand[0].id)
    refused = rejected(game.perform(bob))
    assert refused.rules == game.why_illegal(bob).rules == ["305.3", "116.2a"]  # not his turn
    assert not game.is_legal(bob)
    act(game, "Bob", "pass")  # Alice's beginning of combat
    late = Action("play_land", "Alice", own)
    assert game.priority_player == "Alice"
    assert "305.1" in game.why_illegal(late).rules
    assert "305.1" in rejected(game.perform(late)).rules


def test_permanents_named_by_id_must_be_the_players_own():
    game = new_game(bob_battlefield=["Forest"])
    forest = game.zone("Bob", "battlefield")[0].id
    before = game.snapshot()
    bad = rejected(act(game, "Alice", "mana", forest, ability=1))
    assert bad is not None and "110.2" in bad.rules
    assert game.snapshot() == before


def test_a_non_mana_ability_is_not_activated_as_a_mana_ability():
    game = new_game(alice_battlefield=["Prodigal Sorcerer"])
    sorcerer = game.zone("Alice", "battlefield")[0].id
    before = game.snapshot()
    bad = rejected(act(game, "Alice", "mana", sorcerer, ability=1))
    assert bad is not None and "605.1a" in bad.rules
    assert game.snapshot() == before
    assert Action("mana", "Alice", sorcerer, ability=1) not in game.legal_actions()


def test_split_second_allows_only_mana_abilities_and_special_actions():
    game = new_game(
        alice_hand=["Sudden Shock"],
        alice_battlefield=["Mountain", "Mountain"],
        bob_hand=["Giant Growth"],
        bob_battlefield=["Forest", "Grizzly Bears", "Skinthinner (face down)"] + ["Swamp"] * 5,
    )
    act(game, "Alice", "cast", "Sudden Shock", "Grizzly Bears")
    act(game, "Alice", "pass")
    assert "702.61a" in rejected(act(game, "Bob", "cast", "Giant Growth", "Grizzly Bears")).rules
    assert rejected(act(game, "Bob", "mana", "Forest", mana="{G}")) is None
    assert rejected(act(game, "Bob", "turn_face_up", "Skinthinner")) is None
    assert game.priority_player == "Bob"


def test_flash_creature_can_be_cast_in_opponents_turn():
    game = new_game(
        step=Step.END,
        bob_hand=["Ambush Viper", "Grizzly Bears"],
        bob_battlefield=["Forest", "Forest"],
    )
    act(game, "Alice", "pass")
    assert "302.1" in rejected(act(game, "Bob", "cast", "Grizzly Bears")).rules
    assert rejected(act(game, "Bob", "cast", "Ambush Viper")) is None
    assert game.stack_names() == ["Ambush Viper"]


# ---- stack and resolution -------------------------------------------------------------------


def test_spell_with_illegal_only_target_does_not_resolve():
    game = new_game(
        alice_hand=["Giant Growth"],
        alice_battlefield=["Forest", "Grizzly Bears"],
        bob_hand=["Lightning Bolt"],
        bob_battlefield=["Mountain"],
    )
    act(game, "Alice", "cast", "Giant Growth", "Grizzly Bears")
    act(game, "Alice", "pass")
    act(game, "Bob", "cast", "Lightning Bolt", "Grizzly Bears")
    act(game, "Bob", "pass")
    act(game, "Alice", "pass")
    act(game, "Alice", "pass")
    events = act(game, "Bob", "pass")
    assert events[1].kind == "fizzle" and events[1].rules == ["608.2b"]
    assert [o.name for o in game.player("Alice").graveyard] == ["Grizzly Bears", "Giant Growth"]


def test_counterspell_counters():
    game = new_game(
        alice_hand=["Grizzly Bears"],
        alice_battlefield=["Forest", "Forest"],
        bob_hand=["Counterspell"],
        bob_battlefield=["Island", "Island"],
    )
    act(game, "Alice", "cast", "Grizzly Bears")
    act(game, "Alice", "pass")
    act(game, "Bob", "cast", "Counterspell", "Grizzly Bears")
    act(game, "Bob", "pass")
    act(game, "Alice", "pass")
    assert game.stack_names() == []
    assert [o.name for o in game.player("Alice").graveyard] == ["Grizzly Bears"]
    assert game.zone("Alice", "battlefield")[-1].name == "Forest"


# ---- state-based actions --------------------------------------------------------------------


def test_sbas_are_one_event_and_simultaneous_loss_is_a_draw():
    pool = default_pool().copy()
    pool.add(
        parse_card(
            "Pulse", "sorcery {R}; deal 3 damage to each player and deal 3 damage to each creature"
        )
    )
    game = Game(["Alice", "Bob"], pool)
    game.put("Alice", "hand", ["Pulse"])
    game.put("Alice", "battlefield", ["Mountain", "Grizzly Bears"])
    game.player("Alice").life = 3
    game.player("Bob").life = 1
    game.start("Alice", Step.PRECOMBAT_MAIN)
    act(game, "Alice", "cast", "Pulse")
    act(game, "Alice", "pass")
    events = act(game, "Bob", "pass")
    sba = [e for e in events if e.kind == "state-based actions"]
    assert len(sba) == 1
    assert {"704.3", "704.5a", "704.5g"} <= set(sba[0].rules)
    assert game.game_over and game.winner is None
    assert "104.4a" in events[-1].rules
    assert game.priority is None


def test_player_leaving_multiplayer_game_takes_their_objects():
    game = new_game(
        players=("Alice", "Bob", "Carol"),
        bob_battlefield=["Grizzly Bears"],
        carol_battlefield=["Forest"],
    )
    act(game, "Bob", "concede")
    assert not game.game_over
    assert game.zone("Bob", "battlefield") == []
    assert [p.name for p in game.in_game()] == ["Alice", "Carol"]
    act(game, "Alice", "pass")
    assert game.priority_player == "Carol"
    act(game, "Carol", "pass")
    assert game.step == Step.BEGINNING_OF_COMBAT


# ---- triggers -------------------------------------------------------------------------------


def test_triggers_go_on_the_stack_in_apnap_order():
    pool = default_pool().copy()
    pool.add(
        parse_card("Chime", "enchantment {2}; trigger at the beginning of each upkeep: gain 1 life")
    )
    pool.add(
        parse_card("Bell", "enchantment {2}; trigger at the beginning of each upkeep: gain 2 life")
    )
    game = Game(["Alice", "Bob", "Carol"], pool)
    game.put("Alice", "battlefield", ["Bell"])
    game.put("Bob", "battlefield", ["Chime"])
    game.put("Carol", "battlefield", ["Chime"])
    game.start("Bob", Step.UPKEEP)
    owners = [game.players[s.controller].name for s in game.stack]
    assert owners == ["Bob", "Carol", "Alice"]  # active player first, so at the bottom
    assert game.priority_player == "Bob"


def test_player_orders_own_triggers():
    pool = default_pool().copy()
    pool.add(
        parse_card("Chime", "enchantment {2}; trigger at the beginning of your upkeep: gain 1 life")
    )
    game = Game(["Alice", "Bob"], pool)
    game.put("Alice", "battlefield", ["Phyrexian Arena", "Chime"])
    act(game, "Alice", "order_triggers", names=("Chime", "Phyrexian Arena"))
    game.start("Alice", Step.UPKEEP)
    assert game.stack_names() == ["Chime trigger", "Phyrexian Arena trigger"]
    game2 = Game(["Alice", "Bob"], pool)
    game2.put("Alice", "battlefield", ["Phyrexian Arena", "Chime"])
    game2.start("Alice", Step.UPKEEP)
    assert game2.stack_names() == ["Phyrexian Arena trigger", "Chime trigger"]


def test_cleanup_with_a_trigger_gives_priority_then_another_cleanup():
    pool = default_pool().copy()
    pool.add(
        parse_card("Mourner", "creature {1} 1/1; trigger whenever you discard a card: gain 1 life")
    )
    game = Game(["Alice", "Bob"], pool)
    game.put("Alice", "hand", ["Forest"] * 8)
    game.put("Alice", "battlefield", ["Mourner"])
    game.start("Alice", Step.CLEANUP)
    assert game.awaiting == ("discard", 0, 1)
    act(game, "Alice", "discard", "Forest")
    assert game.step == Step.CLEANUP and game.priority_player == "Alice"
    act(game, "Alice", "pass")
    act(game, "Bob", "pass")
    assert game.player("Alice").life == 21
    act(game, "Alice", "pass")
    events = act(game, "Bob", "pass")
    assert sum(e.kind == "step" and e.step == "cleanup" for e in events) == 1
    assert game.active == 1 and game.step == Step.UPKEEP


def test_first_strike_adds_a_damage_step_and_no_attackers_skips_combat():
    game = new_game(
        step=Step.DECLARE_ATTACKERS,
        alice_battlefield=["White Knight"],
        bob_battlefield=["Grizzly Bears"],
    )
    act(game, "Alice", "attack", attackers=(("White Knight", None),))
    act(game, "Alice", "pass")
    act(game, "Bob", "pass")
    act(game, "Bob", "block", blocks=(("Grizzly Bears", "White Knight"),))
    act(game, "Alice", "pass")
    act(game, "Bob", "pass")
    assert game.step == Step.FIRST_STRIKE_DAMAGE
    assert game.zone("Bob", "battlefield") == []
    assert game.zone("Alice", "battlefield")[0].damage == 0
    game2 = new_game(step=Step.DECLARE_ATTACKERS, alice_battlefield=["Grizzly Bears"])
    act(game2, "Alice", "attack")
    act(game2, "Alice", "pass")
    act(game2, "Bob", "pass")
    assert game2.step == Step.END_OF_COMBAT


def test_first_turn_of_two_player_game_skips_the_whole_draw_step():
    # 103.8a: the draw step itself is skipped (500.11): no draw, no priority in it.
    game = new_game(step=Step.UPKEEP, turn=1)
    act(game, "Alice", "pass")
    act(game, "Bob", "pass")
    assert game.step == Step.PRECOMBAT_MAIN and game.priority_player == "Alice"
    assert len(game.player("Alice").library) == 10
    assert not [e for e in game.events if e.kind == "step" and "draw" in e.text]
    with pytest.raises(ScenarioError, match=r"103\.8a"):
        new_game(step=Step.DRAW, turn=1)
    game3 = new_game(players=("Alice", "Bob", "Carol"), step=Step.DRAW, turn=1)
    assert len(game3.player("Alice").library) == 9


# ---- tournament shortcuts -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "step"),
    [
        ("go", Step.END),
        ("your turn", Step.END),
        ("combat?", Step.BEGINNING_OF_COMBAT),
        ("attacks?", Step.BEGINNING_OF_COMBAT),
        ("no attacks", Step.END_OF_COMBAT),
    ],
)
def test_shortcut_stops_when_an_opponent_has_priority_at_its_point(phrase, step):
    game = new_game(mode="tournament", alice_battlefield=["Grizzly Bears"])
    act(game, "Alice", "shortcut", phrase=phrase)
    assert game.step == step
    assert game.priority_player == "Bob"
    assert game.shortcut is None


def test_shortcuts_need_tournament_mode():
    game = new_game()
    assert "MTR 4.2" in rejected(act(game, "Alice", "shortcut", phrase="go")).rules


def test_adding_to_stack_passes_priority_unless_held():
    game = new_game(
        mode="tournament", alice_hand=["Shock", "Shock"], alice_battlefield=["Mountain", "Mountain"]
    )
    act(game, "Alice", "cast", "Shock", "Bob")
    assert game.priority_player == "Bob"
    act(game, "Bob", "pass")
    act(game, "Alice", "hold")
    act(game, "Alice", "cast", "Shock", "Bob")
    assert game.priority_player == "Alice"


# ---- advancing and setup --------------------------------------------------------------------


def test_advance_to_reaches_a_step_of_a_later_turn():
    game = new_game(players=("Alice", "Bob", "Carol"))
    game.advance_to("Carol", Step.END)
    assert (game.players[game.active].name, game.step, game.priority_player) == (
        "Carol",
        Step.END,
        "Carol",
    )
    assert game.turn == 4


def test_setup_errors_name_what_is_wrong():
    with pytest.raises(ScenarioError, match="2 to 4 players"):
        Game(["Alice"], default_pool())
    game = Game(["Alice", "Bob"], default_pool())
    with pytest.raises(ScenarioError, match="unknown card 'Black Lotus'"):
        game.put("Alice", "hand", ["Black Lotus"])
    with pytest.raises(ScenarioError, match="not a permanent"):
        game.put("Alice", "battlefield", ["Shock"])


# ---- issue 10: names, combat, new mechanics ---------------------------------------------------
def test_a_name_picks_the_first_object_the_action_can_use():
    game = new_game(alice_battlefield=["Island (tapped)", "Island", "Island (tapped)"])
    assert rejected(act(game, "Alice", "mana", "Island", mana="{U}")) is None
    assert all(o.tapped for o in game.battlefield)
    bad = rejected(act(game, "Alice", "mana", "Island", mana="{U}"))
    assert bad and "is tapped" in bad.text and "605.3a" in bad.rules


def test_attackers_and_blockers_of_the_same_name_are_distinct():
    game = new_game(
        step=Step.DECLARE_ATTACKERS,
        alice_battlefield=["Grizzly Bears", "Grizzly Bears"],
        bob_battlefield=["Llanowar Elves", "Llanowar Elves"],
    )
    act(game, "Alice", "attack", attackers=(("Grizzly Bears", None), ("Grizzly Bears", None)))
    assert sum(o.attacking is not None for o in game.battlefield) == 2
    act(game, "Alice", "pass")
    act(game, "Bob", "pass")
    events = act(
        game,
        "Bob",
        "block",
        blocks=(("Llanowar Elves", "Grizzly Bears"), ("Llanowar Elves", "Grizzly Bears")),
    )
    assert rejected(events) is None
    assert sum(o.blocking is not None for o in game.battlefield) == 2


@pytest.mark.parametrize(
    ("zones", "action"),
    [
        (
            {"alice_battlefield": ["Bonesplitter", "Grizzly Bears"]},
            Action("activate", "Bob", "Bonesplitter", ("Grizzly Bears",), phrase="equip"),
        ),
        (
            {"alice_battlefield": ["Chandra, Torch of Defiance (1 loyalty)"]},
            Action("activate", "Alice", '"Chandra, Torch of Defiance"', phrase="-3"),
        ),
        ({"alice_hand": ["Saw It Coming"]}, Action("foretell", "Bob", "Saw It Coming")),
        ({"alice_hand": ["Slickshot Show-Off"]}, Action("plot", "Alice", "Slickshot Show-Off")),
        ({"alice_hand": ["Forked Bolt"]}, Action("cast", "Alice", "Forked Bolt", ("Bob",))),
    ],
)
def test_new_actions_refused_change_nothing_and_cite_a_rule(zones, action):
    game = new_game(step=Step.UPKEEP, **zones)
    before = game.snapshot()
    events = game.perform(action)
    bad = rejected(events)
    assert bad is not None and bad.rules, [e.text for e in events]
    assert game.snapshot() == before


def test_legal_actions_list_planeswalker_attacks_and_special_actions():
    game = new_game(
        step=Step.DECLARE_ATTACKERS,
        alice_battlefield=["Grizzly Bears"],
        bob_battlefield=["Chandra, Torch of Defiance"],
    )
    walker = next(o for o in game.battlefield if o.card.is_a("planeswalker"))
    attacks = [a for a in game.legal_actions() if a.attackers]
    assert any(a.attackers[0][1] == walker.id for a in attacks)
    game = new_game(
        alice_hand=["Saw It Coming", "Slickshot Show-Off"],
        alice_battlefield=["Island", "Island", "Mountain", "Mountain"],
    )
    kinds = {a.kind for a in game.legal_actions()}
    assert {"foretell", "plot"} <= kinds


def test_combat_damage_with_lifelink_trample_and_double_strike():
    game = new_game(
        step=Step.DECLARE_ATTACKERS,
        alice_battlefield=["Fencing Ace", "Colossal Dreadmaw", "Vampire Nighthawk"],
        bob_battlefield=["Grizzly Bears"],
    )
    act(
        game,
        "Alice",
        "attack",
        attackers=tuple(
            (n, None) for n in ("Fencing Ace", "Colossal Dreadmaw", "Vampire Nighthawk")
        ),
    )
    game.advance_to("Alice", Step.DECLARE_BLOCKERS)
    assert game.awaiting and game.awaiting[0] == "blockers"
    act(game, "Bob", "block", blocks=(("Grizzly Bears", "Colossal Dreadmaw"),))
    game.advance_to("Alice", Step.END_OF_COMBAT)
    # 1 + 1 (double strike) + 4 (trample over a 2/2) + 2 (Nighthawk) = 8; lifelink gains 2
    assert game.player("Bob").life == 12
    assert game.player("Alice").life == 22
