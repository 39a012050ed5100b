"""Property-based tests: random legal playouts keep the priority invariants of rule 117."""

from __future__ import annotations

import copy
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.engine import Action, Game, Step, default_pool

DECK = [
    "Mountain",
    "Forest",
    "Island",
    "Lightning Bolt",
    "Shock",
    "Giant Growth",
    "Grizzly Bears",
    "Counterspell",
    "Llanowar Elves",
    "Soul Warden",
    "Divination",
    "Sudden Shock",
    "Youthful Knight",
    "Typhoid Rats",
    "Skinthinner",
    "Dark Ritual",
    "Swamp",
    # the mechanics of issue 10: counters, tokens, exile, Auras, Equipment, keywords, legends,
    # divided damage, foretell, plot, suspend, a special-action discard
    "Battlegrowth",
    "Grim Affliction",
    "Raise the Alarm",
    "Swords to Plowshares",
    "Pyroclasm",
    "Forked Bolt",
    "Holy Strength",
    "Rancor",
    "Glistener Elf",
    "Fencing Ace",
    "Isamaru, Hound of Konda",
    "Saw It Coming",
    "Slickshot Show-Off",
    "Rift Bolt",
    "Circling Vultures",
    # zone changes and copies: 111.8, 707.10, 704.5e
    "Cloudshift",
    "Unsummon",
    "Twincast",
    # choices made on resolution (608.2d): scry, surveil, discards
    "Opt",
    "Consider",
    "Careful Study",
    # 116.2c: a delayed ability a player may pay to stop
    "Quenchable Fire",
]


EXTRA = ["Bonesplitter", "Chandra, Torch of Defiance", "Vampire Nighthawk", "Colossal Dreadmaw"]


def new_game(players: int, seed_cards: list[str]) -> Game:
    game = Game(["Alice", "Bob", "Carol", "Dave"][:players], default_pool())
    for i, p in enumerate(game.players):
        game.put(
            p.name,
            "battlefield",
            ["Mountain", "Forest", "Island", "Swamp", "Plains", "Grizzly Bears", EXTRA[i % 4]],
        )
        game.put(p.name, "hand", seed_cards[i::players][:7])
        game.put(p.name, "library", (seed_cards * 2)[:15])
    # The special actions of 116.2d, i, j and m: a static effect to ignore (three players), the
    # planar die (three players), a face-down conspiracy (four players), a Room (everyone).
    game.planechase = players == 3
    if players == 3:
        game.put("Carol", "battlefield", ["Stillness Field"])
    if players == 4:
        game.put("Dave", "conspiracy", ["Secret Summoning (face down, naming Shock)"])
    game.put("Bob", "battlefield", ["Bottomless Pool // Locker Room"])
    game.start("Alice", Step.UPKEEP, 2)
    return game


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=4),
    cards=st.lists(st.sampled_from(DECK), min_size=8, max_size=28),
    choices=st.lists(st.integers(min_value=0, max_value=1_000), min_size=50, max_size=250),
)
def test_random_playouts_keep_priority_invariants(players, cards, choices):
    game = new_game(players, cards)
    consecutive = 0
    for choice in choices:
        if game.game_over:
            assert game.priority is None and not game.legal_actions()
            break
        # Exactly one player holds priority whenever anyone does, and never while a
        # turn-based declaration is awaited.
        if game.priority is not None:
            assert game.awaiting is None
            assert game.players[game.priority].in_game
        actions = game.legal_actions()
        assert actions, "a game that is not over always has a legal action (no dead end)"
        action = actions[choice % len(actions)]
        before_step = (game.turn, game.step)
        before_stack = len(game.stack)
        start = len(game.events)
        events = game.perform(action)
        assert not [e for e in events if e.kind == "rejected"], (action, [e.text for e in events])
        # Nothing resolves unless all players passed in succession.
        resolved = [e for e in events if e.kind in ("resolve", "fizzle")]
        if resolved:
            assert action.kind == "pass" or game.mode == "tournament"
            passes = [e for e in game.events[: start + len(events)] if e.kind == "pass"]
            assert passes, "a resolution follows passes"
        # Resolving or ending a step needs all players to pass in succession (117.4).
        for event in events:
            if event.kind == "pass":
                consecutive += 1
            elif event.kind in ("resolve", "fizzle", "all passed"):
                assert consecutive >= len(game.in_game()), (event.text, consecutive)
                consecutive = 0
            elif event.kind in ("cast", "activate", "mana", "special action", "declare"):
                consecutive = 0
        # A step with a non-empty stack doesn't end on a pass: the top object resolves first.
        if (game.turn, game.step) != before_step and action.kind == "pass" and before_stack:
            assert any(e.kind in ("resolve", "fizzle") for e in events) or game.game_over
        # Mana pools are empty after every step change.
        for i, event in enumerate(events):
            if event.kind == "step":
                later_mana = [e for e in events[i:] if e.kind in ("mana", "pay")]
                if not later_mana:
                    assert all(p.pool.is_empty() for p in game.players)
        # Every event names the rules that justify it.
        assert all(e.rules for e in events)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(min_value=2, max_value=4), steps=st.integers(min_value=10, max_value=80))
def test_everyone_passing_always_moves_the_game_on(players, steps):
    game = new_game(players, ["Mountain"] * 8)
    since_change = 0
    for _ in range(steps):
        key = (game.turn, game.step)
        simple = next(
            a
            for a in game.legal_actions()
            if a.kind in ("pass", "attack", "block", "discard", "assign")
        )
        game.perform(simple)
        if game.game_over:
            break
        since_change = 0 if (game.turn, game.step) != key else since_change + 1
        # With nothing on the stack, one round of passes (plus a declaration) ends the step.
        assert since_change <= len(game.in_game())


def test_passing_only_advances_turn_and_step_monotonically():
    game = new_game(3, ["Mountain"] * 8)
    previous = (game.turn, game.step.order)
    for _ in range(300):
        if game.game_over:
            break
        action = next(
            a
            for a in game.legal_actions()
            if a.kind in ("pass", "attack", "block", "discard", "assign")
        )
        game.perform(action)
        now = (game.turn, game.step.order)
        assert now >= previous
        previous = now
    assert game.turn > 5


# ---- legality: perform, is_legal and legal_actions agree --------------------------------------

# The kinds legal_actions enumerates; concede, hold, order_triggers and shortcuts are
# announcements a player may make at any time, so they are outside this action space.
LISTED_KINDS = (
    "pass",
    "play_land",
    "cast",
    "activate",
    "mana",
    "turn_face_up",
    "attack",
    "block",
    "discard",
    "assign",
    "stop_effect",
    "ignore_effect",
    "planar_die",
    "reveal_conspiracy",
    "unlock",
)


def object_ids(game: Game) -> list[int]:
    """Every object id in the game, plus one that names nothing."""
    ids = [o.id for o in game.battlefield] + [s.id for s in game.stack]
    for p in game.players:
        ids += [o.id for o in p.hand + p.graveyard + p.library[-3:]]
    return [*ids, max(ids, default=0) + 1000]


def arbitrary_action(game: Game, draw) -> Action:
    """An action of a listed kind, in the canonical form legal_actions uses (ids, indexes and
    player names), by any player, on any object: mostly illegal, sometimes legal."""
    names = [p.name for p in game.players]
    ids = object_ids(game)
    # Favour the player who must act and their own cards, or nearly every action is refused
    # for the same two reasons (no priority, not your card).
    actor = game.priority if game.awaiting is None else game.awaiting[1]
    near: list[int] = []
    if actor is not None:
        names += [game.players[actor].name] * 2 * len(names)
        near = [o.id for o in game.players[actor].hand]
        near += [o.id for o in game.battlefield if o.controller == actor]
    player = draw(st.sampled_from(names))
    kind = draw(st.sampled_from(LISTED_KINDS))
    card = draw(st.sampled_from(near * 3 + ids))
    target_space = [("player", i) for i in range(len(names))] + [("object", i) for i in ids]
    targets = tuple(draw(st.lists(st.sampled_from(target_space), max_size=2)))
    if kind == "pass":
        return Action("pass", player)
    if kind in ("play_land", "turn_face_up", "discard"):
        return Action(kind, player, card)
    if kind == "cast":
        return Action("cast", player, card, targets=targets, face_down=draw(st.booleans()))
    if kind == "activate":
        ability = draw(st.integers(min_value=1, max_value=3))
        return Action("activate", player, card, targets=targets, ability=ability)
    if kind == "mana":
        return Action("mana", player, card, ability=draw(st.integers(min_value=1, max_value=3)))
    if kind == "attack":
        if draw(st.booleans()):
            return Action("attack", player)
        return Action("attack", player, attackers=((card, draw(st.sampled_from(names))),))
    if kind == "planar_die":
        return Action(
            kind, player, phrase=draw(st.sampled_from(["blank", "chaos", "planeswalk", "six"]))
        )
    if kind in ("stop_effect", "reveal_conspiracy", "unlock"):
        names = ["Quenchable Fire", "Secret Summoning", "Locker Room", "Bottomless Pool", "Shock"]
        return Action(kind, player, draw(st.sampled_from(names)))
    if kind == "ignore_effect":
        return Action(kind, player, card)
    if kind == "assign":
        # Combat damage divided among any objects and players, in any amounts (510.1c).
        attackers = [o.id for o in game.battlefield if o.attacking is not None] or ids
        parts = tuple(
            (draw(st.sampled_from(target_space)), draw(st.integers(min_value=-1, max_value=6)))
            for _ in range(draw(st.integers(min_value=0, max_value=3)))
        )
        return Action("assign", player, assignment=((draw(st.sampled_from(attackers)), parts),))
    if draw(st.booleans()):
        return Action("block", player)
    attackers = [o.id for o in game.battlefield if o.attacking is not None]
    return Action("block", player, blocks=((card, draw(st.sampled_from(attackers + ids))),))


def listed(action: Action, legal: list[Action]) -> bool:
    """Whether legal_actions lists the action ("activate" of a mana ability is listed as "mana",
    the same ability activated the same way)."""
    if action in legal:
        return True
    return action.kind == "activate" and replace(action, kind="mana") in legal


def fork(game: Game) -> Game:
    """An independent copy of the game (its trace and the shared card pool are not copied)."""
    return copy.deepcopy(game, {id(game.events): [], id(game.pool): game.pool})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=4),
    cards=st.lists(st.sampled_from(DECK), min_size=8, max_size=28),
    data=st.data(),
)
def test_unlisted_actions_are_refused_citing_a_rule_and_change_nothing(players, cards, data):
    game = new_game(players, cards)
    names = [p.name for p in game.players]
    refused = 0
    for _ in range(60):
        legal = game.legal_actions()
        for _ in range(4):
            action = arbitrary_action(game, data.draw)
            if legal and data.draw(st.integers(min_value=0, max_value=3)) == 0:
                # A listed action by another player: only the one who must act may take it.
                action = replace(
                    data.draw(st.sampled_from(legal)), player=data.draw(st.sampled_from(names))
                )
            before = game.snapshot()
            events = game.perform(action)
            bad = [e for e in events if e.kind == "rejected"]
            if listed(action, legal):
                assert not bad, (action.describe(), [e.text for e in bad])
                legal = game.legal_actions()
                continue
            refused += 1
            assert len(events) == 1 and bad, (action.describe(), [e.text for e in events])
            assert bad[0].rules, f"{action.describe()}: refused without a rule ({bad[0].text})"
            assert not game.is_legal(action)
            assert game.snapshot() == before, action.describe()
        if game.game_over:
            break
        game.perform(legal[data.draw(st.integers(min_value=0, max_value=len(legal) - 1))])
    assert refused


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=4),
    cards=st.lists(st.sampled_from(DECK), min_size=8, max_size=28),
    choices=st.lists(st.integers(min_value=0, max_value=1_000), min_size=10, max_size=60),
)
def test_every_listed_action_is_accepted(players, cards, choices):
    game = new_game(players, cards)
    for step, choice in enumerate(choices):
        if game.game_over:
            break
        legal = game.legal_actions()
        if step % 5 == 0:
            for action in legal:
                assert game.is_legal(action)
                events = fork(game).perform(action)
                assert not [e for e in events if e.kind == "rejected"], action.describe()
        game.perform(legal[choice % len(legal)])
