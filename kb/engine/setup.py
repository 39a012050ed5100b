"""Setting up a scenario: cards put into zones with the markers of what play can't reach quickly
(tapped, damage, counters, attached, face down, tokens; foretold, plotted or suspended cards in
exile; conspiracies in the command zone)."""

from __future__ import annotations

import re

from kb.engine.cards import unquote
from kb.engine.limits import MAX_NUMBER, bounded
from kb.engine.objects import GameObject, IllegalAction, ScenarioError
from kb.engine.state import GameState


class Setup(GameState):
    """``put``: the setup of a scenario's zones (the ``has:`` lines of the example language)."""

    def put(self, player: str, zone: str, names: list[str]) -> None:
        """Set up a zone from card names. A battlefield name may carry markers in parentheses,
        for what play cannot reach quickly: ``(tapped)``, ``(new)`` or ``(summoning sick)``,
        ``(face down)``, ``(token)``, ``(2 damage)``, ``(1 +1/+1 counter)``, ``(2 -1/-1 counters)``,
        ``(3 loyalty)``, ``(attached to Grizzly Bears)`` (a permanent listed before it); an exiled
        card may be ``(foretold)``, ``(plotted)`` or ``(suspended, 3 time counters)``."""
        owner = self.player(player)
        for raw in names:
            name, markers = _markers(raw)
            obj = self._new_object(self._card(name), owner.index)
            if zone == "battlefield":
                self._setup_permanent(obj, markers)
            elif zone == "exile":
                self._setup_exiled(obj, markers)
                owner.exile.append(obj)
            elif zone == "conspiracy":
                self._setup_conspiracy(obj, markers)
            elif markers:
                raise ScenarioError(
                    f"markers like ({', '.join(markers)}) apply to the battlefield, exile and "
                    "conspiracy zones only"
                )
            elif zone == "hand":
                owner.hand.append(obj)
            elif zone == "graveyard":
                owner.graveyard.append(obj)
            elif zone == "library":
                owner.library.insert(0, obj)  # listed top first
            elif zone == "companion":
                owner.companion = obj
            else:
                raise ScenarioError(f"unknown zone {zone!r}")

    def _setup_permanent(self, obj: GameObject, markers: list[str]) -> None:
        """A permanent of the setup, with its markers (see :meth:`put`)."""
        name = obj.card.name
        if not obj.card.is_permanent and "face down" not in markers:
            raise ScenarioError(f"{name} is not a permanent card; it can't be on the battlefield")
        if obj.card.loyalty is not None:
            obj.counters["loyalty"] = obj.card.loyalty
        for marker in markers:
            if marker == "tapped":
                obj.tapped = True
            elif marker in ("new", "summoning sick"):
                obj.sick = True
            elif marker == "face down":
                obj.face_down = True
            elif marker == "unlocked" and obj.card.door is not None:
                obj.unlocked = True
            elif marker == "token":
                obj.token = True
                self.tokens = True
            elif m := re.fullmatch(r"(\w+) damage", marker):
                obj.damage = _count(m.group(1), marker)
            elif m := re.fullmatch(r"(\w+) ([+-]1/[+-]1|loyalty|time) ?(?:counters?)?", marker):
                obj.counters[m.group(2)] = _count(m.group(1), marker)
            elif m := re.fullmatch(r"attached to (.+)", marker):
                host = self._setup_host(name, m.group(1).strip())
                if not (obj.card.has_sub("aura") or obj.card.has_sub("equipment")):
                    raise ScenarioError(f"{name} is not an Aura or Equipment: it can't be attached")
                obj.attached_to = host.id
                self.attachments = True
            elif m := re.fullmatch(r"copying (.+)", marker):
                self._setup_copy(obj, m.group(1).strip())
            else:
                raise ScenarioError(
                    f"unknown marker ({marker}) on {name!r} (known: tapped, new, summoning sick, "
                    "face down, token, N damage, N +1/+1 counters, N -1/-1 counters, N loyalty, "
                    "attached to <permanent>, copying <permanent>)"
                )
        if (obj.card.has_sub("aura") or obj.card.has_sub("equipment")) and not self.attachments:
            self.attachments = True
        self.anthems = self.anthems or obj.card.anthem is not None
        self.restrictions = self.restrictions or obj.card.no_attacks
        self.rooms = self.rooms or obj.card.door is not None
        self.legends = self.legends or obj.card.legendary
        self.layered = self.layered or bool(obj.card.statics or obj.card.replacements)
        self.battlefield.append(obj)

    def _setup_copy(self, obj: GameObject, ref: str) -> None:
        """``Clone (copying Grizzly Bears)``: it entered as a copy of a permanent listed before
        it (707.5), which its own "enter as a copy" ability allows."""
        name = obj.card.name
        spec = obj.card.copy_as
        if spec is None:
            raise ScenarioError(
                f"({name} copying …): {name} has no 'you may have this creature enter as a copy "
                "of …' ability"
            )
        try:
            found = self.permanents_named(unquote(ref))
        except IllegalAction:
            raise ScenarioError(
                f"({name} copying {unquote(ref)}): there is no {unquote(ref)} on the battlefield "
                "yet; list the permanent before its copy"
            ) from None
        original = next((o for o in found if self._copyable_kind(o, spec.kind)), None)  # type: ignore[attr-defined]
        if original is None:
            raise ScenarioError(f"({name} copying {unquote(ref)}): it copies any {spec.kind} only")
        self._become_copy(obj, obj.card, original, spec, obj.controller)  # type: ignore[attr-defined]

    def _setup_host(self, name: str, ref: str) -> GameObject:
        """The permanent an Aura or Equipment of the setup is attached to: one listed before it
        (a setup error naming both otherwise, never an uncaught refusal)."""
        try:
            return self.find_permanent(unquote(ref))
        except IllegalAction:
            raise ScenarioError(
                f"({name} attached to {unquote(ref)}): there is no {unquote(ref)} on the "
                "battlefield yet; list the permanent before what is attached to it"
            ) from None

    def _setup_exiled(self, obj: GameObject, markers: list[str]) -> None:
        """A card in exile: foretold, plotted or suspended (with time counters) in an earlier
        turn, or simply exiled."""
        for marker in markers:
            if marker in ("foretold", "plotted", "suspended"):
                obj.exiled_as = marker
                obj.exiled_turn = -1  # an earlier turn
                obj.face_down = marker == "foretold"
            elif m := re.fullmatch(r"(\w+) time ?(?:counters?)?", marker):
                obj.counters["time"] = _count(m.group(1), marker)
            else:
                raise ScenarioError(
                    f"unknown marker ({marker}) on {obj.card.name!r} in exile (known: foretold, "
                    "plotted, suspended, N time counters)"
                )

    def _setup_conspiracy(self, obj: GameObject, markers: list[str]) -> None:
        """A conspiracy in the command zone (905.4a): ``(face down, naming Lightning Bolt)``."""
        if not obj.card.is_a("conspiracy"):
            raise ScenarioError(f"{obj.card.name} is not a conspiracy card")
        for marker in markers:
            if marker == "face down":
                obj.face_down = True
            elif marker.startswith("naming "):
                obj.named = marker[len("naming ") :].title()
            else:
                raise ScenarioError(
                    f"unknown marker ({marker}) on the conspiracy {obj.card.name!r} (known: face "
                    "down, naming <card>)"
                )
        self.conspiracies.append(obj)


_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _count(word: str, marker: str) -> int:
    if word.isdigit():
        try:
            return bounded(word, "count", error=ScenarioError)
        except ScenarioError:
            shown = marker.replace(word, "N", 1)
            raise ScenarioError(
                f"the N of ({shown}) is too large: at most {MAX_NUMBER:,}"
            ) from None
    if word in _NUMBERS:
        return _NUMBERS[word]
    raise ScenarioError(f"not a number in ({marker})")


def _markers(raw: str) -> tuple[str, list[str]]:
    """``Grizzly Bears (tapped, 2 damage) (new)`` into the name and its markers."""
    name = raw.strip()
    markers: list[str] = []
    while name.endswith(")") and "(" in name:
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += name[i] == ")"
            depth -= name[i] == "("
            if depth == 0:
                break
        inner = name[i + 1 : -1]
        name = name[:i].strip()
        markers[:0] = [_marker_case(m) for m in _split_markers(inner) if m.strip()]
    return name, markers


def _split_markers(inner: str) -> list[str]:
    """The markers of one pair of parentheses, split at commas outside quotes (``attached to
    "Isamaru, Hound of Konda"``)."""
    parts, quoted, current = [], False, ""
    for ch in inner:
        if ch in '"“”':
            quoted = not quoted
        if ch == "," and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def _marker_case(marker: str) -> str:
    """A marker in lower case with single spaces; the name it attaches to keeps its case."""
    words = " ".join(marker.split())
    m = re.match(r"^(attached to )(.+)$", words, re.I)
    if m:  # the name as written, for messages
        return m.group(1).lower() + m.group(2)
    return words.lower()
