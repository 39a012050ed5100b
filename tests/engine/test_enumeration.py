"""Listing legal actions against a brute-force oracle.

``legal_actions`` takes shortcuts for speed (memoised payments, target options and permanents
while it lists; casts whose timing or payment fails are not expanded into every choice of
targets; actions made once per game). After random sequences of actions, what it lists within a
brute-force space (each card, mode, ability, target and single combat declaration the state
offers) must equal every action of that space that ``is_legal`` accepts, checked one by one
without any of those shortcuts; what it lists outside the space (two blockers on one attacker,
damage assignments, the special actions of variants) must be legal too.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.engine import Action, Game, Step, default_pool

DECK = [
    "Mountain",
    "Forest",
    "Island",
    "Swamp",
    "Plains",
    "Lightning Bolt",
    "Shock",
    "Giant Growth",
    "Grizzly Bears",
    "Counterspell",
    "Llanowar Elves",
    "Soul Warden",
    "Dark Ritual",
    "Typhoid Rats",
    "Grim Affliction",
    "Forked Bolt",
    "Battlegrowth",
    "Rancor",
    "Raise the Alarm",
    "Saw It Coming",
    "Rift Bolt",
    "Circling Vultures",
    "Gladecover Scout",
    "Diabolic Edict",
]


def new_game(players: int, cards: list[str]) -> Game:
    game = Game(["Alice", "Bob", "Carol", "Dave"][:players], default_pool())
    for i, p in enumerate(game.players):
        game.put(p.name, "battlefield", ["Mountain", "Forest", "Island", "Swamp", "Plains"])
        game.put(p.name, "hand", cards[i::players][:7])
        game.put(p.name, "library", (cards * 2)[:15])
    game.start("Alice", Step.UPKEEP, 2)
    return game


def target_tuples(game: Game, n: int) -> list[tuple[tuple[str, int], ...]]:
    """Every tuple of ``n`` targets from every player and every object on the battlefield or
    the stack (most of them illegal)."""
    space = [("player", p.index) for p in game.players]
    space += [("object", o.id) for o in game.battlefield]
    space += [("object", s.id) for s in game.stack]
    out: list[tuple[tuple[str, int], ...]] = [()]
    for _ in range(n):
        out = [(*t, s) for t in out for s in space]
    return out


def brute_force(game: Game) -> list[Action]:
    """Every action of the kinds legal_actions lists, in its canonical form, for the player
    who must act, whether legal or not (combat declarations of none or one creature)."""
    if game.game_over:
        return []
    if game.awaiting is not None:
        kind, who, _ = game.awaiting
        name = game.players[who].name
        if kind == "attackers":
            out = [Action("attack", name)]
            defenders = [p.name for p in game.players] + [o.id for o in game.battlefield]
            for o in game.battlefield:
                out += [Action("attack", name, attackers=((o.id, d),)) for d in defenders]
            return out
        if kind == "blockers":
            out = [Action("block", name)]
            for b in game.battlefield:
                out += [Action("block", name, blocks=((b.id, a.id),)) for a in game.battlefield]
            return out
        if kind == "defender":
            return [Action("defender", name, targets=(("player", p.index),)) for p in game.players]
        if kind == "discard":
            return [Action("discard", name, c.id) for c in game.players[who].hand]
        return []  # a declaration outside the space (damage assignment)
    if game.priority is None:
        return []
    pl = game.players[game.priority]
    name = pl.name
    out = [Action("pass", name)]
    for card in pl.hand:
        cdef = card.card
        out.append(Action("play_land", name, card.id))
        modes = list(range(1, len(cdef.modes) + 1)) if cdef.modes else [None]
        for mode in modes:
            effects = cdef.effects + (cdef.modes[mode - 1] if mode else ())
            count = sum(1 for e in effects if e.target)
            for targets in target_tuples(game, count):
                out.append(Action("cast", name, card.id, targets=targets, mode=mode))
        out.append(Action("cast", name, card.id, face_down=True))
        for special in ("foretell", "plot", "suspend", "discard_special"):
            out.append(Action(special, name, card.id))
    for card in pl.exile:
        count = sum(1 for e in card.card.effects if e.target)
        for targets in target_tuples(game, count):
            out.append(Action("cast", name, card.id, targets=targets, zone="exile"))
    if pl.companion is not None:
        out.append(Action("companion", name, pl.companion.name))
    for obj in game.battlefield:
        out.append(Action("turn_face_up", name, obj.id))
        for i, ability in enumerate(obj.card.abilities):
            if ability.is_mana_ability:
                out.append(Action("mana", name, obj.id, ability=i + 1))
                continue
            count = sum(1 for e in ability.effects if e.target)
            for targets in target_tuples(game, count):
                out.append(Action("activate", name, obj.id, targets=targets, ability=i + 1))
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=3),
    cards=st.lists(st.sampled_from(DECK), min_size=8, max_size=21),
    choices=st.lists(st.integers(min_value=0, max_value=1_000), min_size=20, max_size=80),
)
def test_listing_equals_a_fresh_check_of_a_brute_force_space(players, cards, choices):
    game = new_game(players, cards)
    for choice in choices:
        if game.game_over:
            break
        listed = game.legal_actions()
        assert len(set(listed)) == len(listed), "an action is listed twice"
        space = set(brute_force(game))
        fresh = {a for a in space if game.is_legal(a)}
        inside = {a for a in listed if a in space}
        assert inside == fresh, (
            sorted(a.describe() for a in inside - fresh),
            sorted(a.describe() for a in fresh - inside),
        )
        assert all(game.is_legal(a) for a in listed if a not in space)
        game.perform(listed[choice % len(listed)])


def test_the_listing_memo_is_gone_after_listing():
    """Nothing memoised while listing outlives the listing (the next state change would make it
    stale)."""
    game = new_game(2, DECK)
    game.legal_actions()
    assert game.plan_memo is None
    game.perform(Action("pass", "Alice"))
    assert game.plan_memo is None
