"""Choices made as a spell or ability resolves (608.2d), and announcing them early (MTR 4.2).

Scry (701.22), surveil (701.25), which cards to discard (701.9), which creature to sacrifice
(701.21a) and new targets for a copy (707.10c) are chosen by the player while the effect is
applied (608.2d). A scenario can't stop in the middle of a resolution, so a player announces
such a choice beforehand:
``Alice announces for Opt: bottom Island``. Without an announcement the engine leaves scried or
surveilled cards in the same order (MTR 4.2's tenth bullet in tournament mode), discards the
last card of the hand, sacrifices the last creature to arrive and keeps a copy's targets.

Tournament mode follows MTR 4.2's fifth bullet: a player who announced a resolution choice must
adhere to it unless an opponent responds to that spell or ability; and an opponent who inquires
about those choices is assumed to pass priority, letting it resolve.
"""

from __future__ import annotations

from typing import Any

from kb.engine.cards import unquote
from kb.engine.copying import text_change_words
from kb.engine.effect_text import Effect
from kb.engine.objects import Action, GameObject, IllegalAction, StackObject, cite
from kb.engine.state import GameState

#: announcement word -> the effect kinds it is a choice for
CHOICE_WORDS = {
    "bottom": ("scry",),
    "top": ("scry", "surveil"),
    "graveyard": ("surveil",),
    "discard": ("discard",),
    "sacrifice": ("sacrifice",),
    "new targets": ("copy",),
    "copy": (),  # what a permanent spell with "enter as a copy of …" copies (707.5)
    "change": ("continuous",),  # the words of a text-changing effect (612.2)
}


class ResolutionChoices(GameState):
    """608.2d choices (scry, surveil, discards, a copy's new targets) and MTR 4.2's fifth and
    tenth bullets."""

    def _my_stack_item(self, p: int, ref: str | int | None) -> StackObject:
        """The player's spell or ability of that name on the stack (the one closest to the top)."""
        name = unquote(str(ref)).lower() if ref is not None else ""
        name = name.removesuffix(" (copy)")
        for item in reversed(self.stack):
            if item.controller == p and (item.id == ref or item.name.lower() == name):
                return item
        raise IllegalAction(
            f"{self.players[p].name} controls no spell or ability named {ref} on the stack: "
            "choices made on resolution are announced for one of their own",
            "608.2d",
        )

    def _sacrificer_item(self, p: int, ref: str | int | None) -> StackObject:
        """The spell or ability of that name on the stack (closest to the top) that will make
        player ``p`` sacrifice: they choose what (701.21a), whoever controls it."""
        name = unquote(str(ref)).lower().removesuffix(" (copy)") if ref is not None else ""
        for item in reversed(self.stack):
            if (item.id == ref or item.name.lower() == name) and p in self._sacrificers(item):
                return item
        raise IllegalAction(
            f"no spell or ability named {ref} on the stack makes {self.players[p].name} "
            "sacrifice: a player announces what they themselves will sacrifice",
            "701.21a",
            "608.2d",
        )

    def _sacrificers(self, item: StackObject) -> list[int]:
        """The players a stack item's sacrifice effects name (its target, each opponent …)."""
        out: list[int] = []
        targets = iter(item.targets)
        for effect in item.effects:
            target = next(targets, None) if effect.target else None
            if effect.kind == "sacrifice":
                out += self._players_named(effect, item.controller, target, [item.controller]) or []
        return out

    def _check_announce(self, p: int, action: Action) -> tuple[StackObject, str, tuple[str, ...]]:
        self._check_in_game(p, action)
        word = action.phrase
        if word == "sacrifice":
            item = self._sacrificer_item(p, action.card)
            for name in action.names:
                mine = [
                    o
                    for o in self.battlefield.of(p)
                    if self.is_creature(o) and o.name.lower() == unquote(name).lower()
                ]
                if not mine:
                    raise IllegalAction(
                        f"{self.players[p].name} controls no creature named {unquote(name)}: a "
                        "player sacrifices only a permanent they control",
                        "701.21a",
                    )
            word = f"sacrifice {p}"
            return item, word, action.names
        item = self._my_stack_item(p, action.card)
        kinds = CHOICE_WORDS.get(word)
        if kinds is None:
            raise IllegalAction(
                f"unknown choice {word!r} (known: {', '.join(CHOICE_WORDS)})", "608.2d"
            )
        if word in ("copy", "change"):
            self._check_copy_or_text_choice(item, word, action.names)
        elif not any(e.kind in kinds for e in item.effects) or (
            word == "new targets" and not any(e.scope == "new" for e in item.effects)
        ):
            raise IllegalAction(
                f"{item.name} offers no such choice on resolution ({word})", "608.2d"
            )
        earlier = self.resolution_choices.get(item.id)
        if (
            earlier is not None
            and self.mode == "tournament"
            and not self._opponent_responded(p, earlier["since"])
        ):
            raise IllegalAction(
                f"{self.players[p].name} announced the choices for {item.name} already and must "
                "adhere to them unless an opponent responds to it",
                "MTR 4.2",
            )
        return item, word, action.names

    def _check_copy_or_text_choice(
        self, item: StackObject, word: str, names: tuple[str, ...]
    ) -> None:
        """``copy Grizzly Bears`` (or ``copy nothing``) for a spell that enters as a copy
        (707.5); ``change swamp to island`` for a text-changing effect that chooses its words
        (612.2). One choice each."""
        if len(names) != 1:
            raise IllegalAction(
                f"'{word}' names one choice ({'copy <permanent> | copy nothing' if word == 'copy' else 'change <word> to <word>'})",
                "608.2d",
            )
        if word == "copy":
            if item.card is None or item.card.card.copy_as is None:
                raise IllegalAction(
                    f"{item.name} has no 'enter as a copy of …' ability: nothing to copy", "707.5"
                )
            return
        kinds = [
            part.value[0]
            for e in item.effects
            if e.kind == "continuous"
            for part in e.spec.parts
            if part.op == "text" and part.value[1] is None
        ]
        if not kinds:
            raise IllegalAction(
                f"{item.name} has no text-changing effect whose words are chosen as it resolves",
                "612.2",
            )
        text_change_words(names[0], kinds[0])

    def _opponent_responded(self, p: int, since: int) -> bool:
        """Whether an opponent cast a spell or activated an ability since that event."""
        return any(
            e.kind in ("cast", "activate") and e.player != self.players[p].name
            for e in self.events[since:]
        )

    def _apply_announce(self, p: int, plan: tuple[StackObject, str, tuple[str, ...]]) -> None:
        item, word, names = plan
        choices = self.resolution_choices.setdefault(item.id, {"since": len(self.events)})
        choices["since"] = len(self.events)
        choices[word] = list(names)
        if word in ("bottom", "graveyard", "top"):
            for other in ("bottom", "graveyard", "top"):
                if other != word:
                    choices.pop(other, None)
        said = "sacrifice" if word.startswith("sacrifice") else word
        shown = f"{said} {', '.join(names)}" if names else said
        rules = cite("608.2d", "MTR 4.2") if self.mode == "tournament" else cite("608.2d")
        self._emit(
            "choice",
            f"{self.players[p].name} announces the choice they will make as {item.name} "
            f"resolves: {shown}",
            rules,
            p,
        )

    def _check_inquire(self, p: int, action: Action) -> StackObject:
        if self.mode != "tournament":
            raise IllegalAction(
                "inquiring passes priority only as a tournament shortcut ('mode: tournament')",
                "MTR 4.2",
            )
        self._need_priority(p, "MTR 4.2")
        name = unquote(str(action.card or "")).lower().removesuffix(" (copy)")
        for item in reversed(self.stack):
            if item.controller != p and item.name.lower() == name:
                return item
        raise IllegalAction(
            f"no opponent's spell or ability named {action.card} on the stack", "MTR 4.2"
        )

    def _apply_inquire(self, p: int, item: StackObject) -> None:
        self._emit(
            "shortcut",
            f"{self.players[p].name} asks about the choices {self.players[item.controller].name} "
            f"will make as {item.name} resolves: {self.players[p].name} is assumed to pass "
            "priority and let it resolve",
            cite("MTR 4.2"),
            p,
        )
        self._pass(p, " (inquiring about choices made on resolution)")
        self._run_shortcut()

    # ---- applying the choices as the effect resolves ----------------------------------------
    def _announced(self, item: StackObject, word: str) -> list[str] | None:
        choices: dict[str, Any] | None = self.resolution_choices.get(item.id)
        return None if choices is None else choices.get(word)

    def _look_at_top(self, effect: Effect, p: int, item: StackObject) -> None:
        """701.22a scry N / 701.25a surveil N: look at the top N cards, then put the chosen ones
        on the bottom (scry) or into the graveyard (surveil) and the rest on top in order."""
        pl = self.players[p]
        verb = effect.kind
        rule = "701.22a" if verb == "scry" else "701.25a"
        n = min(effect.amount, len(pl.library))
        if n <= 0:
            self._emit("effect", f"{pl.name} can't {verb}: no cards are looked at", cite(rule), p)
            return
        top = list(reversed(pl.library[-n:]))  # top first
        word = "bottom" if verb == "scry" else "graveyard"
        chosen = self._announced(item, word)
        if chosen is None and self._announced(item, "top") is None:
            rules = cite(rule, "MTR 4.2") if self.mode == "tournament" else cite(rule, "608.2d")
            self._emit(
                "effect",
                f"{pl.name} looks at the top {n} card{'s' * (n > 1)} of their library "
                f"({', '.join(c.name for c in top)}): no choice was announced, so they stay "
                "on top in the same order",
                rules,
                p,
            )
            return
        moving: list[GameObject] = []
        for name in chosen or []:
            match = next(
                (c for c in top if c.name.lower() == name.lower() and c not in moving), None
            )
            if match is None:
                self._emit(
                    "note",
                    f"{name} is not among the top {n} cards: that part of the announcement is "
                    "ignored",
                    cite("608.2d"),
                    p,
                )
                continue
            moving.append(match)
        for card in moving:
            pl.library.remove(card)
            if verb == "scry":
                pl.library.insert(0, card)
            else:
                pl.graveyard.append(self._new_object(card.card, card.owner))
        where = "on the bottom of their library" if verb == "scry" else "into their graveyard"
        moved = ", ".join(c.name for c in moving) or "no cards"
        self._emit(
            "effect",
            f"{pl.name} {verb}s {n}: puts {moved} {where}, the rest on top in the same order",
            cite(rule, "608.2d"),
            p,
        )

    def _chosen_discard(self, p: int, item: StackObject) -> GameObject | None:
        """The next card the player announced to discard for this resolution, if in hand."""
        names = self._announced(item, "discard")
        hand = self.players[p].hand
        while names:
            name = names.pop(0).lower()
            card = next((c for c in hand if c.name.lower() == name), None)
            if card is not None:
                return card
            self._emit(
                "note",
                f"{name} is not in {self.players[p].name}'s hand: the last card is discarded",
                cite("608.2d"),
                p,
            )
        return None

    def _copy_targets(
        self, effect: Effect, p: int, item: StackObject, original: StackObject
    ) -> list[tuple[str, int]] | None:
        """707.10c: the announced new targets of a copy, each legal, else the same targets."""
        names = self._announced(item, "new targets")
        if effect.scope != "new" or not names:
            return None
        try:
            return self._choose_targets(original.effects, tuple(names), controller=p)
        except IllegalAction as err:
            self._emit(
                "note",
                f"the announced new targets can't be chosen ({err.message}): the copy keeps the "
                "targets of the original",
                cite("707.10c"),
                p,
            )
            return None
