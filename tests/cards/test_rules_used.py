"""The rules cards use, computed from real cards of the shared AtomicCards file against the rules
of the 2025-11-14 edition (both skipped where ../shared/corpus-raw is absent), and from a small
knowledge base built here."""

from __future__ import annotations

import pytest

from kb.cards.rules_used import RuleIndex, rules_used
from kb.knowledge.model import Edition, GlossaryEntry, KnowledgeBase, Rule
from kb.sources.card_model import Card
from kb.sources.cards import read_cards
from tests.cards.conftest import FIXTURES


def _links(card: Card, index: RuleIndex) -> dict[str, tuple[str, str]]:
    return {link.number: (link.why, link.label) for link in rules_used(card, index)}


def test_a_flyer_uses_flying(by_name: dict[str, Card], rule_index: RuleIndex) -> None:
    links = _links(by_name["Serra Angel"], rule_index)
    assert links["702.9"] == ("keyword", "Flying")
    assert links["702.20"] == ("keyword", "Vigilance")
    assert links["302"] == ("type", "Creature")
    assert links["205.3m"] == ("subtype", "Angel")  # the creature types' list


def test_dies_is_a_glossary_term(by_name: dict[str, Card], rule_index: RuleIndex) -> None:
    assert _links(by_name["Blood Artist"], rule_index)["700.4"] == ("term", "Dies")


def test_destroy_is_a_keyword_action(by_name: dict[str, Card], rule_index: RuleIndex) -> None:
    links = _links(by_name["Wrath of God"], rule_index)
    assert links["701.8"] == ("action", "Destroy")
    assert links["701.19"] == ("action", "Regenerate")  # "can't be regenerated"
    assert links["307"] == ("type", "Sorcery")


@pytest.mark.parametrize(
    ("name", "numbers"),
    [
        ("Giant Killer // Chop Down", {"715"}),
        ("Fire // Ice", {"709"}),
        ("Kitsune Mystic // Autumn-Tail, Kitsune Sage", {"710", "110.5"}),  # and "Flipped"
        ("Student of Warfare", {"711"}),
        ("Delver of Secrets // Insectile Aberration", {"712", "701.27"}),
        ("Emeria's Call // Emeria, Shattered Skyclave", {"712"}),
        ("Bruna, the Fading Light", {"712", "701.42"}),
        ("Appeal // Authority", {"702.127"}),
        ("Barbarian Class", {"716"}),
        ("History of Benalia", {"714"}),
    ],
)
def test_layouts(
    by_name: dict[str, Card], rule_index: RuleIndex, name: str, numbers: set[str]
) -> None:
    card = by_name.get(name) or next(c for c in by_name.values() if c.name.startswith(name))
    layout = {n for n, (why, _) in _links(card, rule_index).items() if why == "layout"}
    assert layout == numbers


def test_own_name_and_reminder_text_are_not_read(rule_index: RuleIndex) -> None:
    [gryphon] = [c for c in read_cards(FIXTURES / "atomic.json").cards if c.name == "Test Gryphon"]
    gryphon.faces[0].text = "Storm Test Gryphon (This creature can't block.)"
    gryphon.name = gryphon.faces[0].name = "Storm Test Gryphon"
    links = _links(gryphon, rule_index)
    assert "702.40" not in links  # storm is its name, not an ability
    assert "509" not in links  # "block" only in reminder text


def test_every_card_has_its_types(shared_cards: list[Card], rule_index: RuleIndex) -> None:
    """Each card of a traditional type links to its type's section (300-310)."""
    traditional = {
        "Artifact",
        "Creature",
        "Enchantment",
        "Instant",
        "Land",
        "Planeswalker",
        "Sorcery",
        "Battle",
    }
    missing = [
        card.name
        for card in shared_cards
        if traditional & set(card.faces[0].types)
        and not any(link.why == "type" for link in rules_used(card, rule_index))
    ]
    assert missing == []


def test_from_a_knowledge_base() -> None:
    """RuleIndex.from_kb reads the newest English edition's rules and glossary."""
    kb = KnowledgeBase()
    for date, title in (("2030-01-01", "Flying"), ("2031-01-01", "Soaring")):
        ed = f"en-{date}"
        kb.editions[ed] = Edition(ed, "en", date, "full", ed, [])
        kb.rules[ed] = {
            "702": Rule(ed, "en", "702", "rule", "", "Keyword Abilities"),
            "702.9": Rule(ed, "en", "702.9", "rule", title),
            "700.4": Rule(ed, "en", "700.4", "subrule", "The term dies means …"),
        }
        kb.glossary[ed] = {
            "dies": GlossaryEntry(ed, "en", "dies", "Dies", "See rule 700.4.", rule_refs=["700.4"])
        }
    index = RuleIndex.from_kb(kb)
    [card] = [c for c in read_cards(FIXTURES / "atomic.json").cards if c.name == "Test Gryphon"]
    card.faces[0].text = "Soaring\nWhen this creature dies, draw a card."
    card.keywords = ["Soaring"]
    assert _links(card, index) == {"702.9": ("keyword", "Soaring"), "700.4": ("term", "Dies")}
    older = RuleIndex.from_kb(kb, "en-2030-01-01")
    assert "702.9" not in _links(card, older)


def test_ability_words_and_generic_keywords(
    by_name: dict[str, Card], rule_index: RuleIndex
) -> None:
    assert _links(by_name["Lotus Cobra"], rule_index)["207.2c"] == ("ability word", "landfall")
    assert "702.14" in _links(by_name["Lord of Atlantis"], rule_index)  # islandwalk: landwalk
    assert "702.29" in _links(by_name["Ash Barrens"], rule_index)  # basic landcycling
    swamp = _links(by_name["Swamp"], rule_index)
    assert swamp["205.3i"] == ("subtype", "Swamp") and swamp["205.4c"] == ("supertype", "Basic")


@pytest.mark.parametrize(
    ("layout", "numbers"),
    [
        ("battle", {"310"}),  # not 403 "Battlefield": a compound, not an ending
        ("omen", {"720"}),
        ("prototype", {"718", "702.160"}),
        ("case", {"719"}),
        ("station", {"721", "702.184"}),
        ("normal", set()),
        ("planar", set()),
    ],
)
def test_layout_names_of_newer_files(rule_index: RuleIndex, layout: str, numbers: set[str]) -> None:
    assert {link.number for link in rule_index.layout_links(layout)} == numbers


@pytest.mark.slow
def test_same_links_from_a_built_knowledge_base(
    tmp_path_factory: pytest.TempPathFactory, by_name: dict[str, Card], rule_index: RuleIndex
) -> None:
    """A build of the 2025-11-14 text, loaded from its store, gives the same links as the text
    read directly (the rules and glossary a build makes are what the index reads)."""
    from kb.build import build, load
    from tests.cards.conftest import CR_2025

    instance = tmp_path_factory.mktemp("cards") / "instance"
    build(instance, [CR_2025])
    stored = RuleIndex.from_kb(load(instance))
    names = [
        "Serra Angel",
        "Blood Artist",
        "Giant Killer // Chop Down",
        "Wrath of God",
        "Fire // Ice",
        "Lotus Cobra",
        "Delver of Secrets // Insectile Aberration",
    ]
    for name in names:
        assert rules_used(by_name[name], stored) == rules_used(by_name[name], rule_index)


def test_a_scryfall_card_and_inflections(rule_index: RuleIndex) -> None:
    cards = {c.name: c for c in read_cards(FIXTURES / "scryfall.json").cards}
    battle = _links(cards["Siege of Tests // Tested Ground"], rule_index)
    assert battle["310"] == ("type", "Battle") and battle["305"] == ("type", "Land")
    assert battle["205.3q"] == ("subtype", "Siege")  # "That battle type is Siege."
    assert _links(cards["Moon Watcher // Night Howler"], rule_index)["712"][0] == "layout"
    [card] = [c for c in cards.values() if c.name == "Lord of Tests"]
    card.faces[0].text = "Target creature was destroyed, sacrificed or tapped this turn."
    links = _links(card, rule_index)
    assert {"701.8", "701.21", "701.26"} <= links.keys()
    assert links["306"] == ("type", "Planeswalker")
