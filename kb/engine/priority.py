"""Priority (117): who receives it, passing, and all players passing in succession.

Also the announcements a player may make while holding priority: holding it (MTR 4.2) and
conceding (104.3a, 800.4a).
"""

from __future__ import annotations

from kb.engine.objects import (
    AWAITING,
    AWAITING_RULE,
    SHORTCUTS,
    Action,
    Battlefield,
    IllegalAction,
    Shortcut,
    cite,
)
from kb.engine.state import GameState
from kb.engine.steps import Step


class Priority(GameState):
    """Priority (117): who receives it, passing, and all players passing in succession."""

    def _need_priority(self, p: int, rule: str = "117.1") -> None:
        if not self.players[p].in_game:
            raise IllegalAction(f"{self.players[p].name} has left the game", "800.4a")
        if self.awaiting is not None:
            kind, who, _ = self.awaiting
            raise IllegalAction(
                f"no player has priority while {self.players[who].name} {AWAITING[kind]}",
                AWAITING_RULE[kind],
            )
        if self.priority != p and not self._same_team(p, self.priority):
            holder = "no player" if self.priority is None else self.players[self.priority].name
            if self.teams is not None and self.priority is not None:
                holder = self.team_label(self.priority)  # teams have priority (117.6, 805.5)
                rule = "117.6"
            raise IllegalAction(
                f"{self.players[p].name} doesn't have priority ({holder} has it)", rule
            )

    def _give_priority(self, p: int, rules: list[str], why: str = "") -> None:
        """117.5: state-based actions and triggers until none, then the player gets priority."""
        self.priority = None
        while not self.game_over:
            if self._state_based_actions():
                continue
            if self.pending and self._put_triggers_on_stack():
                continue
            break
        if self.game_over:
            return
        if not self.players[p].in_game:
            # 800.4j covers the active player who left during their turn; otherwise the player
            # who left is simply no longer in the turn order (800.4a).
            rules = [*rules, "800.4j" if p == self.active else "800.4a"]
            p = self._next_in_game(p)
        self.priority = p
        if p == self.active and self.shortcut is None:
            self.combat_return = None
        who = self.players[p].name
        if self.teams is not None:  # 117.6, 805.5: teams, not players, have priority
            who = self.team_label(p)
            rules = [*rules, "117.6", "805.5"]
        self._emit("priority", f"{who} receives priority{why}", rules, p)

    def _check_pass(self, p: int, action: Action) -> None:
        self._need_priority(p, "117.3d")

    def _apply_pass(self, p: int, plan: None) -> None:
        self._pass(p)
        self._run_shortcut()

    def _pass(self, p: int, shortcut: str = "") -> None:
        pl = self.players[p]
        if (
            self.mode == "tournament"
            and not shortcut
            and self.shortcut is None
            and p == self.active
            and not self.stack
            and self.step.is_main
        ):
            phrase = "combat?" if self.step == Step.PRECOMBAT_MAIN else "go"
            self.shortcut = Shortcut(phrase, p, self.turn, SHORTCUTS[phrase])
            self._save_rewind()
            where = "beginning of combat" if phrase == "combat?" else "the end step"
            self._emit(
                "shortcut",
                f"{pl.name} passes with an empty stack in the {self.step.label}: the other players "
                f"are assumed to act in {where}",
                cite("MTR 4.2"),
                p,
            )
        mana = "" if pl.pool.is_empty() else f", announcing {pl.pool} in the mana pool"
        rules = cite("117.3d", "106.4b") if mana else cite("117.3d")
        if shortcut:
            rules = [*rules, "MTR 4.2"]
        self.passes += 1
        self.priority = None
        # MTR 4.2: holding priority is announced for the object the player adds next; passing
        # ends it (it never carries over to a spell cast phases later).
        self.holding.discard(p)
        team = ""
        if self.teams is not None:
            team = f" for {self.team_label(p)}"
            rules = [*rules, "805.5b"]
        self._emit("pass", f"{pl.name} passes{team}{mana}{shortcut}", rules, p)
        units = (
            len(self.in_game())
            if self.teams is None
            else len({self.team_of[q.index] for q in self.in_game()})
        )
        if self.passes >= units:
            self.passes = 0
            if self.stack:
                self._resolve_top()
                if not self.game_over:
                    self._give_priority(self.active, cite("117.3b"), " (after a resolution)")
            elif (
                self.combat_return == self.turn
                and self.step == Step.BEGINNING_OF_COMBAT
                and self.shortcut is None
            ):
                self.combat_return = None
                self._emit(
                    "shortcut",
                    "no actions took place after passing from the first main phase: the active "
                    "player receives priority in the beginning of combat step",
                    cite("MTR 4.2"),
                )
                self._give_priority(self.active, cite("MTR 4.2", "117.3a"))
            else:
                self._emit(
                    "all passed",
                    f"all players passed in succession with an empty stack: the {self.step.label} ends",
                    cite("117.4", "500.2"),
                )
                self._end_step()
        else:
            self._give_priority(self._next_in_game(p), cite("117.3d"), " (next in turn order)")

    def _after_action(self, p: int, rule: str, adds_to_stack: bool) -> None:
        """117.3c / 116.3: the acting player receives priority again (or passes, MTR 4.2)."""
        self.passes = 0
        self._give_priority(p, cite(rule))
        if (
            adds_to_stack
            and self.mode == "tournament"
            and self.priority == p
            and not self.game_over
        ):
            if p in self.holding:
                self.holding.discard(p)
                self._emit(
                    "hold", f"{self.players[p].name} holds priority", cite("MTR 4.2", "117.3c"), p
                )
            else:
                self._pass(p, " (adding an object to the stack passes priority)")

    def _apply_hold(self, p: int, plan: None) -> None:
        if self.mode != "tournament":
            self._emit(
                "note",
                f"{self.players[p].name} holds priority (in strict mode a player always keeps "
                "priority after casting or activating)",
                cite("117.3c"),
                p,
            )
            return
        self.holding.add(p)
        self._emit(
            "note",
            f"{self.players[p].name} announces they will hold priority",
            cite("MTR 4.2"),
            p,
        )

    def _check_concede(self, p: int, action: Action) -> None:
        if not self.players[p].in_game:
            raise IllegalAction(f"{self.players[p].name} has already left the game", "104.3a")

    def _apply_concede(self, p: int, plan: None) -> None:
        self._emit("concede", f"{self.players[p].name} concedes", cite("104.3a"), p)
        had_priority = self.priority == p
        self._leave([p], "conceded")
        if not self.game_over and had_priority:
            self._give_priority(
                self._next_in_game(p), cite("800.4a", "117.3d"), " (next in turn order)"
            )

    def _leave(self, players: list[int], why: str) -> None:
        if self.teams is not None:  # a team loses, and leaves, together (810.8a, 810.8b)
            players = sorted({q for p in players for q in self.teams[self.team_of[p]]})
        for p in players:
            pl = self.players[p]
            pl.in_game = False
            pl.lost = True
        remaining = self.in_game()
        multiplayer = len(self.players) > 2
        for p in players:
            pl = self.players[p]
            if multiplayer and remaining:
                self.battlefield = Battlefield(o for o in self.battlefield if o.owner != p)
                self.stack = [
                    s for s in self.stack if (s.card.owner if s.card else s.controller) != p
                ]
                self.pending = [t for t in self.pending if t.controller != p]
                for obj in self.battlefield:
                    if obj.attacking == p:
                        obj.attacking = None
                self._emit(
                    "leave",
                    f"{pl.name} leaves the game ({why}); every object {pl.name} owns leaves the game too",
                    cite("800.4a", "104.3a") if why == "conceded" else cite("800.4a"),
                    p,
                )
        self.blockers_pending = [d for d in self.blockers_pending if self.players[d].in_game]
        if self.awaiting and not self.players[self.awaiting[1]].in_game:
            if self.awaiting[0] == "blockers":
                self.awaiting = None
                self._next_blocker_declaration()
            elif self.awaiting[0] == "damage" and len(remaining) > 1:  # their creatures left
                self.awaiting = None
                if not self._next_damage_announcement():
                    self._deal_announced_damage()
            else:
                self.awaiting = None
        if self.teams is not None and len({self.team_of[q.index] for q in remaining}) == 1:
            remaining = remaining[:1]
        if len(remaining) <= 1:
            self.game_over = True
            self.priority = None
            self.shortcut = None
            if remaining:
                self.winner = remaining[0].index
                winner = remaining[0].name
                rules = cite("104.2a")
                if self.teams is not None:
                    winner = self.team_label(remaining[0].index)
                    rules.append("810.8a")
                self._emit("game", f"{winner} wins the game", rules, remaining[0].index)
            else:
                self.winner = None
                self._emit(
                    "game",
                    "all remaining players lost at the same time: the game is a draw",
                    cite("104.4a"),
                )
