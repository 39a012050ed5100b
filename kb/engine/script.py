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
    before it; ``(attached to "Isamaru, Hound of Konda")``), ``(unlocked)`` (a Room's door),
    ``(copying Grizzly Bears)`` (a permanent with "enter as a copy", 707.5, copying one listed
    before it);
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
    new targets A | copy A | copy nothing | change A to B (608.2d; ``sacrifice A`` by the player
    who will sacrifice, whoever controls X, naming a creature they control, 701.21a; ``copy``
    and ``change``: see "Copies and text changes" below) ·
    asks about the choices for X (MTR 4.2) · adds a group: casts A; casts B (MTR 4.2) ·
    interrupts the group at N (MTR 4.2) · pays {U} to stop X (116.2c) · ignores X until end
    of turn (116.2d) · rolls the planar die [(blank | chaos | planeswalk)] (116.2i, with
    ``option: planechase``) · turns the conspiracy X face up (116.2j) · unlocks <door> (116.2m) ·
    orders triggers A, B (two or more sources of the player's triggered abilities, before those
    abilities go on the stack; it lapses after the next turn) · targets A with <source> (players
    in the game, permanents or spells; a source of the player's triggered abilities) ·
    keeps the old|new X (a legendary card's name) · applies X first (616.1) · prevents X's damage
    first (615.7: see below) · holds priority ·
    concedes · says "go" · interrupts the shortcut at <step> · ``advance to <player> <step>``.

Expectations (``? <what>: <value>``)
    priority, step, stack, resolved, life/hand/battlefield/graveyard/library/pool/exile/poison
    <player>, pt/counters/loyalty/attached <permanent>, tapped, untapped, lost, game, rejected
    (a rule or words of the refusal), log (words of the last action's trace).
    What the layers of 613 made of a permanent: ``? types X: Enchantment Creature`` (its type
    line, exactly), ``? controller X: Bob``, ``? color X: blue`` (or ``colorless``),
    ``? abilities X: none`` (or words of its abilities), ``? name X: Grizzly Bears`` (its
    name: a copy's is the copied one), and ``? layers X: <words>``: words of
    the explanation of its characteristics, one line per effect applied, in layer order from
    ``layer 1 (copy)`` and ``layer 3 (text)`` to ``layer 7d`` (``layer 7b (base
    power/toughness set): Humility sets its base power and toughness to 1/1; timestamp order
    …``), then counters and "until end of turn" changes (7c), then ``result: P/T``.

Replacement and prevention effects (614-616)
    ``Alice applies Rest in Peace first``: when several replacement or prevention effects
    would modify one event that affects Alice or what she controls, she applies that one first
    (616.1; announced before the event, used once, lapsing at the end of the turn). Without it
    the earliest effect applies first; a self-replacement effect always comes first (616.1a).
    ``Bob prevents Vampire Nighthawk's damage first``: when a shield that prevents the next N
    damage to Bob (or to a permanent he controls) would be met by damage from several sources
    at once (combat damage), it prevents that source's damage first (615.7; announced before,
    used once, lapsing at the end of the turn; refused when no such shield protects him).
    Without it, the damage of the source listed first on the battlefield is prevented first,
    and the trace says so.

Copies (707) and text changes (612)
    ``Alice announces for Clone: copy Grizzly Bears`` (before her Clone spell resolves): it
    enters as a copy of that creature (707.5); ``copy nothing``: it enters as itself. Without an
    announcement it enters as itself, and the trace says so. A copy has the copied name, so
    ``Grizzly Bears (Clone)`` is how the trace and ``? battlefield`` show it; ``Clone`` still
    names it in any statement (a name finds the permanents printed with it first), and ``?
    name Clone: Grizzly Bears`` checks its name. Setup: ``Bob has: battlefield [Grizzly Bears,
    Clone (copying Grizzly Bears)]`` (the original listed first). The copy takes the copiable
    values (707.2): the printed card, or what that permanent copied if it is itself a copy with
    its exceptions (707.3, 707.9b); never counters, damage, tapped status, or the effects of
    other layers (type, text, color, ability, power/toughness changes); they apply to the copy
    afterwards only if they apply to it in their own right. ``? layers X`` shows ``layer 1
    (copy): …``.
    ``Alice announces for Magical Hack: change swamp to island`` (before it resolves): the words
    of a text-changing effect that chooses them (``one basic land type word with another``:
    plains, island, swamp, mountain, forest; ``one color word with another``: white, blue,
    black, red, green). Without an announcement the effect changes nothing (traced). The text
    changes in layer 3 (``? layers X: layer 3 (text): …``); what is rewritten: landwalk
    and protection keywords, the words of static abilities (read again, so ``nonbasic lands are Mountains``
    becomes ``… are Islands`` before layer 4 applies it), and a land type on the type line with
    the mana ability that type gives (305.6). Names never change (612.2). A copy doesn't copy
    a text change (707.2); a text change on a copy changes the copied text.

Effects in the card language (``card <Name>: <type> <cost> [P/T]; <part>; <part>``)
    Angle brackets are to be filled in; square brackets are optional. A permanent's layered,
    replacement and prevention abilities start with ``static``; a wording not listed here is a
    syntax error naming it (never ignored). Case and a final period don't matter, and these
    Oracle wordings are read as the listed ones: ``base power and base toughness``, ``… in
    addition to its other land types``, ``if a card or token would be put into …``, ``…, exile
    that card instead``, a leading ``Until end of turn, …``, ``Gain control of target creature
    until end of turn. Untap that creature. It gains haste until end of turn.``, ``Goblin
    creatures`` for Goblins, and a copy ability naming its own card (``You may have Clone
    enter as a copy of …``).
    *Who is affected* (``<which>``): ``[all | other | each other] [non-aura | nonbasic] [<color>]
    <creatures | enchantments | lands | permanents | <creature type>s> [you control | your
    opponents control]``; colors: white, blue, black, red, green; creature types: those of
    :data:`kb.engine.layer_text.CREATURE_TYPES` (Goblin, Elf, Frog, Human, Soldier, Bear, …).
    *Static abilities*, with their layer:
    ``static <which> get +N/+N`` (7c) · ``static <which> have <keyword>[, <keyword> and
    <keyword>]`` (6) · ``static <which> get +N/+N and have <keywords>`` (6 and 7c) · ``static
    creatures you control get +N/+N`` (7c) · ``static enchanted creature gets +N/+N [and has
    <keywords>]`` and ``static equipped creature …`` (an Aura's or Equipment's bonus, 7c and 6)
    · ``static all <which> lose all abilities and have base power and toughness N/N`` (6, 7b:
    Humility) · ``static each <which> is a <creature | artifact | enchantment | land> in
    addition to its other types [and has base power and toughness each equal to its mana
    value]`` (4, 7b: Opalescence) · ``static all <which> are <creatures | artifacts |
    enchantments | lands> in addition to their other types`` (4) · ``static each land is a
    <land type> in addition to its other types`` or ``static <which lands> are <land type>s in
    addition to their other types`` (4: Urborg) · ``static <which lands> are <land type>s``
    (4, 305.7: Blood Moon) · ``static this creature's power and toughness are each equal to the
    number of <creatures you control | cards in your hand | lands you control>`` (7a, a
    characteristic-defining ability) · ``static creatures can't attack`` · ``you may have this
    creature enter as a copy of any <creature | artifact | enchantment | land | artifact or
    creature | permanent> on the battlefield[, except <exception>[ and <exception>]]`` (1:
    Clone; exceptions, 707.9: ``it's 7/7``, ``it has flying``, ``it's an artifact in addition
    to its other types``, ``it isn't legendary``). Keywords include the landwalks
    (``swampwalk``, ``islandwalk``, …, 702.14) and ``protection from <color>`` (702.16: no
    damage from sources of that color, no blocks by creatures of that color, not the target of
    spells of that color or abilities of sources of that color, no Aura or Equipment of that
    color stays attached).
    *Replacement and prevention abilities* (614-615): ``static if a card would be put into a
    graveyard from anywhere, exile it instead`` · ``static if this [creature | permanent |
    card] would be put into a graveyard from anywhere, <exile it | shuffle it into its owner's
    library> instead`` · ``static if <a | a nontoken | this> creature [an opponent controls |
    you control] would die, <exile it | return it to its owner's hand | shuffle it into its
    owner's library> instead`` · ``static this [creature | land | permanent | artifact |
    enchantment] enters tapped`` · ``static <creatures | permanents | lands> your opponents
    control enter tapped`` · ``static this [creature] enters with <N> +1/+1 counter[s]`` ·
    ``static each other creature you control enters with <an | N> additional +1/+1 counter[s]``
    · ``static if you would draw a card while your library has no cards in it, you win the game
    instead`` · ``static if you would draw a card, <effects> instead`` · ``static if a source
    would deal damage to you, prevent <N> of that damage``.
    *Effects of spells and abilities* that create continuous effects (611.2): ``target creature
    loses all abilities and becomes a <color> <creature type> with base power and toughness N/N
    [until end of turn]`` (4, 5, 6, 7b) · ``gain control of target creature [until end of turn
    | for as long as you control this [creature | permanent]][, untap it and it gains haste until
    end of turn]`` (2) · ``switch target creature's power and toughness [until end of turn]``
    (7d) · ``target creature <becomes | has base power and toughness> N/N until end of turn``
    (7b) · ``target creature loses all abilities until end of turn`` (6) · ``change the text of
    target permanent by replacing all instances of <one color word | one basic land type word>
    with another [until end of turn]`` (3; the words announced, see above) or ``… all instances
    of <word> with <word>`` (the words fixed). Without "until end of turn" an effect lasts
    indefinitely; an effect of a resolved spell applies only to the objects it affected as it
    was created (611.2c), one of a static ability to whatever matches it now (611.3a).
    *Replacement and prevention effects of spells and abilities*: ``prevent the next <N>
    damage that would be dealt to <any target | target creature | target player | you> this
    turn`` · ``prevent all combat damage that would be dealt this turn`` · ``regenerate
    <target creature | this creature>`` · ``if that creature would die this turn, exile it
    instead`` · ``if it would die this way, exile it instead`` (a self-replacement, 614.15).
    *Timestamps* (613.7): a permanent's is when it entered (setup: in the order listed, each
    ``has:`` line in turn), an Equipment's is renewed when it becomes attached (613.7e), an
    effect of a resolved spell's is when it was created. Nothing in the language puts two
    players' permanents onto the battlefield at once, so 613.7m's APNAP order never arises.
    *Not modelled* (each refused with a syntax error naming it): copying by a spell or ability
    (``becomes a copy of``), the text of a spell on the stack, protection from anything but a
    color, name-setting and text-box exchanges (612.5-612.8).
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
