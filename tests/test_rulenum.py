"""Rule numbers: every spelling users and texts use, numeric order, ancestry and anchors."""

from __future__ import annotations

import pytest

from kb.text.rulenum import RuleNumber, RuleNumberError, parse, try_parse


@pytest.mark.parametrize(
    ("text", "expected", "display"),
    [
        ("1.", "1", "1."),
        ("9", "9", "9."),
        ("117.", "117", "117."),
        ("117.1.", "117.1", "117.1."),
        ("117.1a", "117.1a", "117.1a"),
        ("702.147b", "702.147b", "702.147b"),
        ("704.5z", "704.5z", "704.5z"),
        ("119.1d.", "119.1d", "119.1d"),  # a known typo: extra period
        ("606.5", "606.5", "606.5."),  # a known typo: missing period
        ("rule 117.3b", "117.3b", "117.3b"),
        ("Rules 117.3b", "117.3b", "117.3b"),
        ("r117.3b", "117.3b", "117.3b"),
        ("117.3 b", "117.3b", "117.3b"),
        ("１１７．３ｂ", "117.3b", "117.3b"),
        ("règle 116.5", "116.5", "116.5."),
        ("R1173a", "117.3a", "117.3a"),
        ("#R1173a", "117.3a", "117.3a"),
    ],
)
def test_parse_spellings(text: str, expected: str, display: str) -> None:
    number = parse(text)
    assert str(number) == expected
    assert number.display == display


@pytest.mark.parametrize("text", ["", "abc", "10.", "99", "1000.1", "1.1", "117a", "117.3ab", "1a"])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(RuleNumberError):
        parse(text)
    assert try_parse(text) is None


def test_numeric_order_not_string_order() -> None:
    numbers = ["702.19", "702.2", "702.1", "7", "702", "702.1a", "702.147", "703", "6", "100.1"]
    ordered = [str(n) for n in sorted(parse(x) for x in numbers)]
    assert ordered == [
        "100.1",
        "6",
        "7",
        "702",
        "702.1",
        "702.1a",
        "702.2",
        "702.19",
        "702.147",
        "703",
    ]


def test_letters_order_across_l_and_o() -> None:
    # The rules skip "l" and "o": 704.5k is followed by 704.5m, 704.5n, 704.5p.
    ordered = sorted(parse(f"704.5{c}") for c in "pnmk")
    assert [n.letter for n in ordered] == ["k", "m", "n", "p"]


def test_parent_chain() -> None:
    n = parse("117.3a")
    assert [str(a) for a in n.ancestors()] == ["117.3", "117", "1"]
    assert parse("1.").parent is None
    assert n.depth == 3 and parse("117").depth == 1 and parse("1").depth == 0


def test_prefix_is_not_parent() -> None:
    # 702.1 is not the parent of 702.19
    assert not parse("702.1").is_ancestor_of(parse("702.19"))
    assert parse("702.19").parent == RuleNumber(702)
    assert parse("702").is_ancestor_of(parse("702.19a"))


def test_anchor_round_trip() -> None:
    for text in ["117.3a", "702.147b", "117", "5"]:
        number = parse(text)
        assert "." not in number.anchor
        if not number.is_section:
            assert parse(number.anchor) == number
