"""Which glossary-term matches mean the glossary's term: a term's sense, not only its spelling.

:class:`~kb.text.termmatch.TermMatcher` finds a term wherever its spelling is; a judge reading the
links finds many of those wrong. "In that case" (702.19b) is not the enchantment subtype *Case*,
"removed from the stack" (608.2b) is not the obsolete *Remove from the Game*, "won't" is not
*win*, a "double-faced card" is not the keyword action *double* and a card "turned face down" is
not a *turn*. What decides, from the glossary the edition links with:

- an **obsolete** entry (the edition's glossary says the term is obsolete, its ``obsolete`` flag)
  is not linked at all in that edition: :func:`linkable` (the editions where it was current keep
  it, from their own glossary);
- a **subtype** entry ("An enchantment subtype.") is linked only where the text writes it as a
  subtype, capitalised (the rules capitalise subtypes: "a Case", "Equipment");
- a single word glued to a hyphenated compound ("double-faced", "face-down") or to a
  contraction ("won’t") is another word;
- a few **noun** entries are not linked in a verb form ("turned" is not a turn; "turn it face
  up" neither), a few entries need their context (*move* is moving counters: "moved to the
  stack" is not it), and a capitalised word after another inside a sentence is part of a name
  ("Dry Spell", a card);
- "Instead," opening a sentence is the rules' prose, not the card wording the entry explains.

:func:`senses` reads an edition's glossary once; :func:`keep` filters the spans of one text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kb.knowledge.model import GlossaryEntry

__all__ = ["PLAIN_ALIASES", "Senses", "keep", "linkable", "senses"]

#: An entry whose definition says it is a subtype of a card type ("An enchantment subtype.",
#: "1. An artifact subtype."): the subtypes the rules capitalise.
_SUBTYPE = re.compile(
    r"^(?:\d+\.\s*)?An? (?:artifact|battle|enchantment|land|creature|"
    r"planeswalker|instant|sorcery|spell) subtype\b"
)

#: Noun entries never linked in a verb form (-ed, -ing): "turned face down" is no turn.
NOUN_ONLY = frozenset({"turn", "type", "plane", "level", "option"})

#: Entries linked only in a sentence that also holds one of these words (their sense): *move*
#: moves counters, a *match* is games ("a spell matching that description" is not).
CONTEXT: Mapping[str, tuple[str, ...]] = {"move": ("counter",), "match": ("game",)}

#: Entries not linked when the words after them make them another word: the verb "turn [it]
#: face up / sideways / over" (not a *turn*), "play a subgame" (not *play* a card).
NOT_FOLLOWED_BY: Mapping[str, re.Pattern[str]] = {
    "turn": re.compile(r"(?:\s+\S+){0,3}?\s+(?:face[ -](?:up|down)|sideways|over)\b"),
    "play": re.compile(r"\s+(?:a\s+)?(?:\w+\s+)?(?:sub)?games?\b"),
}

#: Entries whose glossary sense is card wording, not the rules' prose: "Instead, if …" opening
#: a sentence is the rules speaking, not a replacement effect.
NOT_CAPITALISED = frozenset({"instead"})

#: Aliases that are common words in rules prose, never linked on their own: "removed" is
#: removed from the stack, from combat, counters removed, far more often than from the game.
PLAIN_ALIASES = frozenset({"removed"})

_SENTENCE_END = re.compile(r"[.;:!?](?:\s|$)")


@dataclass(frozen=True, slots=True)
class Senses:
    """What an edition's glossary says of its terms' senses: the keys linked only as subtypes."""

    subtypes: frozenset[str] = frozenset()


def linkable(entry: GlossaryEntry) -> bool:
    """False for an entry not to link in the edition whose glossary it is: an obsolete term
    (the editions in which it was current have it without the flag)."""
    return not entry.obsolete


def senses(glossary: Mapping[str, GlossaryEntry] | None) -> Senses:
    """The senses of the terms of one glossary (an edition's, or the newest of its language)."""
    subtypes = frozenset(
        key for key, entry in (glossary or {}).items() if _SUBTYPE.match(entry.definition)
    )
    return Senses(subtypes)


def keep(text: str, spans: list[list[object]], lang: str, sense: Senses) -> list[list[object]]:
    """The spans ``[key, start, end]`` of ``text`` whose words mean the term (see the module's
    docstring); English rules only, the other languages' term names being their own sense."""
    if lang != "en" or not spans:
        return spans
    return [span for span in spans if _means(text, span, sense)]


def _means(text: str, span: list[object], sense: Senses) -> bool:
    key, start, end = str(span[0]), int(span[1]), int(span[2])  # type: ignore[call-overload]
    words = text[start:end]
    after = text[end : end + 3]
    # One word glued to a hyphenated compound or a contraction is another word.
    glued = re.match(r"-\w", after) or re.match(r"['’]t\b", after)
    if glued and " " not in words and "-" not in words:
        return False
    if key in sense.subtypes and not words[:1].isupper():
        return False
    if key in NOT_CAPITALISED and words[:1].isupper():
        return False
    if key not in sense.subtypes and _in_a_name(text, start, words):
        return False
    follow = NOT_FOLLOWED_BY.get(key)
    if follow is not None and follow.match(text, end):
        return False
    if key in NOUN_ONLY and words.lower().endswith(("ed", "ing")) and not key.endswith("ing"):
        return False
    context = CONTEXT.get(key)
    if context is not None:
        sentence = _sentence(text, start, end).lower()
        if not any(word in sentence for word in context):
            return False
    return True


def _in_a_name(text: str, start: int, words: str) -> bool:
    """A capitalised word after another capitalised word inside a sentence: part of a name
    ("Dry Spell" in a list of card names), not the term."""
    if not words[:1].isupper() or " " in words:
        return False
    before = re.search(r"(?:^|[^\w’'-])([A-Z][\w’'-]*) $", text[max(0, start - 40) : start])
    if before is None:
        return False
    head = start - len(before.group(1)) - 1
    opening = text[:head].rstrip()
    return bool(opening) and opening[-1] not in '.:!?“"(—'


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` around ``start:end``."""
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return text[before[-1] if before else 0 : after.start() if after else len(text)]
