"""Numbered lines of a Comprehensive Rules text, and the repair of misprinted numbers.

The published texts print a rule number in the forms ``117.``, ``117.1.``, ``117.1a``, with faults:
a leading space (" 509.1c", July-October 2009), a space inside the number ("702. 37a"), no subrule
("306.b"), a number printed twice (702.30d, 2009) or out of place ("605.2c" inside rule 609, "501.2"
for 510.2, "432.2b" for 423.2b). The reader keeps every such rule: these helpers tell which lines
are rules and which number a misprinted rule stands for, from the rule before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.sources.records import Problem, RuleRecord
from kb.text.rulenum import LETTERS, RuleNumber, RuleNumberError, parse, try_parse

__all__ = [
    "Numbered",
    "free_number",
    "in_place",
    "intended",
    "numbered",
    "numbered_lines",
    "retro_fix",
]

# A numbered line: "1.", "117.", "117.1.", "117.1a", and the typos "119.1d." and "606.5".
_NUMBER = re.compile(r"(\d{1,3})\.(?:(\d{1,3})([a-z])?(\.)?)?")


@dataclass(slots=True)
class Numbered:
    """A line that starts a rule: its number key ("117.1a"), heading or not, the rest of the line,
    and the fault of its number as printed, if any."""

    key: str
    is_heading: bool
    rest: str
    typo: str | None
    # "306.b": a letter with no subrule number; the reader takes the subrule from the rule before.
    letter_only: bool = False


# Faults of the published numbers: "702. 37a" (a space inside the number), "306.b" (no subrule).
_SPLIT_NUMBER = re.compile(r"(\d{3})\.\s+(\d{1,3})([a-z]|\.)(?=\s)")
_LETTER_ONLY = re.compile(r"(\d{3})\.([a-z])(?=\s)")
# A line that continues a hard-wrapped reference ("... See rule" / "419.8 ..."), not a new rule.
_WRAPPED_REFERENCE = re.compile(r"\b(?:rules?|and|or|through)$")  # lower case: not a title


def numbered(line: str) -> Numbered | None:
    """Split a numbered line into its number key and the rest; None if the line is not one."""
    split = _SPLIT_NUMBER.match(line)
    if split:
        fixed = f"{split[1]}.{split[2]}{split[3]}"
        found = numbered(fixed + line[split.end() :])
        if found is not None:
            found.typo = f"space inside the number {line[: split.end()]!r}"
        return found
    letter_only = _LETTER_ONLY.match(line)
    if letter_only:
        return Numbered(
            f"{letter_only[1]}.{letter_only[2]}",
            False,
            line[letter_only.end() :].strip(),
            f"no subrule number in {line[: letter_only.end()]!r}",
            letter_only=True,
        )
    match = _NUMBER.match(line)
    if not match:
        return None
    major, minor, letter, dot = match.groups()
    rest = line[match.end() :]
    typo = None
    if rest and not rest[0].isspace():
        # "901.4.All": tolerated only when the number itself ended with its period.
        if not (minor and dot):
            return None
        typo = f"no space after the number {line[: match.end()]!r}"
    if minor is None and len(major) == 2:
        return None
    key = f"{major}.{minor}{letter or ''}" if minor else major
    try:
        number = parse(key)
    except RuleNumberError:
        return None
    if letter and dot:
        typo = f"extra period after the number {line[: match.end()]!r}"
    elif minor and not letter and not dot:
        typo = f"missing period after the number {line[: match.end()]!r}"
    return Numbered(str(number), number.minor is None, rest.strip(), typo)


def _next_letter(letter: str | None) -> str | None:
    if letter is None:
        return LETTERS[0]
    index = LETTERS.find(letter)
    return LETTERS[index + 1] if 0 <= index < len(LETTERS) - 1 else None


def _successor(previous: RuleNumber, like: RuleNumber) -> RuleNumber | None:
    """The number that follows ``previous`` at the depth of ``like`` (117.1b after 117.1a)."""
    if previous.is_section:
        return None
    if like.letter is not None:
        if previous.minor is None:
            return None
        letter = _next_letter(previous.letter)
        return RuleNumber(previous.major, previous.minor, letter) if letter else None
    if like.minor is not None:
        if previous.minor is None:
            return RuleNumber(previous.major, 1)
        return RuleNumber(previous.major, previous.minor + 1)
    return RuleNumber(previous.major + 1) if previous.major % 100 != 99 else None


def in_place(number: RuleNumber, previous: RuleNumber | None) -> bool:
    """True when a number can follow ``previous``: after it, under it or under one of its parents."""
    if previous is None:
        return True
    if not number > previous:
        return False
    parent = number.parent
    return parent is None or parent == previous or parent in previous.ancestors()


def intended(
    printed: RuleNumber, previous: RuleNumber | None, taken: set[str], printed_all: set[str]
) -> RuleNumber | None:
    """The number a misprinted rule stands for, from the rule before it: the published texts print
    "605.2c" for 609.2c, "432.2b" for 423.2b and 702.30d twice. The successor of the rule before
    is taken when it keeps the printed number's last part (letter, or subrule number) or when the
    printed number merely repeats the one before; else None (the number is kept as printed)."""
    if previous is None:
        return None
    candidate = _successor(previous, printed)
    if candidate is None or str(candidate) in taken or str(candidate) in printed_all:
        return None
    if printed == previous:
        return candidate
    if printed.letter is not None:
        return candidate if candidate.letter == printed.letter else None
    if printed.minor is not None:
        return candidate if candidate.minor == printed.minor else None
    return None


def free_number(printed: RuleNumber, taken: set[str], printed_all: set[str]) -> RuleNumber | None:
    """A number for a second rule printed under a number already used: the next free one at its
    depth (so that nothing printed is dropped); None for a section, which has no such number."""
    if printed.is_section:
        return None
    number = printed
    while True:
        step = _successor(number, number)
        if step is None:  # past "z" or "x99": give a subrule number past every printed one
            major = printed.major
            minor = 1 + max(
                (
                    n.minor or 0
                    for k in taken | printed_all
                    if (n := try_parse(k)) and n.major == major
                ),
                default=0,
            )
            return RuleNumber(major, minor)
        if str(step) not in taken and str(step) not in printed_all:
            return step
        number = step


def numbered_lines(lines: list[str], start: int, end: int) -> dict[int, Numbered]:
    """Index -> the numbered line there, for every line of the rules that starts a rule.

    A number may be printed after a leading space (" 509.1c", July-October 2009); a line that
    continues a hard-wrapped reference ("... See rule" / "103.4. If a player ...", 2003-2004) is
    text, not a rule.
    """
    out: dict[int, Numbered] = {}
    for index in range(start, end):
        line = lines[index]
        if line[:1].isspace():
            if not re.match(r"\s+\d{3}\.", line):
                continue
            line = line.lstrip()
        found = numbered(line)
        if found is None:
            continue
        before = lines[index - 1].rstrip() if index > start else ""
        if before and _WRAPPED_REFERENCE.search(before):
            continue
        out[index] = found
    return out


def retro_fix(
    rules: list[RuleRecord],
    number: RuleNumber,
    previous: RuleNumber | None,
    seen: dict[str, RuleRecord],
    printed_all: set[str],
    path: str,
    problems: list[Problem],
) -> bool:
    """A lettered subrule whose parent is missing may reveal that the rule before it was
    misprinted: "505.54." then "505.5a" (June 2010) is 505.5 then 505.5a. Renumber that rule."""
    parent = number.parent
    if (
        number.letter is None
        or previous is None
        or len(rules) < 2
        or parent is None
        or str(parent) in seen
        or str(parent) in printed_all - {str(previous)}
        or previous.letter is not None
        or previous.minor is None
        or parent.major != previous.major
    ):
        return False
    before = parse(rules[-2].number)
    if _successor(before, parent) != parent or not str(previous).startswith(str(parent)):
        return False
    record = rules[-1]
    del seen[record.number]
    problems.append(
        Problem(
            path,
            record.line,
            f"rule printed as {record.number} stands where {parent} belongs (its subrule "
            f"{number} follows); kept as {parent}",
        )
    )
    record.flags += ["renumbered", f"printed-as:{record.number}"]
    record.number = str(parent)
    seen[record.number] = record
    return True
