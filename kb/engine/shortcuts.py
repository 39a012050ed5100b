"""Tournament shortcuts (MTR 4.2): "go", "combat?", holding priority, and where they stop.

"Go" / "your turn" and passing with an empty stack in a main phase are the MTR's own shortcuts;
"combat?", "attacks?" and "no attacks" are engine extensions modelled on them (the MTR of
2025-11-10 doesn't define these phrases), and the trace says so.

The bullets of MTR 4.2 (2025-11-10), in order, and where they are modelled:
1. passing in the first main phase: the other players act in beginning of combat, then the active
   player receives priority there (:mod:`~kb.engine.priority`);
2. passing in the second main phase, or "go": the other players act in the end step (here);
3. adding an object to the stack passes priority unless the player holds it (priority);
4. a group of objects added without retaining priority: each resolves before the next, and
   another player may interrupt it at an object (:class:`GroupShortcut`, ``group``);
5. choices announced early for resolution are kept unless an opponent responds; inquiring about
   them passes priority (:mod:`~kb.engine.choices`);
6. a cost of 0 is paid: modelled (a {0} cost needs no mana);
7. a spell targeting "the spell" targets the legal one closest to the top (casting);
8. creatures attack a player, not a planeswalker, unless named (combat);
9. the mana ability that most specifically applies is used (mana_abilities);
10. scry/surveil not done: the cards stay in the same order (choices);
11. Two-Headed Giant attacks: not modelled (no team variants, 117.6).
Interrupting a shortcut at a point in the middle rewinds to that point (``interrupt``).
"""

from __future__ import annotations

import copy

from kb.engine.objects import SHORTCUTS, Action, IllegalAction, Shortcut, cite
from kb.engine.state import GameState
from kb.engine.steps import Step, parse_step


class Shortcuts(GameState):
    """Tournament shortcuts (MTR 4.2): "go", "combat?", holding priority, and where they stop.

    "Go" / "your turn" and passing with an empty stack in a main phase are the MTR's own shortcuts;
    "combat?", "attacks?" and "no attacks" are engine extensions modelled on them (the MTR of
    2025-11-10 doesn't define these phrases), and the trace says so.
    """

    def _check_shortcut(self, p: int, action: Action) -> Shortcut:
        phrase = action.phrase.strip().lower().strip('"“”')
        if phrase not in SHORTCUTS:
            raise IllegalAction(
                f"unknown shortcut {action.phrase!r} (known: {', '.join(SHORTCUTS)})", "MTR 4.2"
            )
        if self.mode != "tournament":
            raise IllegalAction(
                "tournament shortcuts are used in tournament mode ('mode: tournament')", "MTR 4.2"
            )
        self._need_priority(p, "MTR 4.2")
        stop = SHORTCUTS[phrase]
        if stop != Step.END and (p != self.active or self.step.order >= stop.order):
            raise IllegalAction(
                f"{phrase!r} is said by the active player before the {stop.label}", "MTR 4.2"
            )
        return Shortcut(phrase, p, self.turn, stop)

    def _apply_shortcut(self, p: int, shortcut: Shortcut) -> None:
        self.shortcut = shortcut
        self._save_rewind()
        extension = (
            " (an engine extension modelled on MTR 4.2, not a phrase the MTR defines)"
            if shortcut.phrase in EXTENSIONS
            else ""
        )
        self._emit(
            "shortcut",
            f'{self.players[p].name} says "{shortcut.phrase}": players pass until an opponent has '
            f"priority in the {shortcut.stop.label}{extension}",
            cite("MTR 4.2"),
            p,
        )
        self._pass(p, " (shortcut)")
        self._run_shortcut()

    def _run_shortcut(self) -> None:
        guard = 0
        while self.shortcut is not None and not self.game_over:
            guard += 1
            assert guard < 10_000, "a shortcut must reach its stop"
            sc = self.shortcut
            if self.turn != sc.turn or self.step.order > sc.stop.order:
                self.shortcut = None
                self._emit(
                    "shortcut",
                    f'the shortcut "{sc.phrase}" ends: its stop has passed',
                    cite("MTR 4.2"),
                )
                return
            if (
                self.step == sc.stop
                and self.priority is not None
                and self.priority != sc.player
                and (sc.until is None or sc.until == self.priority)
            ):
                self.shortcut = None
                if sc.stop == Step.BEGINNING_OF_COMBAT and sc.until is None:
                    self.combat_return = self.turn
                self._emit(
                    "shortcut",
                    f'the shortcut "{sc.phrase}" stops: {self.players[self.priority].name} has '
                    f"priority in the {self.step.label}",
                    cite("MTR 4.2"),
                    self.priority,
                )
                return
            if self.awaiting is not None:
                kind, who, _ = self.awaiting
                if kind == "attackers" and sc.phrase in ("go", "your turn", "no attacks"):
                    # Declaring no attackers is always legal for the player declaring.
                    self._apply_attack(who, [])
                    return
                self.shortcut = None
                return
            if self.priority is None:
                self.shortcut = None
                return
            self._pass(self.priority, " (shortcut)")

    def _save_rewind(self) -> None:
        """Remember the game as a shortcut begins, so a player can interrupt it at a point in
        the middle (MTR 4.2): the actions after that point are reversed."""
        state = {k: v for k, v in self.__dict__.items() if k not in _NOT_REWOUND}
        self.rewind = copy.deepcopy(state)

    def _check_interrupt(self, p: int, action: Action) -> Step:
        self._check_in_game(p, action)
        if self.rewind is None or self.rewind["turn"] != self.turn:
            raise IllegalAction("no shortcut of this turn to interrupt", "MTR 4.2")
        step = parse_step(action.phrase)
        start = self.rewind["step"]
        if step is None or not start.order <= step.order <= self.step.order:
            raise IllegalAction(
                f"the shortcut went from the {start.label} to the {self.step.label}: interrupt it "
                "at a step in between",
                "MTR 4.2",
            )
        return step

    def _apply_interrupt(self, p: int, step: Step) -> None:
        """MTR 4.2: a player interrupts a shortcut, saying at which point in the middle they
        wish to act; the game goes back to that point and they receive priority there."""
        assert self.rewind is not None
        saved = self.rewind
        phrase = f'"{saved["shortcut"].phrase}"' if saved.get("shortcut") else "the shortcut"
        self.__dict__.update(copy.deepcopy(saved))
        self.rewind = saved
        self._emit(
            "shortcut",
            f"{self.players[p].name} interrupts {phrase} to act in the {step.label}: the "
            "passes after that point are reversed",
            cite("MTR 4.2"),
            p,
        )
        sc = self.shortcut
        if sc is None:
            sc = Shortcut("interrupted", self.active, self.turn, step)
        self.shortcut = Shortcut(sc.phrase, sc.player, self.turn, step, until=p)
        if self.priority is not None:
            self._pass(self.priority, " (shortcut)")
        self._run_shortcut()


#: Shortcut phrases that the engine adds; the MTR names "go" and "your turn".
EXTENSIONS = frozenset({"combat?", "attacks?", "no attacks"})
_NOT_REWOUND = frozenset({"events", "pool", "rewind", "group_rewind", "actions_taken"})


class GroupShortcut(GameState):
    """MTR 4.2, fourth bullet: a group of objects added to the stack without retaining priority
    is added one at a time, each resolving before the next; another player who wants to act in
    the middle interrupts it, and the actions after that point are reversed."""

    def _check_group(self, p: int, action: Action) -> Action:
        if self.mode != "tournament":
            raise IllegalAction(
                "adding a group of objects is a tournament shortcut ('mode: tournament'); in "
                "strict mode each is its own action",
                "MTR 4.2",
            )
        if len(action.group) < 2:
            raise IllegalAction("a group names two or more spells or abilities", "MTR 4.2")
        if any(
            a.kind not in ("cast", "activate") or a.player != action.player for a in action.group
        ):
            raise IllegalAction(
                "a group is the player's own spells and abilities added to the stack", "MTR 4.2"
            )
        first = action.group[0]
        self._validate(p, first)  # the first must be legal now; later ones when they come
        return action

    def _apply_group(self, p: int, action: Action) -> None:
        state = {k: v for k, v in self.__dict__.items() if k not in _NOT_GROUP_REWOUND}
        self.group_rewind = (copy.deepcopy(state), action, self.turn)
        self._emit(
            "shortcut",
            f"{self.players[p].name} adds {len(action.group)} objects to the stack as a group "
            "without retaining priority: each is added and resolves before the next",
            cite("MTR 4.2"),
            p,
        )
        self._play_group(p, action.group)

    def _play_group(self, p: int, group: tuple[Action, ...], stop_at: int | None = None) -> None:
        """Add each object, then let it resolve (everyone passes) before adding the next; with
        ``stop_at``, stop once that object (1-based) is on the stack."""
        for n, sub in enumerate(group, 1):
            if self.game_over:
                return
            base = len(self.stack)
            why = self.why_illegal(sub)
            if why is not None:
                message = why.message if isinstance(why, IllegalAction) else str(why)
                self._emit(
                    "shortcut",
                    f"object {n} of the group can't be added ({message}): the shortcut stops there",
                    cite("MTR 4.2"),
                    p,
                )
                return
            self.perform(sub)
            if stop_at == n:
                return
            guard = 0
            while len(self.stack) > base and self.priority is not None and not self.game_over:
                guard += 1
                assert guard < 1_000, "a group's object must resolve"
                self._pass(self.priority, " (shortcut: the group's object resolves first)")

    def _check_interrupt_group(self, p: int, action: Action) -> int:
        self._check_in_game(p, action)
        saved = self.group_rewind
        if saved is None or saved[2] != self.turn:
            raise IllegalAction("no group of objects was added this turn", "MTR 4.2")
        group = saved[1].group
        index = action.ability or 0
        if not 1 <= index <= len(group):
            raise IllegalAction(f"the group has objects 1 to {len(group)}", "MTR 4.2")
        if self.players[p].name == saved[1].player:
            raise IllegalAction("another player interrupts the group", "MTR 4.2")
        return index

    def _apply_interrupt_group(self, p: int, index: int) -> None:
        """Reverse the group to the point where object ``index`` is on the stack, and give the
        interrupting player priority there."""
        assert self.group_rewind is not None
        saved_state, action, turn = self.group_rewind
        self.__dict__.update(copy.deepcopy(saved_state))
        self.group_rewind = (saved_state, action, turn)
        self._emit(
            "shortcut",
            f"{self.players[p].name} wants to act while object {index} of the group is on the "
            "stack: the actions after that point are reversed",
            cite("MTR 4.2"),
            p,
        )
        owner = self.player(action.player).index
        self._play_group(owner, action.group[:index], stop_at=index)
        guard = 0
        while self.priority is not None and self.priority != p and not self.game_over:
            guard += 1
            assert guard < 100
            self._pass(self.priority, " (shortcut)")


_NOT_GROUP_REWOUND = frozenset({"events", "pool", "rewind", "group_rewind", "actions_taken"})
