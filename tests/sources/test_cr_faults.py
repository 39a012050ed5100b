"""The faults of the published archive, on small texts written here: every numbered line is kept
(leading spaces, numbers printed twice or misprinted, references wrapped onto a new line), and
the editions before July 2009 ("current as of") are read."""

from __future__ import annotations

from pathlib import Path

from kb.sources.cr_text import read_cr_text
from kb.sources.records import SourceDoc
from kb.sources.registry import read_source

HEAD = """Magic: The Gathering Comprehensive Rules

These rules are effective as of July 11, 2009.

Contents

1. Game Concepts
Glossary
Credits

"""
GLOSSARY = """
Glossary

Kicker
An ability. See rule 702.33.

Credits

Thanks.
"""


def _doc(rules: str, glossary: str = GLOSSARY, head: str = HEAD) -> SourceDoc:
    return read_cr_text(Path("mem.txt"), head + rules + glossary)


def _numbers(doc: SourceDoc) -> list[str]:
    return [r.number for r in doc.rules]


def test_rule_printed_with_a_leading_space_is_a_rule() -> None:
    doc = _doc(
        "5. Combat\n\n509. Declare Blockers\n\n509.1b Text b.\n\n"
        " 509.1c The defending player checks.\nExample: A creature blocks.\n\n509.1d Text d.\n"
    )
    assert _numbers(doc) == ["5", "509", "509.1b", "509.1c", "509.1d"]
    rule = doc.rules[3]
    assert rule.text == "The defending player checks." and rule.examples == ["A creature blocks."]
    assert "indented" in rule.flags
    (problem,) = doc.problems
    assert problem.line == 17 and "leading space" in problem.message


def test_indented_continuation_is_still_a_continuation() -> None:
    doc = _doc("1. Game Concepts\n\n100. General\n\n100.1. Text.\n     2 more words.\n")
    assert _numbers(doc) == ["1", "100", "100.1"]
    assert doc.rules[-1].text == "Text.\n2 more words."


def test_number_printed_twice_keeps_the_second_under_the_next_letter() -> None:
    doc = _doc(
        "7. Additional Rules\n\n702. Keyword Abilities\n\n702.30. Kicker\n\n"
        "702.30c Text c.\n\n702.30d First d.\n\n702.30d Second d.\nExample: Kicked.\n\n"
        "702.31. Flashback\n"
    )
    assert _numbers(doc) == ["7", "702", "702.30", "702.30c", "702.30d", "702.30e", "702.31"]
    second = doc.rules[5]
    assert second.text == "Second d." and second.examples == ["Kicked."]
    assert {"renumbered", "printed-as:702.30d"} <= set(second.flags)
    (problem,) = doc.problems
    assert problem.line == 21 and "702.30d" in problem.message and "702.30e" in problem.message


def test_space_inside_a_number() -> None:
    doc = _doc("7. Additional Rules\n\n702. Keywords\n\n702.37. Storm\n\n702. 37a Storm is.\n")
    assert _numbers(doc) == ["7", "702", "702.37", "702.37a"]
    assert doc.rules[-1].text == "Storm is." and "typo-number" in doc.rules[-1].flags


def test_misprinted_numbers_are_placed_where_they_stand() -> None:
    # 2005-2008: "605.2c" inside rule 609, "501.2" inside 510, "432.2b" after 423.2a, "306.b".
    doc = _doc(
        "4. Spells\n\n423. Drawing\n\n423.2. Text.\n\n423.2a Text a.\n\n432.2b Text b.\n\n"
        "423.3. Text 3.\n\n510. Status\n\n510.1. One.\n\n501.2. Two.\n\n501.3. Three.\n\n"
        "609. Teams\n\n609.2. Options.\n\n609.2b Text.\n\n605.2c Deploy.\n\n609.3. Seats.\n\n"
        "610. Combat\n\n610.3. Text.\n\n610.3a Text a.\n\n610.b Text b.\n\n610.1c Text c.\n"
    )
    assert _numbers(doc) == [
        "4",
        "423",
        "423.2",
        "423.2a",
        "423.2b",
        "423.3",
        "510",
        "510.1",
        "510.2",
        "510.3",
        "609",
        "609.2",
        "609.2b",
        "609.2c",
        "609.3",
        "610",
        "610.3",
        "610.3a",
        "610.3b",
        "610.3c",
    ]
    printed = {r.number: f for r in doc.rules for f in r.flags if f.startswith("printed-as:")}
    assert printed == {
        "423.2b": "printed-as:432.2b",
        "510.2": "printed-as:501.2",
        "510.3": "printed-as:501.3",
        "609.2c": "printed-as:605.2c",
        "610.3c": "printed-as:610.1c",
    }
    assert all(p.line for p in doc.problems) and len(doc.problems) == 6


def test_a_misprinted_subrule_is_fixed_by_its_letters() -> None:
    # June 2010: "505.54." then "505.5a": the first is 505.5.
    doc = _doc("5. Turn\n\n505. Main\n\n505.4. Four.\n\n505.54. Five.\n\n505.5a Five a.\n")
    assert _numbers(doc) == ["5", "505", "505.4", "505.5", "505.5a"]
    assert "printed-as:505.54" in doc.rules[3].flags


def test_reference_wrapped_onto_a_new_line_is_not_a_rule() -> None:
    doc = _doc(
        '1. Game\n\n200. General\n\n200.9c Text, see rule\n419.8 "Sources of Damage."\n\n'
        "200.10. Counters.\n\n201. Next\n\n201.1. Costs in rules 409.1b and\n409.1f-h.\n"
    )
    assert _numbers(doc) == ["1", "200", "200.9c", "200.10", "201", "201.1"]
    assert doc.rules[2].text == 'Text, see rule\n419.8 "Sources of Damage."'
    assert doc.problems == []


def test_pre_m10_edition_is_dated_by_current_as_of() -> None:
    head = HEAD.replace("effective as of July 11, 2009", "current as of June 1, 2004")
    doc = _doc("1. The Game\n\n100. General\n\n100.1. Text.\n", head=head)
    assert doc.date == "2004-06-01"


def test_one_line_glossary_paragraphs_continue_the_entry_before() -> None:
    glossary = (
        "\nGlossary\n\nExpansion Symbol\nThe symbols to date are:\n\nExpansions and Editions\n\n"
        "     Arabian Nights [symbol]\n\nFlying\nAn evasion ability.\n\nCredits\n\nThanks.\n"
    )
    doc = _doc("1. Game\n\n100. General\n\n100.1. Text.\n", glossary=glossary)
    assert [g.term for g in doc.glossary] == ["Expansion Symbol", "Flying"]
    assert "Arabian Nights" in doc.glossary[0].definition


def test_utf16_without_a_byte_order_mark_reads_as_a_rules_text(tmp_path: Path) -> None:
    text = HEAD + "1. Game\n\n100. General\n\n100.1. Text.\n\n100.2. More.\n\n100.3. End.\n"
    path = tmp_path / "rules.txt"
    path.write_bytes((text + GLOSSARY).replace("\n", "\r\n").encode("utf-16-le"))
    (doc,) = read_source(path)
    assert (doc.kind, doc.date) == ("cr", "2009-07-11")
    assert _numbers(doc) == ["1", "100", "100.1", "100.2", "100.3"]


def test_a_title_ending_in_rules_does_not_hide_the_next_rule() -> None:
    # "See rule" wraps a reference onto the next line; a title such as "Additional Rules" does not.
    doc = _doc("7. Additional Rules\n700. General\n\n700.1. Text, see rule\n701.2 for more.\n")
    assert _numbers(doc) == ["7", "700", "700.1"]
    assert doc.rules[-1].text == "Text, see rule\n701.2 for more."


def test_a_section_heading_printed_twice_is_one_section_and_reported() -> None:
    # Found by the arrangement fuzz: a repeated section heading has no "next free" number.
    text = "\n".join(
        [
            "These rules are effective as of May 1, 2024.",
            "Contents",
            "1. Game Concepts",
            "100. General",
            "Glossary",
            "Credits",
            "1. Game Concepts",
            "100. General",
            "100.1. These Magic rules apply to any Magic game.",
            "1. Game Concepts",
            "100.2. To play, each player needs their own deck.",
            "Glossary",
            "Credits",
        ]
    )
    doc = read_cr_text(Path("twice.txt"), text)
    assert [r.number for r in doc.rules] == ["1", "100", "100.1", "100.2"]
    assert any("section 1 printed again" in p.message and p.line == 10 for p in doc.problems)
