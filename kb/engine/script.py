"""The example language: one statement per line inside a ```` ```game ```` block.

:func:`parse_block` turns the lines into :class:`Statement` objects (setup, actions,
expectations) and reports every syntax error with its line; it never raises for bad input.
A ``#`` starts a comment. Every number is bounded (:mod:`kb.engine.limits`): ``library
99999999999999999`` is a syntax error on its line, not a hang. The statements:

Setup (before the first action)
    ``players: Alice, Bob`` (2 to 4, in turn order) · ``mode: strict | tournament`` ·
    ``option: one defending player`` (506.2a: the attacking player chooses one opponent as the
    defending player of each combat; otherwise each creature may attack any opponent, 802) ·
    ``option: planechase`` (the planar die, 116.2i, 901.9) ·
    ``turn: Alice, upkeep, turn 1`` (the one form: the active player, the step, and optionally
    the turn number, ``turn 2`` when omitted; turn 1 is the starting player's first turn,
    103.8a) · ``card <Name>: <definition>`` (see :mod:`kb.engine.cards`, and
    :mod:`kb.engine.layer_text` for static abilities such as ``static nonbasic lands are
    mountains`` and continuous, replacement and prevention effects; a name with a comma is
    quoted: ``card "Isamaru, Hound of Konda": legendary creature {W} 2/2``) ·
    ``Alice has: hand [A, B]; battlefield [C (tapped)]; graveyard [..]; library 5 | [..];
    exile [D (foretold)]; companion [E]; conspiracy [F (face down, naming Shock)]; life 7;
    pool {R}; poison 3; lands played 1``. Battlefield markers: ``(tapped)``, ``(new)`` or
    ``(summoning sick)``, ``(face down)``, ``(token)``, ``(2 damage)``, ``(1 +1/+1 counter)``,
    ``(2 -1/-1 counters)``, ``(3 loyalty)``, ``(attached to Grizzly Bears)`` (a permanent listed
    before it; ``(attached to "Isamaru, Hound of Konda")``), ``(unlocked)`` (a Room's door);
    several in one pair of parentheses, comma-separated.
    ``teams: Alice & Bob vs Carol & Dave`` (shared team turns, 117.6, 805, as Two-Headed Giant
    plays them; see :mod:`kb.engine.teams`).

Actions (``<player> <action>``)
    passes · casts X [from exile] [face down] [choosing mode N] [targeting A, B | A (2), B (1)]
    · activates X [ability N | +1 | -3] [targeting ..] · equips X to Y · taps X for {G} ·
    plays X · turns X face up · foretells X · plots X · suspends X · puts companion X into hand
    · discards X as a special action · attacks with A, B [attacking Bob | attacking <planeswalker>]
    · chooses X as the defending player · declares no attackers · blocks A with B · declares
    no blockers · discards X (cleanup) ·
    assigns X's combat damage: 2 to A, 4 to B (510.1c; consecutive lines make one announcement) ·
    announces for X: bottom A | top | graveyard A | discard A, B | sacrifice A |
    new targets A (608.2d; ``sacrifice A`` by the player who will sacrifice, whoever controls
    X, naming a creature they control, 701.21a) ·
    asks about the choices for X (MTR 4.2) · adds a group: casts A; casts B (MTR 4.2) ·
    interrupts the group at N (MTR 4.2) · pays {U} to stop X (116.2c) · ignores X until end
    of turn (116.2d) · rolls the planar die [(blank | chaos | planeswalk)] (116.2i, with
    ``option: planechase``) · turns the conspiracy X face up (116.2j) · unlocks <door> (116.2m) ·
    orders triggers A, B (two or more sources of the player's triggered abilities, before those
    abilities go on the stack; it lapses after the next turn) · targets A with <source> (players
    in the game, permanents or spells; a source of the player's triggered abilities) ·
    keeps the old|new X (a legendary card's name) · applies X first (616.1) · holds priority ·
    concedes · says "go" · interrupts the shortcut at <step> · ``advance to <player> <step>``.

Expectations (``? <what>: <value>``)
    priority, step, stack, resolved, life/hand/battlefield/graveyard/library/pool/exile/poison
    <player>, pt/counters/loyalty/attached <permanent>, tapped, untapped, lost, game, rejected
    (a rule or words of the refusal), log (words of the last action's trace).
    What the layers of 613 made of a permanent: ``? types X: Enchantment Creature`` (its type
    line, exactly), ``? controller X: Bob``, ``? color X: blue`` (or ``colorless``),
    ``? abilities X: none`` (or words of its abilities), and ``? layers X: <words>``: words of
    the explanation of its characteristics, one line per effect applied (``layer 7b (base
    power/toughness set): Humility sets its base power and toughness to 1/1; timestamp order
    …``), then counters and "until end of turn" changes (7c), then ``result: P/T``.

Replacement and prevention effects (614-616)
    ``Alice applies Rest in Peace first``: when several replacement or prevention effects
    would modify one event that affects Alice or what she controls, she applies that one first
    (616.1; announced before the event, used once, lapsing at the end of the turn). Without it
    the earliest effect applies first; a self-replacement effect always comes first (616.1a).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kb.engine.cards import CardError, parse_card_line
from kb.engine.limits import MAX_REPEAT, NumberTooLarge, bounded
from kb.engine.mana import ManaError, parse_mana
from kb.engine.script_actions import ActionParser, split_list, split_top
from kb.engine.steps import Step, parse_step

__all__ = ["Statement", "SyntaxProblem", "is_setup", "parse_block", "split_list"]

#: Expectations about one player (``? <what> <player>: <value>``).
PLAYER_KEYS = ("life", "hand", "battlefield", "graveyard", "library", "pool", "exile", "poison")
#: Expectations about one permanent (``? <what> <permanent>: <value>``).
PERMANENT_KEYS = (
    "pt",
    "counters",
    "loyalty",
    "attached",
    "layers",
    "types",
    "controller",
    "color",
    "abilities",
    "name",
)
#: Every expectation: about the game, a player or a permanent.
EXPECT_KEYS = (
    "priority",
    "step",
    "stack",
    "resolved",
    "lost",
    "game",
    "rejected",
    "log",
    "tapped",
    "untapped",
    *PLAYER_KEYS,
    *PERMANENT_KEYS,
)


@dataclass(slots=True)
class Statement:
    """One line of a scenario: ``kind`` is setup (players, mode, turn, has, card), action,
    advance or expect; ``data`` holds what was parsed."""

    line: int
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class SyntaxProblem:
    """A line the parser could not read."""

    line: int
    message: str


class _Parser(ActionParser):
    def __init__(self) -> None:
        self.players: list[str] = []
        self.statements: list[Statement] = []
        self.problems: list[SyntaxProblem] = []

    def fail(self, line: int, message: str) -> None:
        self.problems.append(SyntaxProblem(line, message))

    def player_prefix(self, text: str) -> tuple[str, str] | None:
        for name in sorted(self.players, key=len, reverse=True):
            if text.lower().startswith(name.lower() + " "):
                return name, text[len(name) + 1 :].strip()
        return None

    def line(self, lineno: int, raw: str) -> None:
        try:
            self._line(lineno, raw)
        except NumberTooLarge as err:  # a count above the engine's bounds (kb.engine.limits)
            self.fail(lineno, str(err))

    def _line(self, lineno: int, raw: str) -> None:
        text = _strip_comment(raw).strip()
        if not text:
            return
        low = text.lower()
        if low.startswith("?"):
            self.expectation(lineno, text[1:].strip())
            return
        if low.startswith("players:"):
            names = split_list(text.split(":", 1)[1])
            if not 2 <= len(names) <= 4:
                self.fail(lineno, f"'players:' lists 2 to 4 players, not {len(names)}")
                return
            self.players = names
            self.add(lineno, "players", text, players=names)
            return
        if low.startswith("teams:"):
            sides = [s.strip() for s in re.split(r"\s+vs\.?\s+", text.split(":", 1)[1].strip())]
            teams = [
                [n.strip() for n in re.split(r"\s*&\s*|\s+and\s+", s) if n.strip()] for s in sides
            ]
            if len(teams) != 2 or any(len(t) != 2 for t in teams):
                self.fail(
                    lineno,
                    "'teams: A & B vs C & D': shared team turns (117.6, 805) are modelled for two "
                    "teams of two (Two-Headed Giant)",
                )
                return
            self.add(lineno, "teams", text, teams=teams)
            return
        if low.startswith("option:"):
            option = " ".join(text.split(":", 1)[1].lower().split())
            if option not in ("one defending player", "planechase"):
                self.fail(
                    lineno, f"unknown option {option!r} (known: one defending player, planechase)"
                )
                return
            self.add(lineno, "option", text, option=option)
            return
        if low.startswith("mode:"):
            mode = text.split(":", 1)[1].strip().lower()
            if mode not in ("strict", "tournament"):
                self.fail(lineno, f"mode is 'strict' or 'tournament', not {mode!r}")
                return
            self.add(lineno, "mode", text, mode=mode)
            return
        if low.startswith("turn:"):
            self.turn_line(lineno, text)
            return
        if low.startswith("card "):
            try:
                card = parse_card_line(text[5:])
            except (CardError, ManaError) as err:
                self.fail(lineno, f"card definition: {err}")
                return
            self.add(lineno, "card", text, card=card)
            return
        if low.startswith("advance to "):
            rest = text[len("advance to ") :].strip()
            found = self.player_prefix(rest + " ")
            if not self.players:
                self.fail(lineno, "'players:' must come before the first action")
                return
            if not found:
                self.fail(lineno, f"'advance to <player> <step>': unknown player in {rest!r}")
                return
            who, step_text = found
            step = parse_step(step_text.removeprefix("'s ").strip())
            if step is None:
                self.fail(lineno, f"unknown step {step_text!r}")
                return
            self.add(lineno, "advance", text, player=who, step=step)
            return
        if not self.players:
            self.fail(lineno, "'players:' must come before anything else")
            return
        found = self.player_prefix(text)
        if not found:
            self.fail(
                lineno,
                f"cannot read {text!r}: a statement starts with a player "
                f"({', '.join(self.players)}), '?', 'card', 'turn:', 'mode:', 'option:' or 'advance to'",
            )
            return
        who, rest = found
        if rest.lower().startswith("has:") or rest.lower().startswith("has "):
            self.has_line(lineno, who, rest[4:].strip().lstrip(":").strip(), text)
            return
        self.action(lineno, who, rest, text)

    def add(self, lineno: int, kind: str, text: str, **data: Any) -> None:
        self.statements.append(Statement(lineno, kind, text, data))

    def turn_line(self, lineno: int, text: str) -> None:
        parts = [p.strip() for p in text.split(":", 1)[1].split(",")]
        if len(parts) < 2:
            self.fail(lineno, "'turn: <player>, <step>[, turn N]'")
            return
        who, step_text, *more = parts
        if who not in self.players and who.lower() not in (p.lower() for p in self.players):
            self.fail(
                lineno, f"unknown player {who!r} (players: {', '.join(self.players) or 'none yet'})"
            )
            return
        step = parse_step(step_text)
        if step is None:
            self.fail(lineno, f"unknown step {step_text!r}")
            return
        number = 2
        for extra in more:
            m = re.fullmatch(r"turn (\d+)", extra.strip().lower())
            if not m:
                self.fail(lineno, f"expected 'turn N' after the step, not {extra!r}")
                return
            number = bounded(m.group(1), "turn")
        self.add(lineno, "turn", text, player=who, step=step, number=number)

    def has_line(self, lineno: int, who: str, rest: str, text: str) -> None:
        zones: dict[str, Any] = {}
        for part in split_top(rest, ";"):
            m = re.match(
                r"^(hand|battlefield|graveyard|library|exile|companion|conspiracy|life|pool|"
                r"poison|lands played)\s*:?\s*(.*)$",
                part,
                re.I,
            )
            if not m:
                self.fail(
                    lineno,
                    f"unknown part {part!r} (hand, battlefield, graveyard, library, exile, "
                    "companion, conspiracy, life, pool, poison, lands played)",
                )
                return
            zone, value = m.group(1).lower(), m.group(2).strip()
            if zone in ("life", "poison", "lands played"):
                if not re.fullmatch(r"-?\d+" if zone == "life" else r"\d+", value):
                    self.fail(lineno, f"{zone} is a number, not {value!r}")
                    return
                zones[zone] = bounded(value, zone)
            elif zone == "pool":
                try:
                    zones["pool"] = parse_mana(value) if value not in ("{}", "") else {}
                except ManaError as err:
                    self.fail(lineno, f"pool: {err}")
                    return
            elif zone == "library" and re.fullmatch(r"\d+", value):
                # the unknown cards are made one by one: a bound, not a hang (kb.engine.limits)
                zones["library"] = bounded(value, "library", MAX_REPEAT)
            else:
                if not (value.startswith("[") and value.endswith("]")):
                    self.fail(lineno, f"{zone} is a list in brackets: {zone} [A, B]")
                    return
                zones[zone] = split_list(value)
        self.add(lineno, "has", text, player=who, zones=zones)

    def expectation(self, lineno: int, text: str) -> None:
        key, sep, value = text.partition(":")
        if not sep:
            self.fail(lineno, f"an expectation reads '? <what>: <value>', not {text!r}")
            return
        words = key.strip().split(None, 1)
        if not words or words[0].lower() not in EXPECT_KEYS:
            self.fail(
                lineno, f"unknown expectation {key.strip()!r} (known: {', '.join(EXPECT_KEYS)})"
            )
            return
        what = words[0].lower()
        subject = words[1].strip() if len(words) > 1 else None
        value = value.strip()
        needs_player = what in PLAYER_KEYS
        if what in PERMANENT_KEYS and not subject:
            self.fail(lineno, f"'? {what} <permanent>: …' names a permanent")
            return
        if needs_player and not subject:
            self.fail(lineno, f"'? {what} <player>: …' names a player")
            return
        if subject and needs_player and subject.lower() not in (p.lower() for p in self.players):
            self.fail(lineno, f"unknown player {subject!r}")
            return
        if what == "step":
            found = self.player_prefix(value + " ")
            step = parse_step(found[1]) if found else None
            if not found or step is None:
                self.fail(lineno, f"'? step: <player> <step>', not {value!r}")
                return
            self.add(lineno, "expect", text, what=what, player=found[0], step=step)
            return
        if what in ("life",) and not re.fullmatch(r"-?\d+", value):
            self.fail(lineno, f"'? life {subject}: N' expects a number, not {value!r}")
            return
        if what in ("poison", "loyalty") and not re.fullmatch(r"\d+", value):
            self.fail(lineno, f"'? {what} {subject}: N' expects a number, not {value!r}")
            return
        if what == "pt" and not re.fullmatch(r"-?\d+/-?\d+", value):
            self.fail(lineno, f"'? pt {subject}: P/T' expects power/toughness, not {value!r}")
            return
        if what == "library" and not re.fullmatch(r"\d+", value):
            self.fail(lineno, "'? library <player>: N' expects a number of cards")
            return
        if what == "pool":
            try:
                parse_mana(value) if value.lower() not in ("{}", "empty") else {}
            except ManaError as err:
                self.fail(lineno, f"pool: {err}")
                return
        if what == "game" and not (
            value.lower() == "draw" or value.lower().startswith("won by ") or value.lower() == "on"
        ):
            self.fail(lineno, f"'? game: draw | won by <player> | on', not {value!r}")
            return
        self.add(lineno, "expect", text, what=what, subject=subject, value=value)


def _strip_comment(line: str) -> str:
    # A '#' starts a comment unless it is inside quotes (a shortcut phrase) or brackets.
    quote = False
    for i, ch in enumerate(line):
        if ch in '"“”':
            quote = not quote
        elif ch == "#" and not quote:
            return line[:i]
    return line


def parse_block(lines: list[tuple[int, str]]) -> tuple[list[Statement], list[SyntaxProblem]]:
    """Parse the numbered lines of one ``game`` block."""
    parser = _Parser()
    for lineno, raw in lines:
        parser.line(lineno, raw)
    if not parser.players and not parser.problems:
        parser.fail(lines[0][0] if lines else 0, "a scenario starts with 'players: A, B'")
    return parser.statements, parser.problems


def is_setup(statement: Statement) -> bool:
    """Setup statements come before the game starts."""
    return statement.kind in ("players", "mode", "turn", "has", "card", "option", "teams")


STEP_BY_NAME = {s.value: s for s in Step}
