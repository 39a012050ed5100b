"""Seeded fuzzing of the playground: scenarios built from every statement of the example
language with every kind of bad argument, and request bodies of every bad shape.

Shared by tests/web/test_play_fuzz.py (a few hundred cases in the suite) and
tests/bench/bench_play_fuzz.py (10,000, run by hand).
"""

from __future__ import annotations

import json
import random
from typing import Any

#: Statement templates; ``{x}`` is where a bad (or good) argument goes.
STATEMENTS = [
    "players: {x}",
    "players: Alice, {x}",
    "mode: {x}",
    "option: {x}",
    "turn: {x}",
    "turn: Alice, {x}, turn {x}",
    "card {x}: creature {{G}} 2/2",
    "card Bear: {x}",
    "card Bolt: instant {{R}} deal {x} damage to any target",
    "Alice has: hand [{x}]",
    "Alice has: battlefield [{x} ({x})]",
    "Alice has: library {x}",
    "Alice has: life {x}; poison {x}; pool {x}",
    "Alice has: graveyard [{x}]; exile [{x}]; companion [{x}]",
    "Bob has: battlefield [Grizzly Bears ({x} damage), Forest (tapped)]",
    "teams: {x}",
    "Alice passes",
    "Alice casts {x}",
    "Alice casts Lightning Bolt targeting {x}",
    "Alice casts Shock choosing mode {x} targeting Bob ({x})",
    "Alice activates {x} ability {x}",
    "Alice taps {x} for {x}",
    "Alice plays {x}",
    "Alice attacks with {x}",
    "Bob blocks {x} with {x}",
    "Alice assigns {x}'s combat damage: {x} to {x}",
    "Alice announces for {x}: {x}",
    "Alice orders triggers {x}",
    "Alice targets {x} with {x}",
    "Alice interrupts the group at {x}",
    "Alice pays {x} to stop {x}",
    "Alice rolls the planar die ({x})",
    "Alice discards {x}",
    "Alice keeps the {x} {x}",
    "Alice applies {x} first",
    "Alice concedes",
    'Alice says "{x}"',
    "advance to {x}",
    "advance to Bob {x}",
    "? {x}: {x}",
    "? life {x}: {x}",
    "? stack: {x}",
    "? layers {x}: {x}",
    "? pt {x}: {x}",
    "{x}",
]
GOOD_START = (
    "players: Alice, Bob\nAlice has: hand [Lightning Bolt, Shock]; battlefield [Mountain]\n"
)


def bad_argument(rng: random.Random) -> str:
    """One argument of one of the kinds that break parsers."""
    kind = rng.randrange(16)
    if kind == 0:
        return str(rng.choice([10**50, -(10**30), 2**63, 2**31, -1, 0, 1_000_001, 999_999]))
    if kind == 1:
        return "9" * rng.choice([20, 400, 4300, 5000])
    if kind == 2:
        depth = rng.choice([10, 100, 1000])
        return "[" * depth + "x" + "]" * depth
    if kind == 3:
        return "(" * rng.choice([50, 500]) + "tapped"
    if kind == 4:
        return "".join(
            chr(rng.choice([0, 1, 7, 8, 11, 12, 27, 127, 0x85, 0x2028, 0xFEFF, 0xFFFF]))
            for _ in range(rng.randint(1, 5))
        )
    if kind == 5:
        return "x" * rng.choice([1000, 10_000])
    if kind == 6:
        return "{" * rng.randint(1, 300) + "R" + "}" * rng.randint(0, 300)
    if kind == 7:
        return rng.choice(["", " ", ",", ";", ":", "[]", "()", '""', "#", "?", "&", "vs", "&&"])
    if kind == 8:
        return rng.choice(["²", "٣", "１２", "Ⅻ", "1e9", "0x10", "nan", "inf", "-0", "+5", "1.5"])
    if kind == 9:
        return ", ".join(
            rng.choice(["Alice", "Bob", "Carol", "Dave", "Eve"])
            for _ in range(rng.choice([0, 1, 5, 50]))
        )
    if kind == 10:
        return rng.choice(
            [
                "upkeep",
                "draw",
                "cleanup",
                "untap",
                "end",
                "combat damage",
                "🙂",
                "precombat main",
                "declare blockers",
                "turn 0",
                "turn -3",
            ]
        )
    if kind == 11:
        return rng.choice(
            [
                "Lightning Bolt",
                "Shock",
                "Mountain",
                "Grizzly Bears",
                "Forest",
                "Isamaru, Hound of Konda",
                '"unterminated',
                "Alice",
                "Bob",
            ]
        )
    if kind == 12:
        return "\\" * rng.randint(1, 50) + "%s%(x)s{}{0}"
    if kind == 13:
        return "<script>alert(1)</script>&amp;"
    if kind == 14:
        return rng.choice(["\t", "\r", "\n", "\r\n", "\n```\n", "```game"])
    return "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(1, 30)))


def scenario(rng: random.Random) -> str:
    """A scenario: a plausible start (or not) and a few statements with bad arguments."""
    lines = [GOOD_START] if rng.random() < 0.7 else []
    for _ in range(rng.randint(1, 12)):
        template = rng.choice(STATEMENTS)
        lines.append(
            template.replace("{x}", "\0")
            .replace("\0", "{}")
            .format(*(bad_argument(rng) for _ in range(template.count("{x}"))))
        )
    text = "\n".join(lines)
    if rng.random() < 0.02:
        text = text * rng.choice([10, 100])
    return text


def body(rng: random.Random) -> tuple[bytes, str]:
    """A request body for ``POST /api/run`` and its content type: mostly a scenario, sometimes a
    body of a bad shape (not JSON, not an object, wrong types, deep, a megabyte, bad UTF-8)."""
    kind = rng.randrange(12)
    if kind < 7:
        payload: Any = {"scenario": scenario(rng), "locale": rng.choice(["en", "fr", "ja"])}
    elif kind == 7:
        payload = {
            "scenario": rng.choice([None, 1, 1.5, [], {}, True, ["a"], {"a": 1}]),
            "locale": rng.choice(["en", None, 3, "de", "", "x" * 1000, ["fr"]]),
        }
    elif kind == 8:
        depth = rng.choice([40, 1000, 100_000])
        return ("[" * depth + "]" * depth).encode(), "application/json"
    elif kind == 9:
        size = rng.choice([900_000, 1_100_000, 3_000_000])
        return json.dumps({"scenario": "a" * size}).encode(), "application/json"
    elif kind == 10:
        raw = rng.choice(
            [
                b"\xff\xfe\x00",
                b'{"scenario": "\xc3\x28"}',
                b"{",
                b"null",
                b"[]",
                b'"text"',
                b'{"scenario": "\\ud800"}',
                b"1e999999",
                b"",
            ]
        )
        return raw, "application/json"
    else:
        form = rng.choice(
            [
                b"scenario=players%3A+Alice%2C+Bob%0AAlice+passes",
                b"scenario=%00%ff",
                b"locale=fr",
                b"scenario=" + b"x" * 30_000,
                b"%%%%",
            ]
        )
        return form, "application/x-www-form-urlencoded"
    return json.dumps(payload).encode(), "application/json"
