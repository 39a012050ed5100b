"""Combat (506-511): declaring attackers (508) and blockers (509), and combat damage (510)."""

from __future__ import annotations

from kb.engine.objects import Action, GameObject, IllegalAction, ScenarioError, cite
from kb.engine.state import GameState


class Combat(GameState):
    """Combat (506-511): declaring attackers (508) and blockers (509), and combat damage (510)."""

    def _check_attack(self, p: int, action: Action) -> list[tuple[GameObject, int]]:
        """508.1a–b: untapped creatures that have been controlled since the turn began (or have
        haste), each attacking one opponent."""
        if self.awaiting is None or self.awaiting[0] != "attackers":
            raise IllegalAction(
                f"attackers are declared as the declare attackers step begins (it is the {self.step.label})",
                "508.1",
                "703.4i",
            )
        if p != self.awaiting[1]:
            raise IllegalAction("only the active player declares attackers", "508.1")
        chosen: list[tuple[GameObject, int]] = []
        seen: set[int] = set()
        for ref, target in action.attackers:
            obj = self.pick_permanent(ref, p, lambda o: self._can_attack(p, o, seen))
            seen.add(obj.id)
            if target is None:
                defender = self.opponents(p)[0]
            else:
                try:
                    defender = self.player(target).index
                except ScenarioError:
                    defender = p
                if defender == p or not self.players[defender].in_game:
                    raise IllegalAction(f"{target} is not an opponent in the game", "508.1b")
            chosen.append((obj, defender))
        return chosen

    def _can_attack(self, p: int, obj: GameObject, seen: set[int]) -> GameObject:
        """508.1a: an untapped creature, controlled since the turn began or with haste."""
        if obj.id in seen:
            raise IllegalAction(f"{obj.label} is declared twice", "508.1a")
        if not self.is_creature(obj):
            raise IllegalAction(f"{obj.label} is not a creature", "508.1a")
        if obj.tapped:
            raise IllegalAction(f"{obj.label} is tapped", "508.1a")
        if obj.sick and not self.has(obj, "haste"):
            raise IllegalAction(
                f"{obj.label} has not been under {self.players[p].name}'s control since the turn "
                "began and has no haste",
                "508.1a",
                "302.6",
            )
        return obj

    def _apply_attack(self, p: int, chosen: list[tuple[GameObject, int]]) -> None:
        self.awaiting = None
        for obj, defender in chosen:
            obj.tapped = True
            obj.attacking = defender
        if chosen:
            text = ", ".join(f"{o.label} attacking {self.players[d].name}" for o, d in chosen)
            self._emit(
                "declare",
                f"{self.players[p].name} declares attackers: {text}",
                cite("508.1", "508.1f", "703.4i"),
                p,
            )
        else:
            self._emit(
                "declare",
                f"{self.players[p].name} declares no attackers",
                cite("508.1", "508.8"),
                p,
            )
        self._give_priority(self.active, cite("508.2", "117.3a"))
        self._run_shortcut()

    def _check_block(self, p: int, action: Action) -> list[tuple[GameObject, GameObject]]:
        """509.1a: each untapped creature of the defending player blocks at most one creature
        attacking that player."""
        if self.awaiting is None or self.awaiting[0] != "blockers":
            raise IllegalAction(
                f"blockers are declared as the declare blockers step begins (it is the {self.step.label})",
                "509.1",
                "703.4j",
            )
        if p != self.awaiting[1]:
            raise IllegalAction(
                f"{self.players[self.awaiting[1]].name} declares blockers now (APNAP order)",
                "509.1",
                "101.4",
            )
        chosen: list[tuple[GameObject, GameObject]] = []
        seen: set[int] = set()
        for bref, aref in action.blocks:
            blocker = self.pick_permanent(bref, p, lambda o: self._can_block(o, seen))
            attacker = self.pick_permanent(aref, None, lambda o: self._is_attacking(o, p))
            seen.add(blocker.id)
            chosen.append((blocker, attacker))
        return chosen

    def _can_block(self, obj: GameObject, seen: set[int]) -> GameObject:
        """509.1a: an untapped creature blocks one attacker."""
        if obj.id in seen:
            raise IllegalAction(f"{obj.label} can block only one creature", "509.1a")
        if not self.is_creature(obj) or obj.tapped:
            raise IllegalAction(f"{obj.label} is not an untapped creature", "509.1a")
        return obj

    def _is_attacking(self, obj: GameObject, p: int) -> GameObject:
        if obj.attacking != p:
            raise IllegalAction(f"{obj.label} is not attacking {self.players[p].name}", "509.1a")
        return obj

    def _apply_block(self, p: int, chosen: list[tuple[GameObject, GameObject]]) -> None:
        for blocker, attacker in chosen:
            blocker.blocking = attacker.id
            attacker.blocked = True
        if chosen:
            text = ", ".join(f"{b.label} blocks {a.label}" for b, a in chosen)
            self._emit(
                "declare",
                f"{self.players[p].name} declares blockers: {text}",
                cite("509.1", "703.4j"),
                p,
            )
        else:
            self._emit("declare", f"{self.players[p].name} declares no blockers", cite("509.1"), p)
        self.blockers_pending.remove(p)
        self._next_blocker_declaration()

    def _next_blocker_declaration(self) -> None:
        self.blockers_pending = [d for d in self.blockers_pending if self.players[d].in_game]
        if self.blockers_pending:
            self.awaiting = ("blockers", self.blockers_pending[0], 0)
            return
        self.awaiting = None
        self._give_priority(self.active, cite("509.2", "117.3a"))
        self._run_shortcut()

    def _combat_damage(self, first_strike: bool) -> None:
        """510.1–2: each attacking and blocking creature assigns its damage, dealt at once."""
        assignments: list[tuple[GameObject, tuple[str, int], int]] = []
        fighters = [
            o for o in self.battlefield if o.attacking is not None or o.blocking is not None
        ]
        for obj in fighters:
            striker = self.has(obj, "first strike")
            if first_strike and not striker:
                continue
            if not first_strike and obj.struck_first:
                continue
            if first_strike:
                obj.struck_first = True
            power = self.power(obj)
            if power <= 0:
                continue
            if obj.attacking is not None:
                if not obj.blocked:
                    assignments.append((obj, ("player", obj.attacking), power))
                    continue
                blockers = [b for b in self.battlefield if b.blocking == obj.id]
                left = power
                for i, b in enumerate(blockers):
                    lethal = (
                        1 if self.has(obj, "deathtouch") else max(0, self.toughness(b) - b.damage)
                    )
                    amount = left if i == len(blockers) - 1 else min(left, lethal)
                    if amount:
                        assignments.append((obj, ("object", b.id), amount))
                    left -= amount
            else:
                attacker = self._object(obj.blocking) if obj.blocking is not None else None
                if attacker is not None and attacker.attacking is not None:
                    assignments.append((obj, ("object", attacker.id), power))
        label = "first-strike combat damage" if first_strike else "combat damage"
        rules = cite("510.1", "510.2", "703.4m")
        if first_strike or any(o.struck_first for o in fighters):
            rules.append("702.7b")
        if not assignments:
            self._emit("turn-based action", f"no {label} is dealt", rules)
            return
        self._emit("turn-based action", f"{label} is assigned and dealt simultaneously", rules)
        for obj, recipient, amount in assignments:
            self._damage(recipient, amount, obj.label, self.has(obj, "deathtouch"), combat=True)
