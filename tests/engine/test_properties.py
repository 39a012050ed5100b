"""Property-based tests: random legal playouts keep the priority invariants of rule 117."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.engine import Game, Step, default_pool

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
]


def new_game(players: int, seed_cards: list[str]) -> Game:
    game = Game(["Alice", "Bob", "Carol", "Dave"][:players], default_pool())
    for i, p in enumerate(game.players):
        game.put(p.name, "battlefield", ["Mountain", "Forest", "Island", "Swamp", "Grizzly Bears"])
        game.put(p.name, "hand", seed_cards[i::players][:7])
        game.put(p.name, "library", (seed_cards * 2)[:15])
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
            a for a in game.legal_actions() if a.kind in ("pass", "attack", "block", "discard")
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
            a for a in game.legal_actions() if a.kind in ("pass", "attack", "block", "discard")
        )
        game.perform(action)
        now = (game.turn, game.step.order)
        assert now >= previous
        previous = now
    assert game.turn > 5
