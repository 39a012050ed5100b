"""The official Comprehensive Rules text reader, against the shared official editions (counted
independently from the raw text) and against small French, Japanese and broken fixtures."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.base.paths import CORPUS_DIR
from kb.sources.cr_text import looks_like_cr_text, read_cr_text
from kb.sources.decode import read_text
from kb.sources.records import SourceDoc, SourceError
from kb.text.rulenum import parse
from tests.conftest import shared_editions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cr"
EDITIONS = shared_editions()
EDITION_IDS = [p.stem.removeprefix("MagicCompRules-") for p in EDITIONS]

# Effective dates as printed in each file's header (the file named 2019-06-12 says June 14).
EFFECTIVE = {
    "2011-09-30": "2011-09-30",
    "2016-11-11": "2016-11-11",
    "2019-06-12": "2019-06-14",
    "2019-07-12": "2019-07-12",
    "2023-11-17": "2023-11-17",
    "2025-11-14": "2025-11-14",
}

_docs: dict[Path, SourceDoc] = {}


def _read(path: Path) -> SourceDoc:
    """Each edition is read once per session: the checks below share it."""
    if path not in _docs:
        _docs[path] = read_cr_text(path)
    return _docs[path]


def _edition(cr_en_dir: Path, stem: str) -> SourceDoc:
    path = cr_en_dir / f"MagicCompRules-{stem}.txt"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return _read(path)


def _rules(doc: SourceDoc) -> dict[str, object]:
    return {rule.number: rule for rule in doc.rules}


def _glossary(doc: SourceDoc) -> dict[str, object]:
    return {entry.term: entry for entry in doc.glossary}


@dataclass
class RawCounts:
    sections: int
    rules: int
    examples: int
    glossary_heads: list[int]  # line numbers of the first line of each glossary paragraph


def _raw_counts(path: Path) -> RawCounts:
    """Counts taken straight from the bytes with plain regexes: no call into the reader."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    credits = [i for i, line in enumerate(lines) if line.strip() == "Credits"]
    glossary = max(i for i, line in enumerate(lines) if line.strip() == "Glossary")
    body = lines[credits[0] + 1 : glossary]
    heads = []
    for i in range(glossary + 1, credits[-1]):
        if lines[i].strip() and not lines[i - 1].strip():
            heads.append(i + 1)
    return RawCounts(
        sections=sum(1 for line in body if re.match(r"[1-9]\. \S", line)),
        rules=sum(1 for line in body if re.match(r"\d{3}\.", line)),
        examples=sum(1 for line in body if line.startswith("Example:")),
        glossary_heads=heads,
    )


# ---------------------------------------------------------------------------------------------
# The shared official editions


@pytest.mark.slow
@pytest.mark.parametrize("path", EDITIONS, ids=EDITION_IDS)
def test_counts_match_the_raw_text(cr_en_dir: Path, path: Path) -> None:
    doc = _read(path)
    raw = _raw_counts(path)
    sections = [r for r in doc.rules if parse(r.number).is_section]
    # The `kb editions` convention: every numbered item with a three-digit number, headings such
    # as "117." included, the nine section headings not.
    three_digit = [r for r in doc.rules if re.fullmatch(r"\d{3}(\.\d{1,3}[a-z]?)?", r.number)]
    assert raw.sections == 9
    assert [s.number for s in sections] == [str(n) for n in range(1, 10)]
    assert len(three_digit) == raw.rules
    assert len(three_digit) + len(sections) == len(doc.rules)
    assert sum(len(r.examples) for r in doc.rules) == raw.examples
    assert [entry.line for entry in doc.glossary] == raw.glossary_heads


@pytest.mark.slow
@pytest.mark.parametrize("path", EDITIONS, ids=EDITION_IDS)
def test_edition_metadata(cr_en_dir: Path, path: Path) -> None:
    doc = _read(path)
    stem = path.stem.removeprefix("MagicCompRules-")
    assert doc.date == EFFECTIVE[stem]
    assert doc.numbering == doc.date
    assert (doc.lang, doc.kind, doc.format, doc.version) == ("en", "cr", "cr-text", None)
    assert doc.title == "Magic: The Gathering Comprehensive Rules"
    assert looks_like_cr_text(path.read_bytes().decode("utf-8-sig", errors="replace"))


@pytest.mark.slow
@pytest.mark.parametrize("path", EDITIONS, ids=EDITION_IDS)
def test_rules_are_well_formed(cr_en_dir: Path, path: Path) -> None:
    doc = _read(path)
    numbers = [parse(r.number) for r in doc.rules]
    assert numbers == sorted(numbers), "document order is numeric order in the official texts"
    assert len(set(numbers)) == len(numbers)
    for rule, number in zip(doc.rules, numbers, strict=True):
        assert str(number) == rule.number
        if number.minor is None:
            assert rule.title and rule.text == "", rule
        else:
            assert rule.title is None and rule.text, rule
        assert len(rule.examples) <= 4
        assert all(ex and not ex.startswith("Example") for ex in rule.examples)
        assert "\r" not in rule.text and not rule.text.startswith(" ")
    assert all(p.line and p.path == str(path) for p in doc.problems)
    assert all(p.severity == "warning" for p in doc.problems)


@pytest.mark.slow
@pytest.mark.parametrize("path", EDITIONS, ids=EDITION_IDS)
def test_glossary_entries(cr_en_dir: Path, path: Path) -> None:
    glossary = _glossary(_read(path))
    whole = glossary["Active Player, Nonactive Player Order"]
    assert whole.aliases == [] and "101.4" in whole.rule_refs
    assert glossary["APNAP Order"].see == ["Active Player, Nonactive Player Order"]
    assert glossary["Kicker"].aliases == ["Kicked"]
    assert re.fullmatch(r"702\.\d+", glossary["Kicker"].rule_refs[0])
    assert glossary["Banding"].aliases == ["Bands with Other"]
    assert glossary["Remove from the Game"].aliases == ["Removed", "Removed-from-the-Game Zone"]
    assert glossary["Remove from the Game"].obsolete
    assert glossary["Remove from the Game"].see == ["Exile"]
    bury = glossary["Bury"]
    assert bury.obsolete and "Obsolete" not in bury.term
    assert not glossary["Kicker"].obsolete
    assert glossary["Layer"].see == ["Dependency", "Timestamp Order"]
    assert glossary["Evasion Ability"].rule_refs == ["509.1b", "509.1c"]
    assert glossary["Opponent"].rule_refs == ["102.2", "102.3"]
    assert glossary["Zone"].rule_refs == ["4"]
    ability = glossary["Ability"].definition
    assert ability.startswith("1. Text on an object") and "\n2. An activated" in ability
    assert "Intervening “If” Clause" in glossary or 'Intervening "If" Clause' in glossary
    assert all(entry.definition for entry in glossary.values())


@pytest.mark.slow
def test_partner_quoted_aliases(cr_en_dir: Path) -> None:
    partner = _glossary(_edition(cr_en_dir, "2025-11-14"))["Partner"]
    assert partner.aliases == ["Partner—[text]", "Partner with [name]"]
    enter = _glossary(_edition(cr_en_dir, "2025-11-14"))["Enter"]
    assert enter.see == ["Enters the Battlefield"]


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["2019-07-12", "2023-11-17", "2025-11-14"])
def test_timing_and_priority_is_117_from_july_2019(cr_en_dir: Path, stem: str) -> None:
    rules = _rules(_edition(cr_en_dir, stem))
    assert rules["117"].title == "Timing and Priority"
    assert rules["116"].title == "Special Actions"
    assert rules["117.3b"].text == (
        "The active player receives priority after a spell or ability (other than a mana ability)"
        " resolves."
    )


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["2011-09-30", "2016-11-11", "2019-06-12"])
def test_timing_and_priority_is_116_before(cr_en_dir: Path, stem: str) -> None:
    rules = _rules(_edition(cr_en_dir, stem))
    assert rules["116"].title == "Timing and Priority"
    assert rules["116.3b"].text.startswith("The active player receives priority after a spell")
    assert rules["117.3b"].text.startswith("Paying life is done by subtracting")


@pytest.mark.slow
def test_late_numbers(cr_en_dir: Path) -> None:
    for stem in ("2023-11-17", "2025-11-14"):
        rules = _rules(_edition(cr_en_dir, stem))
        # A keyword's subrule heading is a subrule: its words are its text, as printed.
        assert rules["702.147"].text == "Decayed"
        assert "702.147a" in rules
    rules = _rules(_edition(cr_en_dir, "2025-11-14"))
    assert rules["704.5z"].text.startswith(
        "If a player controls a permanent with start your engines!"
    )
    assert "704.5z" not in _rules(_edition(cr_en_dir, "2011-09-30"))


@pytest.mark.slow
def test_example_after_a_blank_line_belongs_to_the_rule_before(cr_en_dir: Path) -> None:
    rules = _rules(_edition(cr_en_dir, "2025-11-14"))
    examples = rules["701.67b"].examples
    assert len(examples) == 1 and examples[0].startswith("Spirit Water Revival is a spell")


@pytest.mark.slow
@pytest.mark.parametrize("path", EDITIONS, ids=EDITION_IDS)
def test_continuation_lines_join_their_rule(cr_en_dir: Path, path: Path) -> None:
    rule = _rules(_read(path))["509.1b"]
    first, second = rule.text.split("\n")
    assert first.startswith("The defending player checks each creature")
    assert second.startswith("A restriction may be created by an evasion ability")
    assert rule.examples[0].startswith("An attacking creature with flying and shadow")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stem", "number", "why"),
    [
        ("2011-09-30", "121.1c", "extra period"),
        ("2019-07-12", "119.1d", "extra period"),
        ("2025-11-14", "119.1d", "extra period"),
        ("2023-11-17", "606.5", "missing period"),
        ("2025-11-14", "606.5", "missing period"),
        ("2023-11-17", "901.4", "no space"),
    ],
)
def test_known_typos_are_read_and_flagged(cr_en_dir: Path, stem: str, number: str, why: str):
    doc = _edition(cr_en_dir, stem)
    rule = _rules(doc)[number]
    assert rule.flags == ["typo-number"]
    assert rule.text and rule.text[0].isupper()
    assert [p.line for p in doc.problems if why in p.message and number in p.message] == [rule.line]


@pytest.mark.slow
def test_ascii_edition_is_made_readable(cr_en_dir: Path) -> None:
    doc = _edition(cr_en_dir, "2011-09-30")
    rules = _rules(doc)
    assert rules["101"].title == "The Magic Golden Rules"
    assert "Odyssey™ block" in rules["107.9"].text
    texts = [r.text for r in doc.rules] + [g.term + g.definition for g in doc.glossary]
    assert not any("_Magic" in t or "(TM)" in t or "(R)" in t for t in texts)
    assert "Nontraditional Magic Card" in _glossary(doc)


# ---------------------------------------------------------------------------------------------
# Fixtures written for these tests


@pytest.mark.parametrize(
    "name", ["fr-cr-excerpt.txt", "ja-cr-excerpt.txt", "en-utf16be-cr.txt", "en-duplicate-rule.txt"]
)
def test_fixtures_look_like_cr_texts(name: str) -> None:
    assert looks_like_cr_text(read_text(FIXTURES / name))


def test_french_excerpt() -> None:
    doc = read_cr_text(FIXTURES / "fr-cr-excerpt.txt")
    assert (doc.lang, doc.date, doc.version) == ("fr", "2025-02-01", None)
    assert doc.translates == "2025-02-01"
    rules = _rules(doc)
    assert list(rules) == ["1", "100", "100.1", "100.1a", "117", "117.1", "117.3b"]
    assert rules["117"].title == "Rythme et priorité"
    assert rules["117.1"].examples == ["Un joueur qui a la priorité lance un éphémère."]
    glossary = _glossary(doc)
    assert list(glossary) == ["Kicker", "Ordre Joueur actif, Joueur non actif", "Enterrer"]
    assert glossary["Kicker"].aliases == ["Kické"]
    assert glossary["Kicker"].rule_refs == ["702.33"]
    assert "« Kicker »" in glossary["Kicker"].definition  # NBSP became a space
    assert glossary["Ordre Joueur actif, Joueur non actif"].rule_refs == ["101.4", "805.6"]
    assert glossary["Enterrer"].obsolete and glossary["Enterrer"].see == ["Kicker"]
    assert doc.problems == []


def test_japanese_excerpt() -> None:
    doc = read_cr_text(FIXTURES / "ja-cr-excerpt.txt")
    assert (doc.lang, doc.date, doc.version) == ("ja", "2023-11-17", "20231117.0")
    assert doc.translates == "2023-11-17"
    rules = _rules(doc)
    assert rules["117"].title == "タイミングと優先権"
    assert rules["117.1"].examples == ["優先権を持つプレイヤーがインスタントを唱える。"]
    assert rules["117.3b"].text.startswith("アクティブ・プレイヤーは")
    glossary = _glossary(doc)
    assert list(glossary) == ["キッカー", "優先権", "埋葬"]
    assert glossary["キッカー"].rule_refs == ["702.33"]
    assert glossary["優先権"].rule_refs == ["117"]
    assert glossary["埋葬"].obsolete and glossary["埋葬"].see == ["破壊"]


def test_japanese_date_from_the_translation_version() -> None:
    path = FIXTURES / "ja-cr-excerpt.txt"
    text = path.read_bytes().decode("utf-8-sig").replace("2023年11月17日より有効です", "")
    text = text.replace("20231117.0", "20240209.1")
    doc = read_cr_text(path, text)
    assert (doc.date, doc.version) == ("2024-02-09", "20240209.1")


def test_utf16_be_with_bare_cr() -> None:
    path = FIXTURES / "en-utf16be-cr.txt"
    assert path.read_bytes().startswith(codecs.BOM_UTF16_BE) and b"\x00\r" in path.read_bytes()
    doc = read_cr_text(path)
    assert doc.date == "2025-02-07"
    assert [r.number for r in doc.rules] == [
        "1",
        "100",
        "100.1",
        "100.1a",
        "117",
        "117.1",
        "117.3b",
    ]
    assert _glossary(doc)["Kicker"].aliases == ["Kicked"]
    assert _glossary(doc)["Bury"].see == ["Destroy"]


def test_truncated_file_is_an_error() -> None:
    path = FIXTURES / "en-truncated.txt"
    assert looks_like_cr_text(path.read_text(encoding="utf-8"))
    with pytest.raises(SourceError) as info:
        read_cr_text(path)
    assert "truncated" in str(info.value) and str(path) in str(info.value)
    assert info.value.problem.line == 21  # where the unfinished rules start


def test_duplicate_rule_number_keeps_both() -> None:
    # Nothing printed is dropped: the second 117.1 stands where 117.2 belongs and is kept there,
    # with its example, flagged with the number it was printed under.
    doc = read_cr_text(FIXTURES / "en-duplicate-rule.txt")
    rules = _rules(doc)
    rule = rules["117.1"]
    assert rule.line == 27 and rule.text.startswith("Unless a spell")
    assert rule.examples == ["A player who holds priority casts an instant."]
    second = rules["117.2"]
    assert second.line == 30 and second.text.startswith("A second rule")
    assert second.examples == ["An example of the duplicate, dropped with it."]
    assert "renumbered" in second.flags and "printed-as:117.1" in second.flags
    (problem,) = doc.problems
    assert problem.line == 30 and "117.1" in problem.message and "117.2" in problem.message
    assert "line 27" in problem.message


# ---------------------------------------------------------------------------------------------
# Layout details, on small texts built here

HEAD = """Magic: The Gathering Comprehensive Rules

These rules are effective as of March 3, 2024.

Contents

1. Game Concepts
Glossary
Credits

"""
GLOSSARY = """
Glossary

Kicker, Kicked
An ability. See rule 702.33.

Credits

Thanks.
"""


def _doc(rules: str, glossary: str = GLOSSARY, head: str = HEAD) -> SourceDoc:
    return read_cr_text(Path("mem.txt"), head + rules + glossary)


def test_number_forms() -> None:
    doc = _doc(
        "1. Game Concepts\n\n100. General\n\n100.1. Text one.\n\n100.1a Lettered.\n\n"
        "100.1z Last letter.\n\n702.147. Decayed\n\n702.147a Three-digit middle number.\n"
    )
    assert [r.number for r in doc.rules] == [
        "1",
        "100",
        "100.1",
        "100.1a",
        "100.1z",
        "702.147",
        "702.147a",
    ]
    assert doc.problems == []


def test_unplaced_lines_are_reported() -> None:
    doc = _doc(
        "1. Game Concepts\n\n100. General\n\n100.1. Text.\n\nStray line after a blank.\n"
        "  Indented continuation.\n"
    )
    rule = _rules(doc)["100.1"]
    assert rule.text == "Text.\nStray line after a blank.\nIndented continuation."
    (problem,) = doc.problems
    assert problem.line == 17 and "100.1" in problem.message and "continuation" in problem.message


def test_lines_before_the_first_rule() -> None:
    doc = _doc(
        "Customer Service Information\n\nExample: Nothing to attach to.\n\n1. Game Concepts\n"
        "100.1. Text.\n"
    )
    # A contents entry is skipped; anything else is reported, not dropped silently.
    (problem,) = doc.problems
    assert problem.line == 13 and "before the first rule" in problem.message
    assert doc.rules[0].examples == []


def test_continuation_after_example_extends_the_example() -> None:
    doc = _doc("1. Game Concepts\n\n100.1. Text.\nExample: First part.\n  second part.\n")
    assert _rules(doc)["100.1"].examples == ["First part.\nsecond part."]


def test_ascii_marks_and_italics() -> None:
    doc = _doc("1. Game Concepts\n\n100.1. The _Magic_(TM) game and Odyssey(R) cards.\n")
    assert _rules(doc)["100.1"].text == "The Magic™ game and Odyssey® cards."


def test_doubled_italic_underscores_are_dropped_and_blanks_kept() -> None:
    # en-2010-10-01 100.6 and 112.6k print __Magic: The Gathering__ where others print _Magic_.
    doc = _doc(
        "1. Game Concepts\n\n100.1. Covered in the __Magic: The Gathering__ Tournament Rules.\n"
        "100.2. Most _Magic_ games. Blank lines, as in “Wolf in ________ Clothing,” are not words.\n"
    )
    rules = _rules(doc)
    assert rules["100.1"].text == "Covered in the Magic: The Gathering Tournament Rules."
    assert rules["100.2"].text == (
        "Most Magic games. Blank lines, as in “Wolf in ________ Clothing,” are not words."
    )


@pytest.mark.parametrize(
    ("sentence", "date"),
    [
        ("These rules are effective as of November 14, 2025.", "2025-11-14"),
        ("These rules are effective as of November 17, 2023", "2023-11-17"),
        ("Ces règles entrent en vigueur le 14 novembre 2025.", "2025-11-14"),
        ("Ces règles sont effectives à partir du 1er août 2025.", "2025-08-01"),
        ("このルールは2023年11月17日より有効です。", "2023-11-17"),
    ],
)
def test_effective_date_sentences(sentence: str, date: str) -> None:
    head = HEAD.replace("These rules are effective as of March 3, 2024.", sentence)
    assert _doc("1. Game Concepts\n\n100.1. Text.\n", head=head).date == date


def test_no_effective_date_is_an_error() -> None:
    head = HEAD.replace("These rules are effective as of March 3, 2024.", "Undated.")
    with pytest.raises(SourceError, match="no effective date"):
        _doc("1. Game Concepts\n\n100.1. Text.\n", head=head)


def test_glossary_without_final_credits_is_truncated() -> None:
    with pytest.raises(SourceError, match="truncated") as info:
        _doc("1. Game Concepts\n\n100.1. Text.\n", glossary="\nGlossary\n\nKicker\nAn ability.\n")
    assert info.value.problem.line is not None


def test_not_a_cr_text() -> None:
    prose = "Priority\n\nA wiki page about priority that mentions rule 117.3b.\n"
    assert not looks_like_cr_text(prose)
    with pytest.raises(SourceError, match="not a Comprehensive Rules text"):
        read_cr_text(Path("wiki.txt"), prose)


def test_seed_documents_do_not_look_like_cr_texts() -> None:
    seeds = sorted((CORPUS_DIR / "sources").glob("*.txt"))
    if not seeds:
        pytest.skip(f"no seed documents in {CORPUS_DIR / 'sources'}")
    for seed in seeds:
        text = seed.read_bytes().decode("utf-8-sig", errors="replace")
        assert not looks_like_cr_text(text), seed.name


def test_glossary_redirects_and_aliases() -> None:
    glossary = _glossary(
        _doc(
            "1. Game Concepts\n\n100.1. Text.\n",
            glossary=(
                "\nGlossary\n\n"
                "Active Player, Nonactive Player Order\nA system. See rules 101.4 and 805.6.\n\n"
                "APNAP Order\nSee Active Player, Nonactive Player Order.\n\n"
                "Layer\nSee rule 613. See also Dependency, Timestamp Order.\n\n"
                "Champion, Championed\nSee rules 205.1a–c and 903.6–903.11.\n\n"
                "Credits\n\nThanks.\n"
            ),
        )
    )
    assert list(glossary) == [
        "Active Player, Nonactive Player Order",
        "APNAP Order",
        "Layer",
        "Champion",
    ]
    assert glossary["APNAP Order"].see == ["Active Player, Nonactive Player Order"]
    assert glossary["Layer"].see == ["Dependency", "Timestamp Order"]
    assert glossary["Layer"].rule_refs == ["613"]
    assert glossary["Champion"].aliases == ["Championed"]
    # A range gives every number it covers, as kb.text.references reads it everywhere else.
    champion = ["205.1a", "205.1b", "205.1c", *(f"903.{n}" for n in range(6, 12))]
    assert glossary["Champion"].rule_refs == champion


@pytest.mark.parametrize(
    "line",
    [
        "Example: Text.",
        "Exemple : Text.",
        "Exemple\u00a0: Text.",
        "例：Text.",
        "例: Text.",
        "  Example: Text.",
    ],
)
def test_example_prefixes(line: str) -> None:
    doc = _doc(f"1. Game Concepts\n\n100.1. Rule.\n{line}\n")
    assert _rules(doc)["100.1"].examples == ["Text."]


def test_rules_without_a_contents_list() -> None:
    text = (
        "Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of May 5, 2024.\n\n"
        "This introduction ends with a period.\n\n1. Game Concepts\n\n100.1. Text.\n" + GLOSSARY
    )
    doc = read_cr_text(Path("mem.txt"), text)
    assert [r.number for r in doc.rules] == ["1", "100.1"]
    assert [g.term for g in doc.glossary] == ["Kicker"]
    assert doc.problems == []


def test_invalid_calendar_date_is_not_a_date() -> None:
    head = HEAD.replace("March 3, 2024", "February 30, 2024")
    with pytest.raises(SourceError, match="no effective date"):
        _doc("1. Game Concepts\n\n100.1. Text.\n", head=head)


_PIECES = [
    "",
    "Glossary",
    "Credits",
    "Crédits",
    "用語集",
    "1. Game Concepts",
    "100. General",
    "100.1. Text.",
    "100.1a Text.",
    "100.1a. Text.",
    "100.1 Text",
    "100.2.Text",
    "Example: Text.",
    "例：テキスト。",
    "   indented continuation",
    "Kicker, Kicked",
    '"Quoted", “Other,” «Third»',
    "See rules 1.2–3 and 999.999z.",
    "These rules are effective as of June 31, 2019.",
    "Ces règles entrent en vigueur le 1er mai 2024.",
    "総合ルール 20231117.0",
    "Random words (Obsolete)",
    "12. Not a section",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_arrangement_reads_or_fails_cleanly(pieces: list[str]) -> None:
    try:
        doc = read_cr_text(Path("fuzz.txt"), "\n".join(pieces))
    except SourceError as exc:
        assert exc.problem.path == "fuzz.txt" and exc.problem.severity == "error"
        return
    assert doc.date and doc.rules and all(p.path == "fuzz.txt" for p in doc.problems)
