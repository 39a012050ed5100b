"""What the wiki and site readers share: quoted rule lines, rule references, numbering eras, terms.

The seed pages quote rules as printed lines ("116.1. …", "- 117.1a …", "- 116.2 …"); this module
turns such lines into :class:`RuleRecord` entries, finds "rule 603" references in prose (by :func:`kb.text.references.find_refs`), tells which
numbering a quote follows from where "Timing and Priority" sits, and harvests term pairings
(「優先権/Priority」) and French wiki-linked terms ("Capacité déclenchée") from commentary.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from kb.sources.records import CommentaryRecord, Problem, RuleRecord, TermPair
from kb.text.references import find_refs
from kb.text.rulenum import try_parse

#: A quoted rule line: optional bullet, the number as printed (trailing dot or not), the text.
RULE_LINE = re.compile(
    r"^\s*(?:[-*•·]\s*)?(?P<number>\d{1,3}(?:\.\d{1,3}[a-z]?)?)(?P<dot>\.?)(?:\s+(?P<text>.*\S))?\s*$"
)
#: A number alone on its line ("505.1." on the bilingual site, text on the next line).
NUMBER_ONLY = re.compile(r"^\s*(?P<number>\d{1,3}(?:\.\d{1,3}[a-z]?)?)\.?\s*$")
EXAMPLE = re.compile(r"^\s*(?:Example|Exemple|例)\s*[:：]", re.IGNORECASE)

#: Where rule "Timing and Priority" sits tells the numbering a quote follows (see SOURCES.md).
PRIORITY_RULE_ERAS = {
    115: "2009-07-01..2010-06-30",
    116: "2010-07-01..2019-06-30",
    117: "2019-07-01..",
}
#: Titles of rule "Timing and Priority" and rule "Special Actions" in the three languages.
PRIORITY_TITLES = ("timing and priority", "timing et priorité", "タイミングと優先権")
SPECIAL_ACTION_TITLES = ("special actions", "actions spéciales", "特別な処理")


@dataclass(slots=True)
class Line:
    """One line of a source file with its 1-based number."""

    number: int
    text: str


def numbered_lines(text: str, start: int = 1) -> list[Line]:
    """Split a decoded text into lines, keeping their numbers in the file."""
    return [Line(start + i, raw.rstrip()) for i, raw in enumerate(text.split("\n"))]


def parse_rule_line(text: str) -> tuple[str, str, bool] | None:
    """``(number, text, dotted)`` of a quoted rule line, or None if it does not start with one.

    ``number`` is the short key ("116.1", "116"); ``dotted`` says whether the printed number had a
    trailing period. A bare number is accepted only with some text after it.
    """
    match = RULE_LINE.match(text)
    if not match or not match["text"]:
        return None
    num = try_parse(match["number"])
    if num is None:
        return None
    return str(num), match["text"].strip(), bool(match["dot"])


def rule_refs(text: str, lang: str) -> list[str]:
    """The rule numbers a prose text refers to ("See rule 603" -> ["603"]), in order, once each,
    read by the one reference grammar (:func:`kb.text.references.find_refs`)."""
    return list(dict.fromkeys(ref.number for ref in find_refs(text, lang)))


def add_rule_line(
    rules: list[RuleRecord],
    number: str,
    text: str,
    line: int,
    path: str,
    problems: list[Problem],
) -> None:
    """Append a quoted rule (a top-level number is a heading: its words are its title) and skip
    exact repeats.

    A rule number printed twice with the same text (the Japanese page repeats its "116" heading
    at the end) is dropped with a warning; with a different text both are kept and flagged.
    """
    num = try_parse(number)
    assert num is not None, number
    # Headings carry their words as the title and no text, as the official CR reader does.
    title = text if num.depth <= 1 else None
    text = "" if title is not None else text
    for old in rules:
        if old.number == number:
            if (old.text, old.title) == (text, title):
                problems.append(
                    Problem(path, line, f"rule {number} repeated (same text as line {old.line})")
                )
                return
            problems.append(
                Problem(path, line, f"rule {number} printed twice (also line {old.line})")
            )
            old.flags.append("duplicate-number")
            rules.append(RuleRecord(number, text, line, title, flags=["duplicate-number"]))
            return
    rules.append(RuleRecord(number, text, line, title))


def read_rule_line(
    rules: list[RuleRecord], line: Line, joiner: str, path: str, problems: list[Problem]
) -> None:
    """Place one non-empty line of a rules quote: a numbered rule, an example of the rule above,
    or a continuation joined to that rule with ``joiner`` (reported, since the quotes print one
    rule a line); text before the first rule is reported and not read."""
    raw = line.text.strip()
    bare = raw.removeprefix("- ")
    parsed = parse_rule_line(raw)
    if parsed:
        add_rule_line(rules, parsed[0], parsed[1], line.number, path, problems)
    elif rules and EXAMPLE.match(bare):
        rules[-1].examples.append(bare)
    elif rules:
        rules[-1].text += joiner + raw
        problems.append(
            Problem(path, line.number, f"unnumbered line joined to rule {rules[-1].number}")
        )
    else:
        problems.append(Problem(path, line.number, "text before the first rule: not read"))


def read_rule_lines(
    lines: Iterable[Line], joiner: str, path: str, problems: list[Problem]
) -> list[RuleRecord]:
    """The rules of a quote block, read line by line with :func:`read_rule_line`."""
    rules: list[RuleRecord] = []
    for line in lines:
        if line.text.strip():
            read_rule_line(rules, line, joiner, path, problems)
    return rules


def numbering_of(rules: Iterable[RuleRecord]) -> str | None:
    """The numbering era of quoted rules, from the number of "Timing and Priority" or "Special
    Actions" (its neighbour), or None when the quote holds neither heading."""
    for rule in rules:
        if rule.title is None:
            continue
        title = rule.title.strip().lower()
        num = try_parse(rule.number)
        if num is None or num.depth != 1:
            continue
        if title in PRIORITY_TITLES:
            return PRIORITY_RULE_ERAS.get(num.major)
        if title in SPECIAL_ACTION_TITLES:
            return PRIORITY_RULE_ERAS.get(num.major + 1)
    return None


def top_rules(rules: Iterable[RuleRecord]) -> list[str]:
    """The rule numbers (depth 1, e.g. "116") a quote is about, derived from every quoted number."""
    out: list[str] = []
    for rule in rules:
        num = try_parse(rule.number)
        if num is None or num.is_section:
            continue
        top = str(num.major)
        if top not in out:
            out.append(top)
    return out


# ---- term harvesting ---------------------------------------------------------------------

#: 「優先権/Priority」: a Japanese word, a slash (half or full width), an English term.
JA_PAIR = re.compile(
    r"(?P<ja>[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff々ー・]+)\s*[/／]\s*"
    r"(?P<en>[A-Za-z][A-Za-z'’-]*(?:[ ][A-Za-z][A-Za-z'’-]*)*)"
)


#: Particles that end the words before a term ("プレイヤーは優先権/Priority" names 優先権 only).
_JA_PARTICLES = re.compile(r"[はがをにでともやのへ]")


def harvest_ja_pairs(lines: Iterable[Line]) -> list[TermPair]:
    """Japanese/English pairs such as ``優先権/Priority`` written by the Japanese wiki."""
    out: list[TermPair] = []
    for line in lines:
        for match in JA_PAIR.finditer(line.text):
            term = _JA_PARTICLES.split(match["ja"])[-1]
            if term:
                out.append(TermPair("ja", term, match["en"].strip(), line.number))
    return out


#: Words that end a French linked term: the link is a noun phrase, these start what follows it.
_FR_STOP = {
    "à", "au", "aux", "en", "pour", "dans", "avec", "par", "puis", "et", "ou", "qui", "que",
    "qu", "est", "sont", "se", "si", "lorsque", "quand", "ne", "n", "ce", "cette", "il", "elle",
    "ils", "elles", "on", "sans", "après", "avant", "pendant",
}  # fmt: skip
_FR_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿŒœ][A-Za-zÀ-ÖØ-öø-ÿŒœ'’-]*")
_SENTENCE_END = re.compile(r"(?:^|[.!?:;«»“”\"]\s*)$")
#: Capitalised words that start a phrase without being a link (sentence starts are skipped anyway).
_FR_NOT_TERMS = {"Magic", "Gathering", "Cf", "Voir"}


def harvest_fr_linked_terms(lines: Iterable[Line], max_words: int = 6) -> list[TermPair]:
    """French wiki-linked terms: the wiki capitalises a link inside a sentence ("Capacité activée").

    A term starts at a capitalised word that does not start a sentence and runs over the
    following words until punctuation, a word that starts a new phrase (à, en, pour, …) or
    ``max_words`` words. The English is unknown (``en=None``): the term base pairs it.
    """
    out: list[TermPair] = []
    seen: set[str] = set()
    for line in lines:
        text = line.text
        for match in _FR_WORD.finditer(text):
            word = match.group()
            if not word[0].isupper() or word in _FR_NOT_TERMS:
                continue
            if _SENTENCE_END.search(text[: match.start()]):
                continue
            if out and out[-1].line == line.number and _inside_previous(out[-1], text, match):
                continue
            words = [word]
            pos = match.end()
            while len(words) < max_words:
                nxt = re.match(r"[ \u00a0]+", text[pos:])
                if not nxt:
                    break
                follow = _FR_WORD.match(text, pos + nxt.end())
                if not follow or follow.group().lower().strip("'’") in _FR_STOP:
                    break
                words.append(follow.group())
                pos = follow.end()
            term = " ".join(words).rstrip("'’")
            if term not in seen:
                seen.add(term)
                out.append(TermPair("fr", term, None, line.number))
    return out


def _inside_previous(prev: TermPair, text: str, match: re.Match[str]) -> bool:
    """True if this capitalised word belongs to the term just harvested ("Lancer un Sort")."""
    start = text.find(prev.term)
    return start != -1 and start <= match.start() < start + len(prev.term)


def commentary_records(
    lines: Iterable[Line],
    lang: str,
    about_rules: list[str],
    about_terms: list[str],
    heading: str | None,
) -> list[CommentaryRecord]:
    """One commentary record per non-empty paragraph line (keys filled in by the caller), about
    the given rules and those the line refers to."""
    return [
        CommentaryRecord(
            key="",
            text=line.text.strip(),
            line=line.number,
            heading=heading,
            about_rules=list(dict.fromkeys([*about_rules, *rule_refs(line.text, lang)])),
            about_terms=list(about_terms),
        )
        for line in lines
        if line.text.strip()
    ]


def number_keys(records: list[CommentaryRecord]) -> list[CommentaryRecord]:
    """Give commentary records their stable keys ``c1``, ``c2``, … in document order."""
    for i, record in enumerate(records, 1):
        record.key = f"c{i}"
    return records
