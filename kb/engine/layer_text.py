"""The card language of continuous, replacement and prevention effects (rules 611-616).

Static abilities (``static all creatures lose all abilities and have base power and toughness
1/1``) become :class:`StaticAbility` (layered effects, 613) or :class:`ReplacementSpec`
(replacement and prevention effects, 614-615); whole instructions of spells and abilities
(``gain control of target creature``) become a :class:`LayerSpec` or :class:`ReplacementSpec`
that :mod:`kb.engine.effect_text` wraps in an ``Effect``. This module only reads text: the
layer system (:mod:`kb.engine.layers`) and the replacement rules (:mod:`kb.engine.replacement`)
give it meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kb.engine.limits import bounded

#: Creature types the engine knows (205.3m), for "other Goblins" and "becomes a Frog".
CREATURE_TYPES = (
    "goblin",
    "elf",
    "frog",
    "human",
    "soldier",
    "bear",
    "giant",
    "wizard",
    "knight",
    "zombie",
    "spirit",
    "angel",
    "wall",
    "snake",
    "beast",
    "avatar",
    "golem",
    "dragon",
    "wolf",
)
#: The basic land types (305.6) and the mana each one's ability adds.
BASIC_LAND_TYPES = {"plains": "W", "island": "U", "swamp": "B", "mountain": "R", "forest": "G"}
COLORS = ("white", "blue", "black", "red", "green")
#: Plurals that are not a type name plus "s".
_PLURALS = {"elves": "elf", "wolves": "wolf", "plains": "plains"}

#: The layers and sublayers of 613.1 and 613.4, in order: copy (1), control (2), text (3), type
#: (4), color (5), abilities (6), power and toughness (7a-7d).
LAYERS = ("1", "2", "3", "4", "5", "6", "7a", "7b", "7c", "7d")
#: The words a text-changing effect may replace (612.2): a color word or a basic land type word.
TEXT_WORDS = {"color": COLORS, "basic land type": tuple(BASIC_LAND_TYPES)}


@dataclass(frozen=True, slots=True)
class Selector:
    """What a static ability applies to: ``other non-Aura enchantments``, ``Goblins you
    control``, ``nonbasic lands``, ``this creature``."""

    kind: str  # "creature" | "enchantment" | "land" | "permanent" | "self" | a creature type
    other: bool = False
    yours: bool = False
    opponents: bool = False
    non: str = ""  # "aura" (non-Aura) | "basic" (nonbasic)
    color: str = ""  # "white creatures": only objects of that color (105.1)


@dataclass(frozen=True, slots=True)
class LayerPart:
    """One part of a continuous effect, applied in its own layer (613.6)."""

    layer: str  # one of LAYERS
    op: str  # copy | control | text | add type | creature type | land type | add land type | color | lose all
    # | keywords | set pt | set pt mana value | count pt | modify pt | switch
    value: Any = None

    def says(self) -> str:
        """What the part does, for the trace (in players' words)."""
        v = self.value
        if self.op == "copy":
            return f"makes it a copy of {v.of}: {v.says()}"
        if self.op == "text":
            kind, old, new = v
            return (
                f"changes the text of its rules and type line, every {kind} word {old!r} "
                f"becoming {new!r} (612.2)"
            )
        if self.op == "control":
            return "changes its controller"
        if self.op == "add type":
            return f"makes it {_a(v)} {v} in addition to its other types"
        if self.op == "creature type":
            return f"makes its creature type {v.capitalize()}"
        if self.op == "land type":
            return (
                f"makes it {_a(v)} {v.capitalize()} (it loses its other land types and abilities, "
                "305.7)"
            )
        if self.op == "add land type":
            return f"gives it the land type {v.capitalize()} and its mana ability"
        if self.op == "color":
            return f"makes it {v}"
        if self.op == "lose all":
            return "removes all its abilities"
        if self.op == "keywords":
            return "gives it " + " and ".join(sorted(v))
        if self.op == "set pt":
            return f"sets its base power and toughness to {v[0]}/{v[1]}"
        if self.op == "set pt mana value":
            return "sets its base power and toughness to its mana value"
        if self.op == "count pt":
            return f"sets its power and toughness to the number of {v}"
        if self.op == "modify pt":
            return f"gives it {v[0]:+d}/{v[1]:+d}"
        return "switches its power and toughness"


@dataclass(frozen=True, slots=True)
class StaticAbility:
    """A static ability generating a continuous effect (604.1, 611.3): what it applies to and
    what it does in each layer; ``cda`` for a characteristic-defining ability (604.3)."""

    text: str
    selector: Selector
    parts: tuple[LayerPart, ...]
    cda: bool = False


@dataclass(frozen=True, slots=True)
class LayerSpec:
    """The continuous effect a resolving spell or ability creates on its target (611.2)."""

    parts: tuple[LayerPart, ...]
    until: str = ""  # "end of turn" | "" (indefinitely) | "control" (for as long as you control
    # this) | "untap" (untaps the creature too, and gives it haste: Act of Treason)
    haste: bool = False


@dataclass(frozen=True, slots=True)
class ReplacementSpec:
    """A replacement or prevention effect (614, 615): the event it watches and what happens
    instead. From a static ability, or created by a resolving spell or ability."""

    text: str
    event: str  # graveyard | die | destroy | enter | draw | damage | combat damage
    result: str  # exile | library | hand | tapped | counters | win | effects | prevent
    # | regenerate
    who: str = "any"  # whose object or which player: any | self | yours | opponents | you |
    # target | that creature | other yours
    amount: int = 0  # counters put, or damage a shield prevents
    instead: str = ""  # "if you would draw a card, <effects> instead": the effects' text
    effects: tuple[Any, ...] = ()  # those effects, parsed by kb.engine.effect_text
    empty_library: bool = False  # "while your library has no cards in it"
    self_replacement: bool = False  # 614.15: part of the resolving spell's own effect
    this_turn: bool = False  # "this turn" (a resolved effect's duration)


class LayerTextError(ValueError):
    """A continuous-effect text the engine cannot read (the caller words it as a CardError)."""


def _a(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _singular(word: str) -> str:
    word = word.lower()
    if word in _PLURALS:
        return _PLURALS[word]
    return word[:-1] if word.endswith("s") else word


def _selector(words: str) -> Selector:
    """``other Goblins you control``, ``all creatures``, ``each other non-aura enchantment``."""
    text = words.strip()
    other = bool(re.match(r"^(?:each |all )?other ", text))
    text = re.sub(r"^(?:each |all )?(?:other )?", "", text)
    yours = text.endswith(" you control")
    opponents = text.endswith(" your opponents control")
    text = re.sub(r" (?:you|your opponents) control$", "", text)
    non = ""
    if m := re.match(r"^non-?(aura|basic) (.+)$", text):
        non, text = m.group(1), m.group(2)
    color = ""
    if m := re.match(rf"^({'|'.join(COLORS)}) (.+)$", text):
        color, text = m.group(1), m.group(2)
    if (m := re.match(r"^(\w+) creatures?$", text)) and _singular(m.group(1)) in CREATURE_TYPES:
        text = m.group(1)  # "goblin creatures": Goblins
    kind = _singular(text)
    if kind not in ("creature", "enchantment", "land", "permanent", *CREATURE_TYPES):
        raise LayerTextError(
            f"unknown kind of permanent {text!r} (creatures, enchantments, lands, permanents, "
            f"or a creature type: {', '.join(CREATURE_TYPES)})"
        )
    return Selector(kind, other, yours, opponents, non, color)


def pt_value(text: str, what: str) -> int:
    """A power or toughness in an effect's text, bounded (:mod:`kb.engine.limits`)."""
    return bounded(text, what, error=LayerTextError)


_pt = pt_value


_COUNTS = ("creatures you control", "cards in your hand", "lands you control")


#: Oracle wordings read as the card language's (the meaning is the same).
_ORACLE = (
    (r"base power and base toughness", "base power and toughness"),
    (r"in addition to (its|their) other land types", r"in addition to \1 other types"),
    (r"^if a card or token would be put into", "if a card would be put into"),
    (r", exile that card instead$", ", exile it instead"),
    (r"^until end of turn, (.+)$", r"\1 until end of turn"),
    (r"\. untap (it|that creature)\. it gains haste", r", untap \1, and it gains haste"),
)


def _oracle(low: str) -> str:
    """An Oracle wording (``Until end of turn, target creature loses all abilities …``, ``… in
    addition to its other land types``) in the card language's words."""
    for pattern, repl in _ORACLE:
        low = re.sub(pattern, repl, low)
    return low


def parse_static(text: str) -> StaticAbility | ReplacementSpec | None:
    """A static ability's continuous or replacement effect from its text (after ``static``),
    or None when the text is none of those this module reads."""
    low = _oracle(" ".join(text.lower().replace("’", "'").split()).rstrip("."))
    if m := re.match(
        r"^((?:all |other |each other )?[a-z -]+?) get ([+-]\d+)/([+-]\d+) and have ([a-z ,]+)$",
        low,
    ):
        kws = frozenset(k.strip() for k in re.split(r",? and |, ", m.group(4)) if k.strip())
        part = LayerPart("7c", "modify pt", (_pt(m.group(2), "power"), _pt(m.group(3), "tough")))
        parts = (LayerPart("6", "keywords", kws), part)
        return StaticAbility(text, _selector(m.group(1)), parts)
    if m := re.match(r"^((?:all |other |each other )?[a-z -]+?) get ([+-]\d+)/([+-]\d+)$", low):
        part = LayerPart("7c", "modify pt", (_pt(m.group(2), "power"), _pt(m.group(3), "tough")))
        return StaticAbility(text, _selector(m.group(1)), (part,))
    if m := re.match(r"^((?:all |other )?[a-z -]+?) have ([a-z ,]+)$", low):
        kws = frozenset(k.strip() for k in re.split(r",? and |, ", m.group(2)) if k.strip())
        return StaticAbility(text, _selector(m.group(1)), (LayerPart("6", "keywords", kws),))
    if m := re.match(
        r"^(all [a-z ]+?) lose all abilities and have base power and toughness (\d+)/(\d+)$", low
    ):
        pt = (_pt(m.group(2), "power"), _pt(m.group(3), "toughness"))
        parts = (LayerPart("6", "lose all"), LayerPart("7b", "set pt", pt))
        return StaticAbility(text, _selector(m.group(1)), parts)
    if m := re.match(
        r"^(each [a-z -]+?) is an? (creature|artifact|enchantment|land) in addition to its other "
        r"types(?: and has base power and toughness each equal to its mana value)?$",
        low,
    ):
        parts = [LayerPart("4", "add type", m.group(2))]
        if low.endswith("mana value"):
            parts.append(LayerPart("7b", "set pt mana value"))
        return StaticAbility(text, _selector(m.group(1)), tuple(parts))
    if m := re.match(
        r"^(all [a-z -]+?) are (creatures|artifacts|enchantments|lands) in addition to their "
        r"other types$",
        low,
    ):
        part = LayerPart("4", "add type", _singular(m.group(2)))
        return StaticAbility(text, _selector(m.group(1)), (part,))
    if m := re.match(
        r"^([a-z -]+?lands?) (?:are|is an?) ([a-z]+?)s? in addition to (?:its|their) other "
        r"types$",
        low,
    ):
        kind = m.group(2) + "s" if m.group(2) + "s" in BASIC_LAND_TYPES else m.group(2)
        if kind not in BASIC_LAND_TYPES:
            raise LayerTextError(f"{m.group(2)!r} is not a basic land type")
        return StaticAbility(text, _selector(m.group(1)), (LayerPart("4", "add land type", kind),))
    if m := re.match(r"^([a-z -]+?lands) are ([a-z]+)$", low):
        kind = _singular(m.group(2)) if m.group(2) not in BASIC_LAND_TYPES else m.group(2)
        if kind not in BASIC_LAND_TYPES:
            raise LayerTextError(f"{m.group(2)!r} is not a basic land type (305.6)")
        return StaticAbility(text, _selector(m.group(1)), (LayerPart("4", "land type", kind),))
    if m := re.match(
        r"^this creature's power and toughness are each equal to the number of (.+)$", low
    ):
        if m.group(1) not in _COUNTS:
            raise LayerTextError(f"unknown count {m.group(1)!r} (known: {', '.join(_COUNTS)})")
        part = LayerPart("7a", "count pt", m.group(1))
        return StaticAbility(text, Selector("self"), (part,), cda=True)
    return parse_static_replacement(text, low)


def parse_static_replacement(text: str, low: str) -> ReplacementSpec | None:
    """614.1a, 614.1c-d, 614.11: the replacement effects of static abilities."""
    if re.match(r"^if a card would be put into a graveyard from anywhere, exile it instead$", low):
        return ReplacementSpec(text, "graveyard", "exile")
    if m := re.match(
        r"^if this (?:creature |permanent |card )?would be put into a graveyard from anywhere, "
        r"(exile it|shuffle it into its owner's library) instead$",
        low,
    ):
        return ReplacementSpec(text, "graveyard", _where(m.group(1)), who="self")
    if m := re.match(
        r"^if (a|a nontoken|this) creature(?: (an opponent|you) controls?)? would die, "
        r"(exile it|return it to its owner's hand|shuffle it into its owner's library) instead$",
        low,
    ):
        who = {"a": "any", "a nontoken": "any", "this": "self"}[m.group(1)]
        if m.group(2):
            who = "opponents" if m.group(2) == "an opponent" else "yours"
        return ReplacementSpec(text, "die", _where(m.group(3)), who=who)
    if re.match(r"^this (?:creature |land |permanent |artifact |enchantment )?enters tapped$", low):
        return ReplacementSpec(text, "enter", "tapped", who="self")
    if m := re.match(r"^(creatures|permanents|lands) your opponents control enter tapped$", low):
        return ReplacementSpec(text, "enter", "tapped", who="opponents " + _singular(m.group(1)))
    if m := re.match(r"^this (?:creature )?enters with (\w+) \+1/\+1 counters?(?: on it)?$", low):
        return ReplacementSpec(text, "enter", "counters", who="self", amount=_count(m.group(1)))
    if m := re.match(
        r"^each other creature you control enters with (an|\w+) additional \+1/\+1 "
        r"counters?(?: on it)?$",
        low,
    ):
        amount = _count(m.group(1))
        return ReplacementSpec(text, "enter", "counters", who="other yours", amount=amount)
    if re.match(
        r"^if you would draw a card while your library has no cards in it, you win the game "
        r"instead$",
        low,
    ):
        return ReplacementSpec(text, "draw", "win", who="you", empty_library=True)
    if m := re.match(r"^if you would draw a card, (.+) instead$", low):
        return ReplacementSpec(text, "draw", "effects", who="you", instead=m.group(1))
    if m := re.match(r"^if a source would deal damage to you, prevent (\w+) of that damage$", low):
        return ReplacementSpec(text, "damage", "prevent", who="you", amount=_count(m.group(1)))
    return None


def _where(text: str) -> str:
    return "exile" if text.startswith("exile") else "hand" if "hand" in text else "library"


def _count(word: str) -> int:
    words = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
    if word in words:
        return words[word]
    return bounded(word, "count", error=LayerTextError)


def parse_whole_effect(text: str) -> tuple[str, Any, str | None] | None:
    """An instruction of a spell or ability that creates a continuous, replacement or
    prevention effect, read as a whole before it is split at "and": (kind, spec, target word),
    or None."""
    low = _oracle(" ".join(text.lower().replace("’", "'").split()).rstrip("."))
    if low.startswith("change the text of "):
        return _text_change(low)
    if m := re.match(
        r"^target creature loses all abilities and becomes an? (\w+) (\w+) with base power and "
        r"toughness (\d+)/(\d+)( until end of turn)?$",
        low,
    ):
        color, kind = m.group(1), m.group(2)
        if color not in COLORS:
            raise LayerTextError(f"unknown color {color!r} (known: {', '.join(COLORS)})")
        if kind not in CREATURE_TYPES:
            raise LayerTextError(f"unknown creature type {kind!r}")
        pt = (_pt(m.group(3), "power"), _pt(m.group(4), "toughness"))
        parts = (
            LayerPart("4", "creature type", kind),
            LayerPart("5", "color", color),
            LayerPart("6", "lose all"),
            LayerPart("7b", "set pt", pt),
        )
        return "continuous", LayerSpec(parts, "end of turn" if m.group(5) else ""), "creature"
    if m := re.match(
        r"^gain control of target creature(?: (until end of turn|for as long as you control "
        r"this(?: creature| permanent)?))?(, untap (?:it|that creature),? and it gains haste "
        r"until end of turn)?$",
        low,
    ):
        until = {"": "", "until end of turn": "end of turn"}.get(m.group(1) or "", "control")
        spec = LayerSpec((LayerPart("2", "control"),), until, haste=bool(m.group(2)))
        return "continuous", spec, "creature"
    if m := re.match(r"^switch target creature's power and toughness( until end of turn)?$", low):
        spec = LayerSpec((LayerPart("7d", "switch"),), "end of turn" if m.group(1) else "")
        return "continuous", spec, "creature"
    if m := re.match(
        r"^target creature (?:becomes|has base power and toughness) (\d+)/(\d+) until end of "
        r"turn$",
        low,
    ):
        pt = (_pt(m.group(1), "power"), _pt(m.group(2), "toughness"))
        return "continuous", LayerSpec((LayerPart("7b", "set pt", pt),), "end of turn"), "creature"
    if re.match(r"^target creature loses all abilities until end of turn$", low):
        return "continuous", LayerSpec((LayerPart("6", "lose all"),), "end of turn"), "creature"
    return parse_whole_replacement(text, low)


def parse_whole_replacement(text: str, low: str) -> tuple[str, Any, str | None] | None:
    """The replacement and prevention effects a resolving spell or ability creates."""
    if m := re.match(
        r"^prevent the next (\w+) damage that would be dealt to (any target|target creature|"
        r"target player|you) this turn$",
        low,
    ):
        target = {"any target": "any", "target creature": "creature", "target player": "player"}
        word = target.get(m.group(2))
        spec = ReplacementSpec(
            text,
            "damage",
            "prevent",
            who="target" if word else "you",
            amount=_count(m.group(1)),
            this_turn=True,
        )
        return "shield", spec, word
    if re.match(r"^prevent all combat damage that would be dealt this turn$", low):
        return "shield", ReplacementSpec(text, "combat damage", "prevent", this_turn=True), None
    if m := re.match(r"^regenerate (target creature|this creature)$", low):
        who = "target" if m.group(1).startswith("target") else "self"
        spec = ReplacementSpec(text, "destroy", "regenerate", who=who, this_turn=True)
        return "shield", spec, "creature" if who == "target" else None
    if re.match(r"^if that creature would die this turn, exile it instead$", low):
        spec = ReplacementSpec(text, "die", "exile", who="that creature", this_turn=True)
        return "shield", spec, None
    if re.match(r"^if (?:it|that creature) would die this way, exile it instead$", low):
        spec = ReplacementSpec(
            text, "die", "exile", who="that creature", self_replacement=True, this_turn=True
        )
        return "shield", spec, None
    return None


_TEXT_CHANGE = re.compile(
    r"^change the text of (target [a-z ]+?) by replacing all instances of (?:one (color|basic "
    r"land type) word with another|([a-z]+) with ([a-z]+))( until end of turn)?"
    r"(?:\.? ?\(this effect lasts indefinitely\.?\))?$"
)


def _text_change(low: str) -> tuple[str, Any, str | None]:
    """612, 613.1c: "change the text of target permanent by replacing all instances of one color
    word with another" (Sleight of Mind), "… one basic land type word with another" (Magical
    Hack), or "… of swamp with island" (the words fixed in the text). The words of the first
    forms are chosen as it resolves: ``Alice announces for Magical Hack: change swamp to
    island``."""
    m = _TEXT_CHANGE.match(low)
    if not m:
        raise LayerTextError(
            f"cannot read the text-changing effect {low!r} (known: 'change the text of target "
            "permanent by replacing all instances of one color word with another', '… of one "
            "basic land type word with another', '… of <word> with <word>', optionally 'until "
            "end of turn')"
        )
    if m.group(1) != "target permanent":
        raise LayerTextError(
            f"a text-changing effect here changes the text of 'target permanent', not "
            f"{m.group(1)!r} (the text of a spell on the stack is not modelled)"
        )
    if m.group(2):
        value: tuple[str, str | None, str | None] = (m.group(2), None, None)
    else:
        old, new = _text_word(m.group(3)), _text_word(m.group(4))
        kinds = {k for k, words in TEXT_WORDS.items() for w in (old, new) if w in words}
        if len(kinds) != 1 or old == new:
            raise LayerTextError(
                f"'{m.group(3)} with {m.group(4)}': a text-changing effect replaces one color word "
                f"with another ({', '.join(COLORS)}) or one basic land type word with another "
                f"({', '.join(BASIC_LAND_TYPES)}) (612.2)"
            )
        value = (kinds.pop(), old, new)
    spec = LayerSpec((LayerPart("3", "text", value),), "end of turn" if m.group(5) else "")
    return "continuous", spec, "permanent"


def _text_word(word: str) -> str:
    """A color or basic land type word as the engine names it (``swamps`` -> ``swamp``)."""
    word = word.lower()
    return word if word in (*COLORS, *BASIC_LAND_TYPES) else _singular(word)


def check_text_words(kind: str, old: str, new: str) -> tuple[str, str]:
    """The two words of an announced text change, checked against their kind (612.2)."""
    old, new = _text_word(old), _text_word(new)
    words = TEXT_WORDS[kind]
    for word in (old, new):
        if word not in words:
            raise LayerTextError(f"{word!r} is not a {kind} word (known: {', '.join(words)})")
    if old == new:
        raise LayerTextError(f"'{old} to {new}': the new word must differ from the old one")
    return old, new
