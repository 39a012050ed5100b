"""Reader of the English wiki page format ("Priority"): rule bullets and dated glossary quotes.

Rules are quoted as lines or bullets ("- 117.1a …"); glossary entries follow a line such as
"From the glossary of the Comprehensive Rules (July 30, 2024—Bloomburrow)", with the term and its
definition run together on the next line ("Pass in Succession All players …"). The edition date
comes from that line. Sections such as "External links" are kept as commentary, not rules.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from kb.sources import wiki
from kb.sources.records import (
    CommentaryRecord,
    GlossaryRecord,
    Problem,
    RuleRecord,
    SourceDoc,
    SourceError,
)

FORMAT = "en-wiki"
GLOSSARY_INTRO = re.compile(
    r"^\s*From the glossary of the Comprehensive Rules\s*\((?P<date>[A-Z][a-z]+ \d{1,2}, \d{4})"
    r"(?:\s*[—–-]\s*(?P<set>[^)]*))?\)\s*$"
)
#: A wiki section heading: "External links [ | ]", "See also", "References".
HEADING = re.compile(r"^\s*(?P<title>[A-Z][A-Za-z ]{2,40}?)\s*(?:\[\s*\|?\s*\])?\s*$")
#: Lower-case words allowed inside a glossary term ("Pass in Succession", "End of Combat Step").
_TERM_JOINERS = {"a", "an", "and", "in", "of", "on", "or", "the", "to", "with", "from", "per"}


def looks_like(text: str) -> bool:
    """True for an English page quoting rule bullets or dated glossary entries."""
    if any(GLOSSARY_INTRO.match(x) for x in text.split("\n")):
        return True
    bullets = re.findall(r"(?m)^- \d{3}\.\d{1,3}[a-z]? [A-Z]", text)
    return len(bullets) >= 2


def iso_date(text: str) -> str | None:
    """``July 30, 2024`` -> ``2024-07-30`` (None if it is not such a date)."""
    try:
        return datetime.strptime(text.strip(), "%B %d, %Y").date().isoformat()
    except ValueError:
        return None


def split_term(line: str) -> tuple[str, str] | None:
    """Split "Pass in Succession All players …" into ``("Pass in Succession", "All players …")``.

    The term is the longest run of capitalised words (lower-case joiners such as "in", "of"
    allowed inside) such that the rest starts a sentence: a capitalised word followed by a
    lower-case one, or a quotation. None if no split leaves a definition.
    """
    words = line.split()
    best: int | None = None
    for end in range(1, len(words)):
        term_words = words[:end]
        if not _is_term_word(term_words[-1], last=True):
            continue
        if not all(_is_term_word(w, last=False) for w in term_words):
            break
        if _starts_sentence(words[end:]):
            best = end
    if best is None:
        return None
    return " ".join(words[:best]), " ".join(words[best:])


def _is_term_word(word: str, *, last: bool) -> bool:
    if word[:1].isupper() or word[:1].isdigit():
        return True
    return not last and word in _TERM_JOINERS


def _starts_sentence(rest: list[str]) -> bool:
    if not rest:
        return False
    first = rest[0]
    if first[:1] in "“\"‘'(":
        return True
    if not first[:1].isupper():
        return False
    # "To decline …", "An instant …": a sentence goes on in lower case; a term would not.
    return len(rest) == 1 or not rest[1][:1].isupper() or rest[1] in ("I",)


def read(path: Path, text: str) -> list[SourceDoc]:
    """Read an English wiki page into one partial rules document with its glossary quotes."""
    name = str(path)
    doc = SourceDoc(path=name, lang="en", kind="cr-partial", format=FORMAT)
    lines = wiki.numbered_lines(text)
    rules: list[RuleRecord] = []
    dates: list[tuple[str, int]] = []
    pending_glossary: int | None = None
    heading: str | None = None
    extra: list[CommentaryRecord] = []
    for line in lines:
        raw = line.text.strip()
        if not raw:
            continue
        intro = GLOSSARY_INTRO.match(raw)
        if intro:
            date = iso_date(intro["date"])
            if date is None:
                doc.problems.append(
                    Problem(name, line.number, f"unreadable date {intro['date']!r}")
                )
            else:
                dates.append((date, line.number))
            pending_glossary = line.number
            continue
        if pending_glossary is not None:
            pending_glossary = None
            split = split_term(raw)
            if split is None:
                doc.problems.append(
                    Problem(name, line.number, "glossary quote without a term: not read")
                )
                continue
            term, definition = split
            doc.glossary.append(
                GlossaryRecord(
                    term, definition, line.number, rule_refs=wiki.rule_refs(definition, "en")
                )
            )
            continue
        parsed = None if heading else wiki.parse_rule_line(raw)
        if parsed:
            wiki.add_rule_line(rules, parsed[0], parsed[1], line.number, name, doc.problems)
            continue
        if wiki.EXAMPLE.match(raw) and rules and heading is None:
            rules[-1].examples.append(raw)
            continue
        head = HEADING.match(raw)
        if head and not raw.endswith("."):
            heading = head["title"].strip()
            continue
        if heading is None:
            doc.problems.append(
                Problem(name, line.number, "line outside any rule or section: kept as commentary")
            )
        extra.append(
            CommentaryRecord(
                "", raw.removeprefix("- "), line.number, heading, wiki.rule_refs(raw, "en")
            )
        )
    doc.rules = rules
    doc.commentary = wiki.number_keys(extra)
    if dates:
        doc.date = dates[0][0]
        for date, where in dates[1:]:
            if date != doc.date:
                doc.problems.append(
                    Problem(name, where, f"glossary quoted from {date}, not {doc.date}")
                )
        doc.numbering = doc.date
    elif not rules and not doc.glossary:
        raise SourceError(name, "no quoted rule or glossary entry", 1)
    if not doc.numbering:
        doc.numbering = wiki.numbering_of(rules) or _era_of_numbers(rules)
    top = wiki.top_rules(rules)
    for record in doc.commentary:
        record.about_rules = record.about_rules or top[:1]
    return [doc]


def _era_of_numbers(rules: list[RuleRecord]) -> str | None:
    """Numbering era from quoted subrules of "Timing and Priority" (``117.1a`` -> 2019 on)."""
    tops = wiki.top_rules(rules)
    if len(tops) == 1 and int(tops[0]) in wiki.PRIORITY_RULE_ERAS:
        texts = " ".join(r.text.lower() for r in rules)
        if "priority" in texts:
            return wiki.PRIORITY_RULE_ERAS[int(tops[0])]
    return None
