"""The battlefield's index (by id, by controller, and what state-based actions look at).

The engine finds permanents by id, lists a player's permanents and checks 704.5 on the watched
permanents only; these tests hold the index to the battlefield itself, in unit cases and after
every action of random games (examples with counters, tokens and face-down permanents run in
the examples corpus too).
"""

from __future__ import annotations

import copy
import random

import pytest

from kb.engine import Game, Step, default_pool
from kb.engine.objects import Battlefield, GameObject

DECK = [
    "Mountain",
    "Forest",
    "Island",
    "Swamp",
    "Lightning Bolt",
    "Shock",
    "Giant Growth",
    "Grizzly Bears",
    "Counterspell",
    "Llanowar Elves",
    "Soul Warden",
    "Typhoid Rats",
    "Dark Ritual",
    "Grim Affliction",
    "Raise the Alarm",
]


def _objects(game: Game) -> tuple[GameObject, GameObject, GameObject]:
    game.put("Alice", "battlefield", ["Mountain", "Grizzly Bears (1 +1/+1 counter)"])
    game.put("Bob", "battlefield", ["Forest"])
    a_land, bears = game.battlefield[0], game.battlefield[1]
    return a_land, bears, game.battlefield[2]


def _assert_index(bf: Battlefield, players: int) -> None:
    """The index says what a full reading of the battlefield says."""
    for o in bf:
        assert bf.get(o.id) is o
    for p in range(players):
        assert bf.of(p) == [o for o in bf if o.controller == p]
    watched = bf.watched()
    assert watched == [o for o in bf if o in watched]  # battlefield order
    for o in bf:
        if o not in watched:  # no check of 704.5 can apply to it
            assert not (o.counters or o.face_down or o.damage or o.deathtouch_damage)
            assert o.card.sba_class == 0
            assert not (o.card.kind_flags[0] or o.card.kind_flags[1])  # target options


def test_index_follows_arrivals_and_departures() -> None:
    game = Game(["Alice", "Bob"], default_pool())
    land, bears, forest = _objects(game)
    bf = game.battlefield
    assert bf.of(0) == [land, bears] and bf.of(1) == [forest] and bf.of(2) == []
    assert bf.watched() == [bears]  # a creature; the lands are never looked at
    bf.remove(bears)
    assert bf.get(bears.id) is None and bears not in bf and bf.of(0) == [land]
    assert bf.watched() == []
    bf.append(bears)
    assert bf.of(0) == [land, bears] and bf.watched() == [bears]
    _assert_index(bf, 2)


def test_counters_put_later_are_watched_in_battlefield_order() -> None:
    game = Game(["Alice", "Bob"], default_pool())
    land, bears, forest = _objects(game)
    bf = game.battlefield
    forest.counters["+1/+1"] = 1
    bf.watch(forest)
    land.counters["-1/-1"] = 1
    bf.watch(land)
    assert bf.watched() == [land, bears, forest]
    bf.watch(GameObject(999, land.card, 0, 0))  # not on the battlefield: ignored
    assert len(bf.watched()) == 3


def test_only_indexed_changes_are_allowed() -> None:
    bf = Game(["Alice", "Bob"], default_pool()).battlefield
    for change in (
        lambda: bf.insert(0, None),
        lambda: bf.pop(),
        lambda: bf.extend([]),
        lambda: bf.clear(),
        lambda: bf.__setitem__(0, None),
        lambda: bf.__delitem__(0),
    ):
        with pytest.raises(TypeError, match="append and remove"):
            change()


def test_a_copy_has_its_own_index_of_the_copied_objects() -> None:
    game = Game(["Alice", "Bob"], default_pool())
    _objects(game)
    saved = copy.deepcopy({"battlefield": game.battlefield, "first": game.battlefield[0]})
    bf = saved["battlefield"]
    assert isinstance(bf, Battlefield) and bf[0] is saved["first"]
    assert bf[0] is not game.battlefield[0]
    _assert_index(bf, 2)
    bf.remove(bf[0])
    assert len(game.battlefield) == 3 and len(bf) == 2
    _assert_index(bf, 2)


@pytest.mark.parametrize("seed", range(4))
def test_index_after_every_action_of_random_games(seed: int) -> None:
    rng = random.Random(seed)
    players = 2 + seed % 3
    game = Game(["Alice", "Bob", "Carol", "Dave"][:players], default_pool())
    for p in game.players:
        game.put(p.name, "battlefield", ["Mountain", "Forest", "Island", "Swamp"])
        game.put(p.name, "hand", rng.choices(DECK, k=7))
        game.put(p.name, "library", rng.choices(DECK, k=30))
    game.start("Alice", Step.UPKEEP, 2)
    for _ in range(600):
        if game.game_over:
            break
        actions = game.legal_actions()
        game.perform(actions[0] if rng.random() < 0.5 else rng.choice(actions))
        _assert_index(game.battlefield, players)
    assert game.actions_taken > 100
