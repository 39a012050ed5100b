"""Layer 1 (copy effects, 707) and layer 3 (text-changing effects, 612) through the engine's API:
what a copy takes and doesn't, copying a copy, text changes read before layer 4, the
announcements that choose, and the card language's refusals."""

from __future__ import annotations

import pytest

from kb.engine.cards import CardError, default_pool, parse_card
from kb.engine.game import Action, Game, IllegalAction
from kb.engine.layers import type_line
from kb.engine.steps import Step
from tests.engine.test_layers import _game


def _resolve(game: Game, card: str, choice: tuple[str, str], targets: tuple[str, ...] = ()) -> None:
    game.perform(Action("cast", "Alice", card=card, targets=targets))
    game.perform(Action("announce", "Alice", card=card, phrase=choice[0], names=(choice[1],)))
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))


ISLANDS = ["Island"] * 4


def test_clone_copies_the_printed_card_not_counters_nor_anthems() -> None:
    game = _game(["Glorious Anthem", *ISLANDS], ["Grizzly Bears (2 +1/+1 counters)"], ["Clone"])
    _resolve(game, "Clone", ("copy", "Grizzly Bears"))
    clone = game.find_permanent("Clone")
    assert clone.name == "Grizzly Bears" and clone.counters == {}
    assert (game.power(clone), game.toughness(clone)) == (3, 3)  # Alice's own Anthem, 7c
    lines = game.layer_explanation(clone)
    assert lines[0].startswith("layer 1 (copy): Clone makes it a copy of Grizzly Bears")
    bears = game.find_permanent("Bob's Grizzly Bears")
    assert (game.power(bears), game.toughness(bears)) == (4, 4)


def test_a_copy_of_a_copy_takes_its_copiable_values_with_their_exception() -> None:
    game = _game(ISLANDS, ["Grizzly Bears", "Quicksilver Gargantuan (copying Grizzly Bears)"])
    game.put("Alice", "hand", ["Clone"])
    _resolve(game, "Clone", ("copy", "Quicksilver Gargantuan"))
    clone = game.find_permanent("Clone")
    assert clone.name == "Grizzly Bears"
    assert (game.power(clone), game.toughness(clone)) == (7, 7)  # 707.3, 707.9b


def test_a_copy_under_humility_copies_the_printed_values() -> None:
    game = _game(ISLANDS, ["Humility", "Serra Angel"], ["Clone"])
    _resolve(game, "Clone", ("copy", "Serra Angel"))
    clone = game.find_permanent("Clone")
    assert clone.copied is not None and clone.copied.card.power == 4
    assert "flying" in clone.copied.card.keywords
    assert (game.power(clone), game.toughness(clone)) == (1, 1)
    assert not game.has(clone, "flying")


def test_a_copied_lord_pumps_the_other() -> None:
    game = _game(["Goblin Chieftain", *ISLANDS], hand=["Clone"])
    _resolve(game, "Clone", ("copy", "Goblin Chieftain"))
    both = game.permanents_named("Goblin Chieftain")
    assert [(game.power(o), game.toughness(o)) for o in both] == [(3, 3), (3, 3)]


def test_without_an_announcement_clone_enters_as_itself_and_the_trace_says_why() -> None:
    game = _game(ISLANDS, ["Grizzly Bears"], ["Clone"])
    game.perform(Action("cast", "Alice", card="Clone"))
    game.perform(Action("pass", "Alice"))
    texts = [e.text for e in game.perform(Action("pass", "Bob"))]
    assert any("announced no choice" in t for t in texts), texts
    assert game.zone("Alice", "graveyard")[0].name == "Clone"  # a 0/0 (704.5f)


def test_announcing_a_copy_for_a_spell_without_the_ability_is_refused() -> None:
    game = _game(["Forest", "Forest"], hand=["Grizzly Bears"])
    game.perform(Action("cast", "Alice", card="Grizzly Bears"))
    events = game.perform(
        Action("announce", "Alice", card="Grizzly Bears", phrase="copy", names=("Forest",))
    )
    assert events[-1].kind == "rejected" and "707.5" in events[-1].rules


def test_a_text_change_rewrites_blood_moon_before_layer_4() -> None:
    game = _game(["Island", "Urborg, Tomb of Yawgmoth"], ["Blood Moon"], ["Magical Hack"])
    urborg = game.find_permanent("Urborg, Tomb of Yawgmoth")
    assert type_line(urborg.card) == "Legendary Land — Mountain"
    _resolve(game, "Magical Hack", ("change", "mountain to island"), ("Blood Moon",))
    assert type_line(urborg.card) == "Legendary Land — Island"
    assert [a.text for a in urborg.card.abilities] == ["{T}: add {U}"]
    moon = game.find_permanent("Blood Moon")
    assert any(n.startswith("layer 3 (text): Magical Hack") for n in game.layer_explanation(moon))


def test_a_text_change_announcement_names_words_of_the_right_kind() -> None:
    game = _game(["Island"], ["Blood Moon"], ["Magical Hack"])
    game.perform(Action("cast", "Alice", card="Magical Hack", targets=("Blood Moon",)))
    events = game.perform(
        Action("announce", "Alice", card="Magical Hack", phrase="change", names=("red to blue",))
    )
    assert events[-1].kind == "rejected" and "not a basic land type word" in events[-1].text


def test_a_color_word_changed_in_an_anthem() -> None:
    game = _game(["Crusade", "Savannah Lions"], hand=["Sleight of Mind"])
    game.put("Alice", "battlefield", ["Island"])
    game.put("Bob", "battlefield", ["Typhoid Rats"])
    lions, rats = game.find_permanent("Savannah Lions"), game.find_permanent("Typhoid Rats")
    assert (game.power(lions), game.power(rats)) == (3, 1)
    _resolve(game, "Sleight of Mind", ("change", "white to black"), ("Crusade",))
    assert (game.power(lions), game.power(rats)) == (2, 2)


def test_a_copy_does_not_copy_a_text_change_and_landwalk_is_checked() -> None:
    game = _game(["Bog Wraith", *ISLANDS], ["Swamp"], ["Magical Hack", "Clone"])
    game.put("Alice", "battlefield", ["Island"])
    _resolve(game, "Magical Hack", ("change", "swamp to island"), ("Bog Wraith",))
    _resolve(game, "Clone", ("copy", "Bog Wraith"))
    wraith, clone = game.find_permanent("Bog Wraith"), game.find_permanent("Clone")
    assert "islandwalk" in wraith.card.keywords and "swampwalk" not in wraith.card.keywords
    assert "swampwalk" in clone.card.keywords


def test_an_equipment_attached_after_humility_grants_its_keywords() -> None:
    """613.7e: a new timestamp each time it becomes attached."""
    game = _game(["Grizzly Bears", "Lightning Greaves (attached to Grizzly Bears)", "Humility",
                  "Llanowar Elves"])  # fmt: skip
    bears, elves = game.find_permanent("Grizzly Bears"), game.find_permanent("Llanowar Elves")
    assert not game.has(bears, "shroud")
    game.perform(Action("activate", "Alice", card="Lightning Greaves", phrase="equip",
                        targets=("Llanowar Elves",)))  # fmt: skip
    game.perform(Action("pass", "Alice"))
    game.perform(Action("pass", "Bob"))
    assert game.has(elves, "shroud") and game.has(elves, "haste")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("creature {1} 0/0; you may have this creature enter as a copy of any creature on the "
         "battlefield, except it is blue", "unknown copy exception 'it is blue'"),
        ("sorcery {1}; target creature becomes a copy of target creature", "cannot read the copy"),
        ("instant {U}; change the text of target spell or permanent by replacing all instances "
         "of one color word with another", "'target spell or permanent'"),
        ("instant {U}; change the text of target permanent by replacing all instances of swamp "
         "with red", "'swamp with red'"),
        ("enchantment {1}; static all creatures are blue", "unknown static ability"),
        ("creature {1} 0/0; you may have this creature enter as a copy of any creature on the "
         "battlefield, except it has wings", "unknown keyword 'wings'"),
    ],
)  # fmt: skip
def test_unsupported_wordings_are_refused_by_name(text: str, words: str) -> None:
    with pytest.raises(CardError, match=words.replace("(", r"\(")):
        parse_card("X", text)


def test_a_name_finds_a_copy_by_its_own_card_too() -> None:
    game = _game(["Grizzly Bears", "Clone (copying Grizzly Bears)"])
    assert game.find_permanent("Clone").label == "Grizzly Bears (Clone)"
    assert game.find_permanent("Grizzly Bears").copied is None  # the original first
    with pytest.raises(IllegalAction):
        game.find_permanent("Quicksilver Gargantuan")


def _shielded_attack(choice: str | None) -> Game:
    game = Game(["Alice", "Bob"], default_pool())
    game.put("Alice", "battlefield", ["Hill Giant", "Vampire Nighthawk"])
    game.put("Bob", "battlefield", ["Plains"])
    game.put("Bob", "hand", ["Healing Salve"])
    for name in ("Alice", "Bob"):
        game.set_library_count(name, 10)
    game.start("Alice", Step.DECLARE_ATTACKERS, 2)
    game.perform(Action("attack", "Alice", attackers=(("Hill Giant", None),
                                                       ("Vampire Nighthawk", None))))  # fmt: skip
    game.perform(Action("pass", "Alice"))
    game.perform(Action("cast", "Bob", card="Healing Salve", targets=("Bob",)))
    game.perform(Action("pass", "Bob"))
    game.perform(Action("pass", "Alice"))
    if choice:
        game.perform(Action("shield_first", "Bob", card=choice))
    for act in (Action("pass", "Alice"), Action("pass", "Bob"), Action("block", "Bob"),
                Action("pass", "Alice"), Action("pass", "Bob")):  # fmt: skip
        game.perform(act)
    return game


def test_the_shielded_player_chooses_which_simultaneous_damage_is_prevented() -> None:
    """615.7: Bob's choice decides whether lifelink damage is dealt."""
    chosen, default = _shielded_attack("Vampire Nighthawk"), _shielded_attack(None)
    assert (chosen.player("Bob").life, chosen.player("Alice").life) == (18, 20)
    assert (default.player("Bob").life, default.player("Alice").life) == (18, 22)


def test_choosing_for_a_shield_that_does_not_exist_is_refused() -> None:
    game = _game(["Grizzly Bears"])
    events = game.perform(Action("shield_first", "Bob", card="Grizzly Bears"))
    assert events[-1].kind == "rejected" and "615.7" in events[-1].rules


@pytest.mark.parametrize(
    "text",
    [
        "enchantment {1}; static Each other non-Aura enchantment is a creature in addition to "
        "its other types and has base power and base toughness each equal to its mana value.",
        "land; static Each land is a Swamp in addition to its other land types.",
        "enchantment {1}; static If a card or token would be put into a graveyard from "
        "anywhere, exile it instead.",
        "creature {1} 3/4; static If a nontoken creature an opponent controls would die, exile "
        "that card instead.",
        "instant {1}{U}; Until end of turn, target creature loses all abilities and becomes a "
        "blue Frog with base power and toughness 1/1.",
        "sorcery {R}; Gain control of target creature until end of turn. Untap that creature. "
        "It gains haste until end of turn.",
        "creature {1} 2/2; static Other Goblin creatures you control get +1/+1.",
        "creature {3}{U} 0/0; You may have X enter as a copy of any creature on the battlefield.",
    ],
)
def test_oracle_wordings_read_as_the_card_language(text: str) -> None:
    card = parse_card("X", text)
    found = card.statics or card.replacements or card.effects or (card.copy_as,)
    assert found and found[0] is not None
    spec = getattr(found[0], "spec", None)
    if spec is not None and "until end of turn" in text.lower():
        assert spec.until == "end of turn"
    if "haste" in text:
        assert spec is not None and spec.haste


def test_a_text_change_on_a_copy_changes_the_copied_text() -> None:
    """Layer 3 comes after layer 1: the copy's text is the copied text, and that can change."""
    game = _game(
        ["White Knight", "Clone (copying White Knight)", "Island"], hand=["Sleight of Mind"]
    )
    _resolve(game, "Sleight of Mind", ("change", "black to red"), ("Clone",))
    clone, knight = game.find_permanent("Clone"), game.find_permanent("White Knight")
    assert game.has(clone, "protection from red") and not game.has(clone, "protection from black")
    assert game.has(knight, "protection from black")
    assert [n.split(":")[0] for n in game.layer_explanation(clone)[:2]] == [
        "layer 1 (copy)",
        "layer 3 (text)",
    ]
