"""The action lines of the example language (``<player> <action>``) and its list syntax.

:mod:`kb.engine.script` reads whole blocks; this module reads one player's action (``casts``,
``attacks with``, ``assigns …'s combat damage``, ``announces for``, …) into an
:class:`~kb.engine.objects.Action`, and the bracketed, comma-separated lists both use.
"""

from __future__ import annotations

import re
from typing import Any

from kb.engine.limits import bounded
from kb.engine.mana import ManaError, parse_mana
from kb.engine.objects import SHORTCUTS, Action
from kb.engine.steps import parse_step


def split_list(text: str) -> list[str]:
    """``[A, B (tapped)]`` or ``A, B`` into names; ``[]``/``empty``/``none`` into nothing. A name
    with a comma is quoted (``"Isamaru, Hound of Konda"``); the quotes are removed."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if text.lower() in ("", "empty", "none", "nothing"):
        return []
    out: list[str] = []
    depth = 0
    quoted = False
    current = ""
    for ch in text:
        if ch in '"“”':
            quoted = not quoted
        elif ch == "(" and not quoted:
            depth += 1
        elif ch == ")" and not quoted:
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return [_unquote_name(item) for item in out]


def _unquote_name(item: str) -> str:
    """``"A, B" (tapped)`` into ``A, B (tapped)`` and ``2 to "A, B"`` into ``2 to A, B``: quotes
    only group a name, wherever it stands in the item; inside a marker's parentheses they stay
    (``(attached to "A, B")``), for the marker's own commas."""
    out, depth = [], 0
    for ch in item:
        depth += ch == "("
        depth -= ch == ")"
        if ch in '"“”' and depth == 0:
            continue
        out.append(ch)
    return "".join(out).strip()


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets, parentheses and braces."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "[({"
        depth -= ch in "])}"
        if ch == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


class ActionParser:
    """The action grammar, mixed into the block parser (which provides ``add``, ``fail`` and
    ``statements``)."""

    statements: list[Any]

    def add(self, lineno: int, kind: str, text: str, **data: Any) -> None:  # pragma: no cover
        raise NotImplementedError

    def fail(self, line: int, message: str) -> None:  # pragma: no cover
        raise NotImplementedError

    def action(self, lineno: int, who: str, rest: str, text: str) -> None:
        low = rest.lower()

        def act(kind: str, **kw: Any) -> None:
            self.add(lineno, "action", text, action=Action(kind, who, **kw))

        if low in ("passes", "passes priority"):
            return act("pass")
        if low == "concedes":
            return act("concede")
        if low in ("holds priority", "holds priority:"):
            return act("hold")
        if low in ("declares no attackers", "does not attack"):
            return act("attack")
        if low == "declares no blockers":
            return act("block")
        m = re.match(r'^says\s+["“]?(.+?)["”]?$', rest, re.I)
        if m:
            phrase = m.group(1).strip().lower()
            if phrase not in SHORTCUTS:
                self.fail(lineno, f"unknown shortcut {phrase!r} (known: {', '.join(SHORTCUTS)})")
                return None
            return act("shortcut", phrase=phrase)
        m = re.match(
            r"^casts (.+?)( from exile)?(?: (face down))?(?: choosing mode (\d+))?"
            r"(?: targeting (.+))?$",
            rest,
            re.I,
        )
        if m:
            targets, division = _targets_with_division(m.group(5) or "")
            return act(
                "cast",
                card=m.group(1).strip(),
                face_down=bool(m.group(3)),
                targets=targets,
                mode=bounded(m.group(4), "mode") if m.group(4) else None,
                division=division,
                zone="exile" if m.group(2) else "hand",
            )
        m = re.match(
            r"^activates (.+?)(?: ability (\d+)| ([+-]?\d+))?(?: targeting (.+))?$", rest, re.I
        )
        if m:
            return act(
                "activate",
                card=m.group(1).strip(),
                ability=bounded(m.group(2), "ability") if m.group(2) else None,
                phrase=m.group(3) or "",
                targets=tuple(split_list(m.group(4) or "")),
            )
        m = re.match(r"^equips (.+?) to (.+)$", rest, re.I)
        if m:
            return act(
                "activate",
                card=m.group(1).strip(),
                phrase="equip",
                targets=(m.group(2).strip(),),
            )
        m = re.match(r"^(foretells|plots|suspends) (.+)$", rest, re.I)
        if m:
            kind = {"foretells": "foretell", "plots": "plot", "suspends": "suspend"}
            return act(kind[m.group(1).lower()], card=m.group(2).strip())
        m = re.match(r"^puts companion (.+) into (?:their |her |his )?hand$", rest, re.I)
        if m:
            return act("companion", card=m.group(1).strip())
        m = re.match(r"^discards (.+) as a special action$", rest, re.I)
        if m:
            return act("discard_special", card=m.group(1).strip())
        m = re.match(r"^chooses (.+) as the defending player$", rest, re.I)
        if m:
            return act("defender", targets=(m.group(1).strip(),))
        m = re.match(r"^keeps the (old|new) (.+)$", rest, re.I)
        if m:
            return act("keep", card=m.group(2).strip(), phrase=m.group(1).lower())
        m = re.match(r"^targets (.+) with (.+?)(?:'s)?(?: trigger| ability)?$", rest, re.I)
        if m:
            return act(
                "trigger_targets", card=m.group(2).strip(), targets=tuple(split_list(m.group(1)))
            )
        m = re.match(r"^interrupts the shortcut (?:at|in) (?:the )?(.+)$", rest, re.I)
        if m:
            if parse_step(m.group(1)) is None:
                self.fail(lineno, f"unknown step {m.group(1)!r}")
                return None
            return act("interrupt", phrase=m.group(1).strip())
        m = re.match(r"^taps (.+?) for ((?:\{[^}]*\})+)$", rest, re.I)
        if m:
            try:
                parse_mana(m.group(2))
            except ManaError as err:
                self.fail(lineno, str(err))
                return None
            return act("mana", card=m.group(1).strip(), mana=m.group(2))
        m = re.match(r"^plays (.+)$", rest, re.I)
        if m:
            return act("play_land", card=m.group(1).strip())
        m = re.match(r"^turns (?!the conspiracy )(.+) face up$", rest, re.I)
        if m:
            return act("turn_face_up", card=m.group(1).strip())
        m = re.match(r"^attacks with (.+)$", rest, re.I)
        if m:
            items = split_list(m.group(1))
            parsed = []
            for item in items:
                name, _, target = item.partition(" attacking ")
                parsed.append((name.strip(), target.strip() or None))
            if parsed and parsed[-1][1] and all(t is None for _, t in parsed[:-1]):
                parsed = [(n, parsed[-1][1]) for n, _ in parsed]
            return act("attack", attackers=tuple(parsed))
        m = re.match(r"^blocks (.+) with (.+)$", rest, re.I)
        if m:
            pair = (m.group(2).strip(), m.group(1).strip())
            prev = self.statements[-1] if self.statements else None
            if (
                prev
                and prev.kind == "action"
                and prev.data["action"].kind == "block"
                and prev.data["action"].player == who
                and prev.data["action"].blocks
            ):
                old: Action = prev.data["action"]
                prev.data["action"] = Action("block", who, blocks=(*old.blocks, pair))
                prev.text += "\n" + text
                return None
            return act("block", blocks=(pair,))
        m = re.match(
            r"^announces for (.+?)\s*:\s*(bottom|top|graveyard|discard|sacrifice|new targets|copy|"
            r"change)\b(.*)$",
            rest,
            re.I,
        )
        if m:
            word = m.group(2).lower()
            # "change swamp to island" is one choice, "copy Grizzly Bears" one name
            names = (m.group(3).strip(),) if word == "change" else tuple(split_list(m.group(3)))
            return act("announce", card=m.group(1).strip(), phrase=word, names=names)
        m = re.match(r"^adds a group\s*:\s*(.+)$", rest, re.I)
        if m:
            return self.group_line(lineno, who, text, m.group(1))
        m = re.match(r"^interrupts the group at (?:object )?(\d+)$", rest, re.I)
        if m:
            return act("interrupt_group", ability=bounded(m.group(1), "object"))
        m = re.match(r"^prevents (.+?)(?:'s|’s) damage first$", rest, re.I)
        if m:
            return act("shield_first", card=m.group(1).strip())
        m = re.match(r"^applies (.+?)(?:'s effect)? first$", rest, re.I)
        if m:
            return act("replace_first", card=m.group(1).strip())
        m = re.match(r"^pays ((?:\{[^}]*\})+) to stop (.+?)(?:'s effect)?$", rest, re.I)
        if m:
            return act("stop_effect", card=m.group(2).strip(), mana=m.group(1))
        m = re.match(r"^ignores (.+?)(?:'s effect)? until end of turn$", rest, re.I)
        if m:
            return act("ignore_effect", card=m.group(1).strip())
        m = re.match(r"^rolls the planar die(?: \((\w+)\))?$", rest, re.I)
        if m:
            return act("planar_die", phrase=(m.group(1) or "").lower())
        m = re.match(r"^turns the conspiracy (.+) face up$", rest, re.I)
        if m:
            return act("reveal_conspiracy", card=m.group(1).strip())
        m = re.match(r"^unlocks (?:the door )?(.+)$", rest, re.I)
        if m:
            return act("unlock", card=m.group(1).strip())
        m = re.match(r"^asks about the choices (?:for|of) (.+)$", rest, re.I)
        if m:
            return act("inquire", card=m.group(1).strip())
        m = re.match(r"^assigns (.+?)(?:'s|’s) (?:combat )?damage\s*:\s*(.+)$", rest, re.I)
        if m:
            return self.assign_line(lineno, who, text, m.group(1).strip(), m.group(2))
        m = re.match(r"^discards (.+)$", rest, re.I)
        if m:
            return act("discard", card=m.group(1).strip())
        m = re.match(r"^orders triggers (.+)$", rest, re.I)
        if m:
            return act("order_triggers", names=tuple(split_list(m.group(1))))
        self.fail(
            lineno,
            f"unknown action {rest!r} (passes, casts, activates, equips … to, taps … for, plays, "
            "turns … face up, foretells, plots, suspends, puts companion … into hand, attacks "
            "with, chooses … as the defending player, declares no attackers, blocks … with, declares "
            "no blockers, assigns …'s combat damage: N to …, announces for …: …, asks about the "
            "choices for …, adds a group: …; …, interrupts the group at N, pays {…} to stop …, "
            "ignores … until end of turn, rolls the planar die, "
            "turns the conspiracy … face up, unlocks …, discards, orders "
            "triggers, targets … with, keeps the old/new …, applies … first, prevents …'s damage "
            "first, concedes, holds "
            "priority, "
            'says "go", interrupts the shortcut at …)',
        )
        return None

    def group_line(self, lineno: int, who: str, text: str, spec: str) -> None:
        """``Alice adds a group: casts Shock targeting Bob; casts Shock targeting Bob`` (MTR 4.2)."""
        actions = []
        for part in split_top(spec, ";"):
            mark = len(self.statements)
            self.action(lineno, who, part, text)
            added = self.statements[mark:]
            del self.statements[mark:]
            if len(added) != 1:
                return  # the part's own syntax error is already reported
            actions.append(added[0].data["action"])
        self.add(lineno, "action", text, action=Action("group", who, group=tuple(actions)))

    def assign_line(self, lineno: int, who: str, text: str, attacker: str, spec: str) -> None:
        """``Alice assigns Craw Wurm's combat damage: 2 to Grizzly Bears, 4 to Hill Giant``
        (510.1c); consecutive lines of one player make one announcement."""
        parts = []
        for item in split_list(spec):
            m = re.fullmatch(r"(\d+) to (.+)", item.strip(), re.I)
            if not m:
                self.fail(
                    lineno,
                    f"'<N> to <creature, planeswalker or player>', not {item!r} (a name "
                    'with a comma is quoted: 2 to "Chandra, Torch of Defiance")',
                )
                return
            parts.append((m.group(2).strip(), bounded(m.group(1), "damage")))
        entry = (attacker, tuple(parts))
        prev = self.statements[-1] if self.statements else None
        if prev and prev.kind == "action" and prev.data["action"].kind == "assign":
            old: Action = prev.data["action"]
            if old.player == who:
                prev.data["action"] = Action("assign", who, assignment=(*old.assignment, entry))
                prev.text += "\n" + text
                return
        self.add(lineno, "action", text, action=Action("assign", who, assignment=(entry,)))


def _targets_with_division(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """``Grizzly Bears (2), Bob (1)``: targets and the damage each gets (601.2d)."""
    names = split_list(text)
    division = []
    out = []
    for name in names:
        m = re.fullmatch(r"(.+?)\s*\((\d+)\)", name)
        if m:
            out.append(m.group(1).strip())
            division.append(bounded(m.group(2), "damage"))
        else:
            out.append(name)
    if division and len(division) != len(out):
        division = []
    return tuple(out), tuple(division)
