"""One scenario written by anyone, run on the engine: what the web playground (``/<locale>/play``,
``POST /api/run``) shows.

:func:`run_scenario` takes the text of a ```` ```game ```` block (the fence lines themselves are
optional: a pasted example block runs as it is) and answers a plain, JSON-ready :class:`PlayResult`:
the syntax errors and failed expectations with their lines, and the trace, each event with the
rules it applied. It never raises for bad input: a text too long, with too many lines, with control
characters, or that the engine refuses is a problem on its line.

The text is bounded here (:data:`MAX_CHARS`, :data:`MAX_LINES`) and every number it holds by
:mod:`kb.engine.limits`; what a bounded text can still make the engine do (a long ``advance to``,
a thousand tokens on every line) is bounded in time and memory by the process that calls this one,
:mod:`kb.engine.playworker`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from kb.engine.cards import CardError, default_pool
from kb.engine.examples import _Run
from kb.engine.script import is_setup, parse_block

__all__ = ["MAX_CHARS", "MAX_EVENTS", "MAX_LINES", "PlayResult", "Problem", "run_scenario"]

#: The longest scenario (characters): the longest example is about 3,000.
MAX_CHARS = 20_000
#: The most lines a scenario may have.
MAX_LINES = 1_000
#: The most trace events returned (the rest is counted in ``events_left_out``).
MAX_EVENTS = 2_000
_FENCE = re.compile(r"^\s*```+\s*(?:game)?\s*$")
_WHERE = "scenario"
_FAILURE = re.compile(rf"^{_WHERE}:(\d+): (.*)$", re.S)


@dataclass(slots=True)
class Problem:
    """A syntax error or a failed expectation: its line (1-based; 0 for the whole scenario)."""

    line: int
    message: str


@dataclass(slots=True)
class PlayResult:
    """What a run answers: ``passed`` when it parsed, set up and met every ``?`` expectation;
    ``started`` when a game was set up (the trace then holds its events)."""

    passed: bool
    started: bool
    problems: list[Problem] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    events_left_out: int = 0
    lines: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data."""
        return asdict(self)


def _control(line: str) -> str | None:
    """The first control or unassigned character of a line (tabs are allowed), named."""
    for ch in line:
        if ch == "\t":
            continue
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs", "Cn") or ch in "\u2028\u2029\ufeff":
            return f"U+{ord(ch):04X}"
    return None


def numbered_lines(text: str) -> tuple[list[tuple[int, str]], list[Problem]]:
    """The scenario's lines, numbered from 1, without ```` ``` ```` fence lines; problems for a
    text too long and for lines holding control characters (each named with its code point)."""
    if len(text) > MAX_CHARS:
        return [], [
            Problem(0, f"the scenario is too long: {len(text):,} characters, at most {MAX_CHARS:,}")
        ]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw = text.split("\n")
    if len(raw) > MAX_LINES:
        return [], [Problem(0, f"the scenario has {len(raw):,} lines, at most {MAX_LINES:,}")]
    lines: list[tuple[int, str]] = []
    problems: list[Problem] = []
    for number, line in enumerate(raw, 1):
        if _FENCE.match(line):
            continue
        bad = _control(line)
        if bad is not None:
            problems.append(Problem(number, f"a control character ({bad}) in the line"))
            continue
        lines.append((number, line))
    return lines, problems


def _problem(failure: str) -> Problem:
    found = _FAILURE.match(failure)
    if found:
        return Problem(int(found.group(1)), found.group(2))
    return Problem(0, failure.removeprefix(f"{_WHERE}: "))


def run_scenario(text: str) -> PlayResult:
    """Parse and run one scenario; never raises for what the text says."""
    if not isinstance(text, str):
        return PlayResult(False, False, [Problem(0, "the scenario is a text")])
    lines, problems = numbered_lines(text)
    if problems:
        return PlayResult(False, False, problems, lines=len(lines))
    if not any(line.strip() and not line.lstrip().startswith("#") for _n, line in lines):
        return PlayResult(
            False,
            False,
            [Problem(0, "the scenario is empty: write 'players: Alice, Bob' and a first action")],
        )
    statements, syntax = parse_block(lines)
    if syntax:
        return PlayResult(
            False,
            False,
            [Problem(p.line, f"syntax error: {p.message}") for p in syntax],
            lines=len(lines),
        )
    first = next((st for st in statements if not is_setup(st)), None)
    if first is not None and not any(
        st.kind == "players" for st in statements if st.line < first.line
    ):  # the example runner would start a game of no players (a TypeError in the engine)
        return PlayResult(
            False,
            False,
            [
                Problem(
                    first.line, "no 'players:' line before this one: a game needs 2 to 4 players"
                )
            ],
            lines=len(lines),
        )
    try:
        pool = default_pool()
    except CardError as err:  # the embedded card pool itself is broken: say so, once
        return PlayResult(False, False, [Problem(0, str(err))], lines=len(lines))
    run = _Run(_WHERE, pool)
    run.run(statements)
    if run.game is None and not run.failures and not run.setup["players"]:
        run.failures.append(f"{_WHERE}:0: no 'players:' line: a game needs 2 to 4 players")
    events = [] if run.game is None else run.game.events
    shown = [_event(e.to_dict()) for e in events[:MAX_EVENTS]]
    return PlayResult(
        passed=not run.failures,
        started=run.game is not None,
        problems=[_problem(f) for f in run.failures],
        events=shown,
        events_left_out=max(0, len(events) - MAX_EVENTS),
        lines=len(lines),
    )


def _event(data: dict[str, Any]) -> dict[str, Any]:
    """The parts of an event the playground shows (its seq, where it happened, text, rules)."""
    return {
        "seq": data.get("seq", 0),
        "kind": str(data.get("kind", "")),
        "text": str(data.get("text", "")),
        "rules": [str(r) for r in data.get("rules", []) or []],
        "turn": data.get("turn", 0),
        "active": data.get("active"),
        "step": str(data.get("step", "")),
    }
