"""Mana symbols, costs and mana pools: ``{1}{R}`` parsed into generic and coloured parts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kb.engine.limits import bounded

#: The five colours and colourless, in the order the rules list them (105.1, 106.1b).
COLOURS = ("W", "U", "B", "R", "G", "C")
_SYMBOL = re.compile(r"\{([^{}]*)\}")


class ManaError(ValueError):
    """A mana string that is not a sequence of ``{…}`` symbols the engine knows."""


@dataclass(frozen=True, slots=True)
class ManaCost:
    """A mana cost: an amount of generic mana plus coloured (or colourless ``{C}``) symbols."""

    generic: int = 0
    coloured: tuple[tuple[str, int], ...] = ()
    #: the mana value of the cost (202.3), computed once: payments ask for it again and again
    total: int = field(init=False, compare=False, repr=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", self.generic + sum(n for _, n in self.coloured))

    def __str__(self) -> str:
        out = f"{{{self.generic}}}" if self.generic or not self.coloured else ""
        for colour, n in self.coloured:
            out += f"{{{colour}}}" * n
        return out


def parse_cost(text: str) -> ManaCost:
    """Parse ``{2}{U}{U}`` (or an empty string, a free cost) into a :class:`ManaCost`."""
    text = text.strip()
    generic = 0
    counts: dict[str, int] = {}
    pos = 0
    for match in _SYMBOL.finditer(text):
        if text[pos : match.start()].strip():
            raise ManaError(f"not a mana symbol: {text[pos : match.start()].strip()!r}")
        pos = match.end()
        sym = match.group(1).strip().upper()
        if sym.isdigit():
            generic += bounded(sym, "generic mana", error=ManaError)
        elif sym in COLOURS:
            counts[sym] = counts.get(sym, 0) + 1
        else:
            raise ManaError(f"unknown mana symbol {{{sym}}}")
    if text[pos:].strip():
        raise ManaError(f"not a mana symbol: {text[pos:].strip()!r}")
    return ManaCost(generic, tuple((c, counts[c]) for c in COLOURS if c in counts))


def parse_mana(text: str) -> dict[str, int]:
    """Parse mana to add or in a pool, ``{R}{R}{G}``: coloured or ``{C}`` symbols only."""
    cost = parse_cost(text)
    if cost.generic:
        raise ManaError(f"mana in a pool has a colour or is {{C}}, not a number: {text!r}")
    return dict(cost.coloured)


@dataclass(slots=True)
class ManaPool:
    """One player's mana pool (106.4): amounts of each colour, emptied as steps end (500.5)."""

    amounts: dict[str, int] = field(default_factory=dict)

    def add(self, mana: dict[str, int]) -> None:
        """Add mana (106.4)."""
        for colour, n in mana.items():
            self.amounts[colour] = self.amounts.get(colour, 0) + n

    def is_empty(self) -> bool:
        """True when no mana is left."""
        amounts = self.amounts
        return not amounts or not any(amounts.values())

    def empty(self) -> dict[str, int]:
        """Empty the pool, returning what was lost."""
        lost = {c: n for c, n in self.amounts.items() if n}
        self.amounts.clear()
        return lost

    def copy(self) -> ManaPool:
        """An independent copy (for payment plans)."""
        return ManaPool(dict(self.amounts))

    def can_pay(self, cost: ManaCost) -> bool:
        """Whether :meth:`pay` would pay the cost, without paying it: each coloured symbol from
        its colour, and enough mana in all for the rest (generic mana takes any colour)."""
        amounts = self.amounts
        for colour, n in cost.coloured:
            if amounts.get(colour, 0) < n:
                return False
        return sum(amounts.values()) >= cost.total

    def pay(self, cost: ManaCost) -> bool:
        """Pay a cost from the pool if it can be paid in full (no partial payment, 601.2h)."""
        trial = dict(self.amounts)
        for colour, n in cost.coloured:
            if trial.get(colour, 0) < n:
                return False
            trial[colour] -= n
        need = cost.generic
        # Generic mana is paid with colourless first, then the colours in WUBRG order.
        for colour in ("C", "W", "U", "B", "R", "G"):
            take = min(need, trial.get(colour, 0))
            trial[colour] = trial.get(colour, 0) - take
            need -= take
        if need:
            return False
        self.amounts = {c: n for c, n in trial.items() if n}
        return True

    def __str__(self) -> str:
        return format_mana(self.amounts)


def format_mana(mana: dict[str, int]) -> str:
    """``{"R": 2, "G": 1}`` as ``{R}{R}{G}``; an empty pool as ``{}``."""
    out = "".join([_SYMBOLS[c] * n for c in COLOURS if (n := mana.get(c, 0)) > 0])
    return out or "{}"


_SYMBOLS = {c: f"{{{c}}}" for c in COLOURS}
