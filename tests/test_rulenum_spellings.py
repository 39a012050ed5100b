"""Lookup reads the rule-number spellings the reference finder reads (found by the new-user
trial: ``kb rule "CR 117.3a"`` and ``/r/?number=ルール117.3a`` said "not a rule number")."""

from __future__ import annotations

import pytest

from kb.text import references as link
from kb.text.references import find_refs
from kb.text.rulenum import (
    RangeError,
    RuleNumberError,
    expand_range,
    parse,
    parse_number_query,
    parse_numbers,
    try_parse,
)

# (text, language the finder reads it in, the number)
SPELLINGS = [
    ("CR 117.3a", "en", "117.3a"),
    ("CR117.3a", "en", "117.3a"),
    ("rule 117.3a", "en", "117.3a"),
    ("Rules 117.3a", "en", "117.3a"),
    ("règle 117.3a", "fr", "117.3a"),
    ("ルール117.3a", "ja", "117.3a"),
    ("ルール 117.3a", "ja", "117.3a"),
    ("「ルール117.3b」", "ja", "117.3b"),
    ("ルール１１７．３ｂ", "ja", "117.3b"),
    ("ＣＲ １１７．３ａ", "en", "117.3a"),
    ("117.3a参照", "ja", "117.3a"),
    ("第117条", "ja", "117"),
    ("第117項", "ja", "117"),
    ("“rule 117.3b”", "en", "117.3b"),
    ("section 1", "en", "1"),
]


@pytest.mark.parametrize(("text", "lang", "number"), SPELLINGS)
def test_parse_reads_every_spelling_the_finder_reads(text, lang, number):
    assert [r.number for r in find_refs(text, lang)] == [number]  # the finder reads it ...
    assert str(parse(text)) == number  # ... and so does lookup
    assert parse_number_query(text) == [number]


RANGES = [
    ("117.3a-d", "en", ["117.3a", "117.3b", "117.3c", "117.3d"]),
    ("117.3a–117.3d", "en", ["117.3a", "117.3b", "117.3c", "117.3d"]),
    ("rules 601.2f–h", "en", ["601.2f", "601.2g", "601.2h"]),
    ("601.2f–h", "en", ["601.2f", "601.2g", "601.2h"]),
    ("509.1–3", "en", ["509.1", "509.2", "509.3"]),
    ("ルール117.3a～c", "ja", ["117.3a", "117.3b", "117.3c"]),
    ("règles 509.1 à 509.3", "fr", ["509.1", "509.2", "509.3"]),
]


@pytest.mark.parametrize(("text", "lang", "numbers"), RANGES)
def test_ranges_parse_as_the_finder_reads_them(text, lang, numbers):
    assert [r.number for r in find_refs(text, lang)] == numbers
    assert [str(n) for n in parse_numbers(text)] == numbers
    assert parse_number_query(text) == numbers


def test_a_dotted_range_is_read_too():
    assert parse_number_query("117.3a..117.3d") == ["117.3a", "117.3b", "117.3c", "117.3d"]


@pytest.mark.parametrize(
    "text", ["lightning bolt", "117 3", "ルール", "CR", "「」", "117.3d-a", "100 damage", ""]
)
def test_other_queries_are_not_numbers(text):
    assert parse_number_query(text) is None
    assert try_parse(text) is None


def test_a_bad_range_says_why():
    with pytest.raises(RangeError, match="not after the start"):
        parse_numbers("117.3d-a")
    with pytest.raises(RuleNumberError, match="not a rule number"):
        parse_numbers("ルール abc")


def test_the_finder_and_lookup_share_one_range_reader():
    assert link.expand_range is expand_range
    assert issubclass(RangeError, RuleNumberError)


def test_the_web_number_parser_reads_the_spellings():
    from kb.web.pages.common import parse_number

    assert str(parse_number("CR 117.3a")) == "117.3a"
    assert str(parse_number("「ルール117.3b」")) == "117.3b"
