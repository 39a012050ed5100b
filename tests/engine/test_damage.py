"""Combat damage divided among several blockers (510.1c-e) and trample (702.19b)."""

from __future__ import annotations

from kb.engine import Action, Game, Step, default_pool, parse_card


def blocked_game(attacker: str, blockers: list[str], extra: list[str] = ()) -> Game:
    pool = default_pool().copy()
    for name, text in extra:
        pool.add(parse_card(name, text))
    game = Game(["Alice", "Bob"], pool)
    game.put("Alice", "battlefield", [attacker])
    game.put("Bob", "battlefield", blockers)
    for p in game.players:
        game.set_library_count(p.name, 5)
    game.start("Alice", Step.DECLARE_ATTACKERS, 2)
    game.perform(Action("attack", "Alice", attackers=((attacker, None),)))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    blocks = tuple((b, attacker) for b in dict.fromkeys(blockers))
    if len(set(blockers)) < len(blockers):
        ids = [o.id for o in game.battlefield if o.controller == 1]
        blocks = tuple((i, attacker) for i in ids)
    game.perform(Action("block", "Bob", blocks=blocks))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    return game


def assign(attacker: str, *parts: tuple[str, int]) -> Action:
    return Action("assign", "Alice", assignment=((attacker, tuple(parts)),))


def test_one_blocker_without_trample_needs_no_announcement():
    game = blocked_game("Hill Giant", ["Grizzly Bears"])
    assert game.awaiting is None and game.priority_player == "Alice"
    assert [o.name for o in game.player("Bob").graveyard] == ["Grizzly Bears"]


def test_two_blockers_wait_for_the_attacking_player_and_an_illegal_division_changes_nothing():
    game = blocked_game("Hill Giant", ["Grizzly Bears", "Llanowar Elves"])
    assert game.awaiting == ("damage", 0, 0) and game.priority is None
    before = game.snapshot()
    for bad, rule in (
        (assign("Hill Giant", ("Grizzly Bears", 1), ("Llanowar Elves", 1)), "510.1a"),
        (assign("Hill Giant", ("Grizzly Bears", 3), ("Grizzly Bears", 0)), "510.1c"),
        (assign("Hill Giant", ("Grizzly Bears", 4), ("Llanowar Elves", -1)), "510.1a"),
        (Action("assign", "Alice"), "510.1"),
        (Action("assign", "Bob", assignment=(("Hill Giant", (("Bob", 3),)),)), "510.1"),
    ):
        events = game.perform(bad)
        assert events[-1].kind == "rejected" and rule in events[-1].rules, events[-1].text
        assert game.snapshot() == before
    game.perform(assign("Hill Giant", ("Grizzly Bears", 3), ("Llanowar Elves", 0)))
    assert [o.name for o in game.player("Bob").graveyard] == ["Grizzly Bears"]
    assert game.priority_player == "Alice"


def test_trample_with_deathtouch_needs_only_one_damage_per_blocker():
    card = ("Tramplin Viper", "creature {G} 4/4; trample; deathtouch")
    game = blocked_game("Tramplin Viper", ["Hill Giant", "Grizzly Bears"], [card])
    game.perform(assign("Tramplin Viper", ("Hill Giant", 1), ("Grizzly Bears", 1), ("Bob", 2)))
    assert game.player("Bob").life == 18
    assert {o.name for o in game.player("Bob").graveyard} == {"Hill Giant", "Grizzly Bears"}


def test_trample_short_of_lethal_cannot_reach_the_player():
    game = blocked_game("Colossal Dreadmaw", ["Hill Giant", "Grizzly Bears"])
    events = game.perform(
        assign("Colossal Dreadmaw", ("Hill Giant", 2), ("Grizzly Bears", 2), ("Bob", 2))
    )
    assert "702.19b" in events[-1].rules and events[-1].kind == "rejected"
    game.perform(assign("Colossal Dreadmaw", ("Hill Giant", 3), ("Grizzly Bears", 2), ("Bob", 1)))
    assert game.player("Bob").life == 19


def test_double_strike_divides_its_damage_in_both_damage_steps():
    card = ("Twin Blade", "creature {R} 2/2; double strike")
    game = blocked_game("Twin Blade", ["Llanowar Elves", "Llanowar Elves"], [card])
    assert game.step == Step.FIRST_STRIKE_DAMAGE and game.awaiting[0] == "damage"
    game.perform(assign("Twin Blade", ("Llanowar Elves", 1), ("Llanowar Elves", 1)))
    assert len(game.player("Bob").graveyard) == 2
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    # Both blockers are gone: the creature is still blocked and assigns no damage (510.1c).
    assert game.step == Step.COMBAT_DAMAGE and game.awaiting is None


def test_every_listed_assignment_is_legal():
    game = blocked_game("Colossal Dreadmaw", ["Hill Giant", "Grizzly Bears", "Llanowar Elves"])
    listed = game.legal_actions()
    assert len(listed) == 4 and all(a.kind == "assign" for a in listed)
    assert all(game.is_legal(a) for a in listed)
    game.advance_to("Alice", Step.END)
    assert game.player("Bob").life == 20 - (6 - 3 - 2 - 1)


def test_lethal_damage_for_trample_counts_other_attackers_damage_to_the_same_blocker():
    # 702.19b: Gatekeeper (2/4) blocks both; Grizzly Bears assigns it 2, so 2 more is lethal.
    card = ("Gatekeeper", "creature {2}{W} 2/4; can block an additional creature each combat")
    pool = default_pool().copy()
    pool.add(parse_card(*card))
    game = Game(["Alice", "Bob"], pool)
    game.put("Alice", "battlefield", ["Colossal Dreadmaw", "Grizzly Bears"])
    game.put("Bob", "battlefield", ["Gatekeeper"])
    for p in game.players:
        game.set_library_count(p.name, 5)
    game.start("Alice", Step.DECLARE_ATTACKERS, 2)
    game.perform(
        Action("attack", "Alice", attackers=(("Colossal Dreadmaw", None), ("Grizzly Bears", None)))
    )
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    game.perform(
        Action(
            "block",
            "Bob",
            blocks=(("Gatekeeper", "Colossal Dreadmaw"), ("Gatekeeper", "Grizzly Bears")),
        )
    )
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    assert game.awaiting == ("damage", 0, 0)
    events = game.perform(assign("Colossal Dreadmaw", ("Gatekeeper", 1), ("Bob", 5)))
    assert events[-1].kind == "rejected" and "702.19b" in events[-1].rules
    game.perform(assign("Colossal Dreadmaw", ("Gatekeeper", 2), ("Bob", 4)))
    # then Bob divides Gatekeeper's damage between the two attackers (510.1d)
    assert game.awaiting == ("damage", 1, 0)
    assert len(game.legal_actions()) == 2
    game.perform(Action("assign", "Bob", assignment=(("Gatekeeper", (("Grizzly Bears", 2),)),)))
    assert game.player("Bob").life == 16
    assert [o.name for o in game.player("Bob").graveyard] == ["Gatekeeper"]
    assert [o.name for o in game.player("Alice").graveyard] == ["Grizzly Bears"]


def test_the_announcing_player_conceding_lets_combat_go_on_without_them():
    game = Game(["Alice", "Bob", "Carol"], default_pool())
    game.put("Alice", "battlefield", ["Hill Giant"])
    game.put("Bob", "battlefield", ["Grizzly Bears", "Llanowar Elves"])
    for p in game.players:
        game.set_library_count(p.name, 5)
    game.start("Alice", Step.DECLARE_ATTACKERS, 2)
    game.perform(Action("attack", "Alice", attackers=(("Hill Giant", "Bob"),)))
    for name in ("Alice", "Bob", "Carol"):
        game.perform(Action("pass", name))
    game.perform(
        Action(
            "block",
            "Bob",
            blocks=(("Grizzly Bears", "Hill Giant"), ("Llanowar Elves", "Hill Giant")),
        )
    )
    for name in ("Alice", "Bob", "Carol"):
        game.perform(Action("pass", name))
    assert game.awaiting == ("damage", 0, 0)
    game.perform(Action("concede", "Alice"))
    assert not game.game_over and game.awaiting is None
    assert game.priority_player == "Bob"  # 800.4j: the turn goes on without its active player
    assert len(game.zone("Bob", "battlefield")) == 2
