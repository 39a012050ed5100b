"""Reader of the bilingual French/English rules site format (one page per rule, e.g. rule 505).

The page opens with "Règles US [30/09/2011] Règles FR [04/02/2011]" (the dates of the English
edition and of the French translation the site follows), a table of contents of the nine sections,
then a heading such as "505. Turn Structure : Main Phase" and each rule number alone on its line
with the text on the next one. The text is kept as printed (‘ for apostrophes, «» for quotes).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from kb.sources import wiki
from kb.sources.records import Problem, RuleRecord, SourceDoc, SourceError

FORMAT = "bilingual-site"
HEADER = re.compile(
    r"R[èe]gles\s+US\s*\[(?P<us>\d{1,2}/\d{1,2}/\d{4})\]\s*R[èe]gles\s+FR\s*\[(?P<fr>\d{1,2}/\d{1,2}/\d{4})\]",
    re.IGNORECASE,
)
TOC = re.compile(r"^\s*Sommaire\s*$", re.IGNORECASE)
TOC_ENTRY = re.compile(r"^\s*\d\.\s+\S")
#: "505. Turn Structure : Main Phase": the rule, its section's title, then its own title.
RULE_HEADING = re.compile(
    r"^\s*(?P<number>\d{3})\.\s+(?P<section>[^:]+?)\s*:\s*(?P<title>\S.*?)\s*$"
)


def looks_like(text: str) -> bool:
    """True if the page carries the site's "Règles US [..] Règles FR [..]" header."""
    return HEADER.search(text[:4000]) is not None


def french_date(text: str) -> str | None:
    """``30/09/2011`` -> ``2011-09-30`` (None if it is not a date)."""
    try:
        day, month, year = (int(x) for x in text.split("/"))
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def read(path: Path, text: str) -> list[SourceDoc]:
    """Read one page of the site into a partial English rules text dated by its "US" header."""
    name = str(path)
    lines = wiki.numbered_lines(text)
    content = [x for x in lines if x.text.strip()]
    if not content:
        raise SourceError(name, "empty page", 1)
    doc = SourceDoc(path=name, lang="en", kind="cr-partial", format=FORMAT)
    doc.title = content[0].text.strip()
    header = next(((x, HEADER.search(x.text)) for x in content if HEADER.search(x.text)), None)
    if header is None:
        doc.problems.append(Problem(name, None, "no 'Règles US [..] Règles FR [..]' header"))
    else:
        line, match = header
        doc.date = french_date(match["us"])
        if doc.date is None:
            doc.problems.append(Problem(name, line.number, f"bad date {match['us']!r}"))
        doc.numbering = doc.date
        doc.version = None
    rules: list[RuleRecord] = []
    in_toc = False
    pending: wiki.Line | None = None  # a rule number waiting for its text on the next line
    for line in content:
        raw = line.text.strip()
        if header is not None and line is header[0]:
            continue
        if line is content[0]:
            continue
        if TOC.match(raw):
            in_toc = True
            continue
        heading = RULE_HEADING.match(raw)
        if heading:
            in_toc = False
            _flush(pending, rules, name, doc)
            pending = None
            wiki.add_rule_line(
                rules, heading["number"], heading["title"], line.number, name, doc.problems
            )
            continue
        if in_toc and TOC_ENTRY.match(raw):
            continue
        in_toc = False
        alone = wiki.NUMBER_ONLY.match(raw)
        if alone:
            _flush(pending, rules, name, doc)
            pending = line
            continue
        if pending is not None:
            number = wiki.NUMBER_ONLY.match(pending.text)
            assert number is not None
            parsed = wiki.parse_rule_line(f"{number['number']} {raw}")
            if parsed is None:
                doc.problems.append(
                    Problem(name, pending.number, f"not a rule number: {pending.text.strip()!r}")
                )
            else:
                wiki.add_rule_line(rules, parsed[0], parsed[1], pending.number, name, doc.problems)
            pending = None
            continue
        wiki.read_rule_line(rules, line, " ", name, doc.problems)
    _flush(pending, rules, name, doc)
    if not rules:
        raise SourceError(name, "no rule on this page", content[0].number)
    doc.rules = rules
    return [doc]


def _flush(pending: wiki.Line | None, rules: list[RuleRecord], path: str, doc: SourceDoc) -> None:
    """A rule number left without text is reported, not invented."""
    if pending is not None:
        doc.problems.append(
            Problem(path, pending.number, f"rule {pending.text.strip()} has no text: not read")
        )
