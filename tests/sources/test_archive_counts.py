"""Zero loss on every official English file: the reader's counts of rules, examples and glossary
entries equal an independent count of the raw text, for all of cr-en/, cr-en-archive/ and
cr-en-pre-m10/ (the damaged file excepted, which must be refused with its file and line).

The counter below is deliberately simple and shares no code with the reader: it decodes the bytes
itself and counts lines with plain patterns. A small subset runs in every test run; the whole
archive is marked ``slow``.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from kb.sources.cr_text import read_cr_text
from kb.sources.records import SourceDoc, SourceError
from kb.text.rulenum import parse
from tests.conftest import SHARED_RAW

FOLDERS = ("cr-en", "cr-en-archive", "cr-en-pre-m10")
DAMAGED = {"MagicCompRules-2013-02-01.txt"}
# One file of each kind of fault and encoding, read in every run (the rest is `slow`).
FAST = {
    "MagicCompRules-2003-10-01.txt",  # hard-wrapped lines, references wrapped onto a new line
    "MagicCompRules-2006-05-01.txt",  # rules 510.2-510.6 printed as 501.2-501.6
    "MagicCompRules-2009-09-04.txt",  # leading spaces, 702.30d printed twice
    "MagicCompRules-2013-04-29.txt",  # UTF-16 BE with a byte-order mark
}


def _files() -> list[Path]:
    out: list[Path] = []
    for folder in FOLDERS:
        path = SHARED_RAW / folder
        if path.is_dir():
            out.extend(sorted(path.glob("*.txt")))
    return out


FILES = _files()


def _params(fast: bool) -> list:
    return [
        pytest.param(p, id=f"{p.parent.name}/{p.stem.removeprefix('MagicCompRules-')}")
        for p in FILES
        if (p.name in FAST) == fast and p.name not in DAMAGED
    ]


@dataclass
class Counted:
    sections: int
    rules: int  # every numbered line with a three-digit number (headings such as "117." too)
    examples: int
    glossary_lines: list[int]  # first line of each glossary entry


def _decode(data: bytes) -> str:
    for bom, codec in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            return data[len(bom) :].decode(codec)
    if data[1::2].count(0) > len(data) // 4:
        return data.decode("utf-16-le")
    if data[0::2].count(0) > len(data) // 4:
        return data.decode("utf-16-be")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252")


def count_raw(path: Path) -> Counted:
    """Count a CR text from its bytes: the rules lie between the first "Credits" line (the end of
    the contents) and the last "Glossary" line, the glossary between that and the last "Credits".

    A rule is a line whose first non-blank characters are three digits and a period, unless the
    line before ends with "rule", "rules", "and", "or" or "through" (a hard-wrapped reference,
    2003-2004). An example is a line that starts with "Example:". A glossary entry is a paragraph
    of at least two lines whose first line is not indented.
    """
    lines = re.split(r"\r\n|\r|\n", _decode(path.read_bytes()))
    credits = [i for i, line in enumerate(lines) if line.strip() == "Credits"]
    glossary = max(i for i, line in enumerate(lines) if line.strip() == "Glossary")
    sections = rules = examples = 0
    for i in range(credits[0] + 1, glossary):
        line = lines[i]
        if re.match(r"[1-9]\. \S", line):
            sections += 1
        elif re.match(r"\s*\d{3}\.", line):
            wrapped = re.search(r"\b(rules?|and|or|through)$", lines[i - 1].rstrip())
            if not wrapped:
                rules += 1
        elif re.match(r"\s*Examples?:", line):
            examples += 1
    heads = []
    paragraph: list[int] = []
    for i in range(glossary + 1, credits[-1] + 1):
        if lines[i].strip() and i < credits[-1]:
            paragraph.append(i)
            continue
        if len(paragraph) >= 2 and not lines[paragraph[0]][:1].isspace():
            heads.append(paragraph[0] + 1)
        paragraph = []
    return Counted(sections, rules, examples, heads)


_docs: dict[Path, SourceDoc] = {}


def _read(path: Path) -> SourceDoc:
    if path not in _docs:
        _docs[path] = read_cr_text(path)
    return _docs[path]


def _check(path: Path) -> None:
    doc = _read(path)
    raw = count_raw(path)
    numbers = [parse(r.number) for r in doc.rules]
    assert sum(1 for n in numbers if n.is_section) == raw.sections
    assert sum(1 for n in numbers if not n.is_section) == raw.rules
    assert sum(len(r.examples) for r in doc.rules) == raw.examples
    assert [entry.line for entry in doc.glossary] == raw.glossary_lines
    # Every rule is addressable: one record per number.
    assert len({r.number for r in doc.rules}) == len(doc.rules)


@pytest.mark.parametrize("path", _params(fast=True))
def test_counts_equal_the_raw_text(path: Path) -> None:
    _check(path)


@pytest.mark.slow
@pytest.mark.parametrize("path", _params(fast=False))
def test_counts_equal_the_raw_text_whole_archive(path: Path) -> None:
    _check(path)


def test_every_file_of_the_archive_is_counted() -> None:
    if not FILES:
        pytest.skip(f"official CR texts not found under {SHARED_RAW}")
    assert len(FILES) == 6 + 71 + 25
    assert len(_params(fast=True)) + len(_params(fast=False)) == len(FILES) - len(DAMAGED)


def test_the_damaged_file_is_refused_with_file_and_line() -> None:
    path = SHARED_RAW / "cr-en-archive" / "MagicCompRules-2013-02-01.txt"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    with pytest.raises(SourceError) as info:
        read_cr_text(path)
    problem = info.value.problem
    assert problem.path == str(path) and problem.line is not None
    assert "truncated" in problem.message


def _archived(name: str) -> SourceDoc:
    path = SHARED_RAW / "cr-en-archive" / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return _read(path)


def test_702_30d_printed_twice_keeps_both() -> None:
    rules = {r.number: r for r in _archived("MagicCompRules-2009-09-04.txt").rules}
    assert rules["702.30d"].text.startswith("Objects with more than one kicker cost")
    second = rules["702.30e"]
    assert second.text.startswith("If part of a spell's ability has its effect only if")
    assert "printed-as:702.30d" in second.flags and second.line == 2611


def test_rules_printed_with_a_leading_space_are_rules() -> None:
    rules = {r.number: r for r in _archived("MagicCompRules-2009-07-11.txt").rules}
    for number, line in (("509.1c", 1452), ("605.3a", 1738), ("611.2", 1885), ("615.1d", 2060)):
        assert rules[number].line == line and "indented" in rules[number].flags
    assert rules["509.1c"].text.startswith("The defending player checks each creature")
    # "702. 37a" (a space inside the number) is 702.37a, not a second heading 702.
    assert rules["702.37a"].text.startswith("Storm is a triggered ability")
    assert rules["702"].title == "Keyword Abilities"
