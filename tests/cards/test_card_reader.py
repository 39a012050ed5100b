"""The card reader on files written here: both formats in every compression, recognised by their
bytes whatever their name, and every kind of bad input reported with file and position."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.sources.card_model import Card
from kb.sources.cards import CardFileError, read_cards, sniff
from tests.cards.conftest import COMPRESSIONS, FIXTURES, compressed

FORMATS = {"atomic.json": "mtgjson-atomic", "scryfall.json": "scryfall-oracle"}


@pytest.mark.parametrize("kind", COMPRESSIONS)
@pytest.mark.parametrize("fixture", sorted(FORMATS))
def test_each_format_in_each_compression(tmp_path: Path, fixture: str, kind: str) -> None:
    data = (FIXTURES / fixture).read_bytes()
    path = compressed(data, kind, tmp_path, name="misleading.txt")
    assert sniff(path) == (FORMATS[fixture], kind)
    result = read_cards(path)
    assert (result.format, result.compression) == (FORMATS[fixture], kind)
    assert result.problems == []
    cards = {card.name: card for card in result.cards}
    gryphon = cards["Test Gryphon"]
    assert gryphon.faces[0].text.startswith("Flying\nWhen Test Gryphon dies")
    assert (gryphon.faces[0].power, gryphon.faces[0].toughness) == ("2", "3")
    assert gryphon.mana_value == 4.0 and gryphon.keywords == ["Flying"] and gryphon.rank == 120
    split = cards["Spark // Frost"]
    assert split.layout == "split"
    assert [f.name for f in split.faces] == ["Spark", "Frost"]
    assert split.faces[1].text == "Tap target creature."
    assert cards["Lord of Tests"].faces[0].loyalty == "5"
    assert cards["Lord of Tests"].faces[0].supertypes == ["Legendary"]


def test_atomic_details(tmp_path: Path) -> None:
    result = read_cards(FIXTURES / "atomic.json")
    assert result.meta == {"date": "2031-01-01", "version": "5.2.2+test"}
    cards = {card.name: card for card in result.cards}
    gryphon = cards["Test Gryphon"]
    assert gryphon.rulings[0].date == "2030-12-01"
    assert gryphon.oracle_id == "00000000-0000-4000-8000-000000000001"
    assert gryphon.printed_name("fr") == "Griffon d'essai"
    assert gryphon.faces[0].printed["ja"].type_line == "クリーチャー — グリフィン"
    assert "de" not in gryphon.faces[0].printed  # only French and Japanese are kept
    split = cards["Spark // Frost"]
    assert split.faces[0].mana_value == 1.0 and split.mana_value == 3.0
    assert split.printed_name("fr") == "Étincelle // Givre"
    assert split.names("fr") == ["Étincelle // Givre", "Étincelle", "Givre"]
    adventure = cards["Sky Knight // Cloud Ride"]
    assert adventure.faces[0].text == ""  # MTGJSON omits the text of a vanilla face
    assert adventure.faces[1].subtypes == ["Adventure"]
    dfc = cards["Moon Watcher // Night Howler"]
    assert [f.side for f in dfc.faces] == ["a", "b"]
    assert dfc.printed_name("ja") == "月見人 // 夜吠え"


def test_scryfall_details() -> None:
    cards = {card.name: card for card in read_cards(FIXTURES / "scryfall.json").cards}
    battle = cards["Siege of Tests // Tested Ground"]
    assert battle.faces[0].defense == "5"
    assert battle.faces[0].types == ["Battle"] and battle.faces[0].subtypes == ["Siege"]
    assert battle.faces[1].type_line == "Land"
    assert battle.rulings == [] and battle.printed_name("fr") is None  # not in the Oracle file
    assert cards["Lord of Tests"].faces[0].supertypes == ["Legendary"]
    assert cards["Lord of Tests"].faces[0].types == ["Planeswalker"]


def _atomic(**cards: object) -> bytes:
    return json.dumps({"meta": {"date": "2031-01-01"}, "data": cards}).encode()


def _face(name: str, text: object = "Flying") -> dict[str, object]:
    return {"name": name, "layout": "normal", "type": "Creature — Bird", "text": text}


def test_truncated_file_keeps_the_cards_before(tmp_path: Path) -> None:
    data = _atomic(**{f"Bird {i}": [_face(f"Bird {i}")] for i in range(50)})
    path = compressed(data[: len(data) * 2 // 3], "gzip", tmp_path)
    result = read_cards(path)
    assert 20 < len(result.cards) < 50
    [problem] = result.problems
    assert problem.path == str(path) and problem.offset is not None
    assert "truncated" in problem.message and result.cards[-1].name in problem.message
    assert problem.offset == len(data) * 2 // 3  # the premature end
    assert f"card #{len(result.cards)}" in str(problem)


def test_malformed_json_in_the_middle(tmp_path: Path) -> None:
    text = _atomic(**{f"Bird {i}": [_face(f"Bird {i}")] for i in range(5)}).decode()
    text = text.replace('"Bird 3": [{', '"Bird 3": [{,,', 1)
    path = tmp_path / "c.json"
    path.write_text(text)
    result = read_cards(path)
    assert [c.name for c in result.cards] == ["Bird 0", "Bird 1", "Bird 2"]
    [problem] = result.problems
    assert "malformed" in problem.message and "'Bird 2'" in problem.message
    comma = text.encode().index(b",,")
    assert problem.offset in (comma, comma + 1) and problem.index == 3  # yajl's caret: just after


@pytest.mark.parametrize(
    "payload",
    [b"", b"not json at all", b'{"foo": 1, "data": {}}', b'[{"object": "set"}]', b"\x00\x01\x02"],
)
def test_not_a_card_file_raises_naming_the_file(tmp_path: Path, payload: bytes) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(payload)
    with pytest.raises(CardFileError) as caught:
        read_cards(path)
    assert caught.value.path == str(path) and str(path) in str(caught.value)
    assert caught.value.offset == 0


def test_damaged_compressed_data(tmp_path: Path) -> None:
    cards = {f"Bird {i}": [_face(f"Bird {i}", f"Text {i * 7919 % 10007}.")] for i in range(5000)}
    data = compressed(_atomic(**cards), "xz", tmp_path).read_bytes()
    path = tmp_path / "broken.xz"
    path.write_bytes(data[: len(data) // 2] + b"\x00" * 64 + data[len(data) // 2 + 64 :])
    result = read_cards(path)
    assert 0 < len(result.cards) < 5000
    [problem] = result.problems
    assert problem.severity == "error" and "compressed data damaged" in problem.message
    assert problem.index == len(result.cards) and problem.offset is not None
    tiny = tmp_path / "tiny.xz"
    tiny.write_bytes(compressed(_atomic(Bird=[_face("Bird")]), "xz", tmp_path).read_bytes()[:-8])
    with pytest.raises(CardFileError, match=r"tiny\.xz, byte 0: error: cannot decompress"):
        read_cards(tiny)


def test_wrong_schema_entries_are_skipped_and_reported(tmp_path: Path) -> None:
    # an entry of AllPrintings' shape (a set, not a list of faces) among the cards
    data = _atomic(Bird=[_face("Bird")], LEA={"name": "Alpha", "cards": []}, Owl=[_face("Owl")])
    path = tmp_path / "c.json"
    path.write_bytes(data)
    result = read_cards(path)
    assert [c.name for c in result.cards] == ["Bird", "Owl"]
    [problem] = result.problems
    assert problem.index == 1 and problem.name == "LEA" and "list of face" in problem.message
    assert problem.offset == data.index(b'"LEA":')
    # a whole AllPrintings file is not a card file at all
    path.write_bytes(_atomic(LEA={"name": "Alpha", "cards": []}))
    with pytest.raises(CardFileError, match="neither MTGJSON AtomicCards"):
        read_cards(path)


def test_bad_cards_are_skipped_and_the_rest_read(tmp_path: Path) -> None:
    huge = "X" * 10_000_000
    data = _atomic(
        **{
            "Null Text": [_face("Null Text", None)],
            "Numbered": [_face("Numbered", 12)],
            "Marked Up": [_face("Marked Up", "Deal <b>3</b> damage.")],
            huge: [_face(huge)],
            "Good Bird": [_face("Good Bird")],
        }
    )
    lone = b'"Lone": [{"name": "Lone", "type": "Creature", "text": "a \\udc00 b"}], '
    data = data.replace(b'"Good Bird"', lone + b'"Good Bird"', 1)
    path = tmp_path / "c.json"
    path.write_bytes(data)
    result = read_cards(path)
    assert [c.name for c in result.cards] == ["Good Bird"]
    why = {p.index: p for p in result.problems}
    assert "'text' is null" in why[0].message and why[0].name == "Null Text"
    assert "'text' is int" in why[1].message
    assert "HTML" in why[2].message and "'<b>'" in why[2].message
    assert "10000000 characters" in why[3].message and len(str(why[3])) < 300
    assert "lone surrogate" in why[4].message and why[4].name == "Lone"
    assert all(p.path == str(path) for p in result.problems)
    # the offset is the card's key, where it is still in the last bytes read (a card the parser
    # finished only after reading the 10 MB name is not: no offset rather than a wrong one)
    assert why[0].offset == data.index(b'"Null Text":') and why[4].offset == data.index(b'"Lone":')
    assert why[2].offset in (None, data.index(b'"Marked Up":'))
    # the parser reads "?" for a lone surrogate: the reader finds its escape's exact offset
    offset = data.index(b"\\udc00")
    assert why[4].message.endswith(f"a lone surrogate escape at byte {offset}")


def test_scryfall_face_without_text_is_reported(tmp_path: Path) -> None:
    cards = json.loads((FIXTURES / "scryfall.json").read_text())
    del cards[1]["card_faces"][1]["oracle_text"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(cards))
    result = read_cards(path)
    assert "Spark // Frost" not in {c.name for c in result.cards} and len(result.cards) == 4
    [problem] = result.problems
    assert problem.index == 1 and problem.name == "Spark // Frost"
    assert "'Frost' has no 'oracle_text'" in problem.message


def test_html_in_a_translation_leaves_out_only_that_text(tmp_path: Path) -> None:
    face = _face("Bird")
    face["foreignData"] = [
        {"language": "French", "name": "Oiseau", "text": "Vol &lt;3", "type": "Créature"}
    ]
    path = tmp_path / "c.json"
    path.write_bytes(_atomic(Bird=[face]))
    result = read_cards(path)
    [card] = result.cards
    assert card.faces[0].printed["fr"].name == "Oiseau" and card.faces[0].printed["fr"].text == ""
    [problem] = result.problems
    assert problem.severity == "warning" and "fr text holds HTML" in problem.message


def test_scryfall_entry_of_another_kind_is_skipped(tmp_path: Path) -> None:
    cards = json.loads((FIXTURES / "scryfall.json").read_text())
    cards.insert(2, {"object": "set", "name": "Test Set"})
    cards.insert(3, ["not", "an", "object"])
    path = tmp_path / "s.json"
    path.write_text(json.dumps(cards))
    result = read_cards(path)
    assert len(result.cards) == 5
    assert [(p.index, p.name) for p in result.problems] == [(2, "Test Set"), (3, None)]
    assert "'object' is 'set', not 'card'" in result.problems[0].message
    assert result.problems[0].offset == json.dumps(cards).encode().index(b'"Test Set"')


def test_missing_file_or_folder(tmp_path: Path) -> None:
    for path in (tmp_path / "absent.json", tmp_path):
        with pytest.raises(CardFileError, match="cannot read") as caught:
            read_cards(path)
        assert caught.value.path == str(path)


def test_card_json_round_trip() -> None:
    for fixture in FORMATS:
        for card in read_cards(FIXTURES / fixture).cards:
            data = json.loads(json.dumps(card.to_json()))
            assert Card.from_json(data) == card


def test_byte_order_mark_and_whitespace_before_the_json(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf \n" + (FIXTURES / "scryfall.json").read_bytes()
    path = compressed(data, "gzip", tmp_path)
    result = read_cards(path)
    assert (result.format, len(result.cards), result.problems) == ("scryfall-oracle", 5, [])
