"""Every layout of the shared AtomicCards file is read with its faces (skipped where absent)."""

from __future__ import annotations

from collections import defaultdict

from kb.sources.card_model import Card

#: layouts of AtomicCards 2022-04-25 and the number of faces a card of each has
FACES = {
    "normal": {1},
    "scheme": {1},
    "saga": {1},
    "planar": {1},
    "host": {1},
    "augment": {1},
    "vanguard": {1},
    "class": {1},
    "leveler": {1},
    "reversible_card": {1},
    "meld": {1},
    "modal_dfc": {2},
    "transform": {2},
    "flip": {2},
    "adventure": {2},
    "aftermath": {2},
    "split": {2, 3, 5},
}


def test_every_layout_is_read(shared_cards: list[Card]) -> None:
    faces: dict[str, set[int]] = defaultdict(set)
    for card in shared_cards:
        faces[card.layout].add(len(card.faces))
    assert dict(faces) == FACES
    assert len(shared_cards) == 23711
    assert sum(len(card.faces) for card in shared_cards) == 24157


def test_faces_hold_what_the_layout_needs(by_name: dict[str, Card]) -> None:
    split = by_name["Fire // Ice"]
    assert [f.name for f in split.faces] == ["Fire", "Ice"] and split.mana_value == 4.0
    assert [f.mana_value for f in split.faces] == [2.0, 2.0]
    adventure = by_name["Giant Killer // Chop Down"]
    assert adventure.faces[1].type_line == "Instant — Adventure"
    assert adventure.faces[0].printed["fr"].name and adventure.faces[0].printed["ja"].name
    mdfc = by_name["Emeria's Call // Emeria, Shattered Skyclave"]
    assert [f.side for f in mdfc.faces] == ["a", "b"] and mdfc.faces[1].types == ["Land"]
    flip = by_name["Kitsune Mystic // Autumn-Tail, Kitsune Sage"]
    assert flip.faces[1].supertypes == ["Legendary"]
    walker = by_name["Jace, the Mind Sculptor"]
    assert walker.faces[0].loyalty == "3" and walker.rulings
    assert all(r.date[:4].isdigit() for r in walker.rulings)
    wrath = by_name["Wrath of God"]
    assert wrath.printed_name("fr") == "Colère de Dieu" and wrath.printed_name("ja") == "神の怒り"
    assert wrath.faces[0].printed["fr"].text.startswith("Détruisez toutes les créatures")
