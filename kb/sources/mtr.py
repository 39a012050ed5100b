"""Readers of the Magic Tournament Rules (MTR): French shortcut bullets and the English PDF text.

Two formats. ``mtr-bullets``: the French section 4.2 (tournament shortcuts) as "· " bullets, one
:class:`TournamentRecord` per bullet; a bullet broken by a blank line lost a mana symbol in
extraction and is joined and flagged, never dropped or repaired. ``mtr-en``: the English MTR as
extracted from the published PDF, with its line wraps, italic words on lines of their own and
"[page N]" markers; wrapped lines are joined, markers dropped, and each section becomes a heading
record ("4.2") followed by its paragraphs ("4.2-p1", …) and its bullets or numbered items
("4.2-1", …).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from kb.sources import wiki
from kb.sources.records import Problem, SourceDoc, SourceError, TournamentRecord

BULLETS_FORMAT = "mtr-bullets"
EN_FORMAT = "mtr-en"

# ---- French bullets ----------------------------------------------------------------------

FR_BULLET = re.compile(r"^\s*[·•]\s+(?P<text>\S.*)$")
SECTION_IN_NAME = re.compile(r"(?<![\d.])(?P<section>\d{1,2}\.\d{1,2})(?![\d])")


def looks_like_bullets(text: str) -> bool:
    """True for a list of "· " bullets written in French (most non-empty lines are bullets)."""
    lines = [x for x in text.split("\n") if x.strip()]
    bullets = [x for x in lines if FR_BULLET.match(x)]
    french = re.search(r"\b(?:joueur|priorité|adversaire|à moins)\b", text, re.IGNORECASE)
    return len(bullets) >= 3 and len(bullets) * 2 >= len(lines) and french is not None


def read_bullets(path: Path, text: str) -> list[SourceDoc]:
    """Read French MTR bullets: one record per bullet, broken bullets joined and flagged."""
    name = str(path)
    doc = SourceDoc(path=name, lang="fr", kind="mtr", format=BULLETS_FORMAT)
    section = _section_for(path, text, doc)
    items: list[TournamentRecord] = []
    gap: int | None = None  # the line after which blank lines interrupted the current bullet
    for line in wiki.numbered_lines(text):
        raw = line.text.strip()
        bullet = FR_BULLET.match(line.text)
        if bullet:
            items.append(TournamentRecord("", section, bullet["text"].strip(), line.number))
            gap = None
            continue
        if not raw:
            if items and gap is None:
                gap = line.number - 1
            continue
        if not items:
            doc.problems.append(
                Problem(name, line.number, "text before the first bullet: not read")
            )
            continue
        item = items[-1]
        if gap is not None and raw[:1].islower():
            _flag_lost_symbol(doc, item, gap, raw)
        elif gap is not None:
            doc.problems.append(
                Problem(name, line.number, "unbulleted paragraph joined to the bullet above")
            )
        item.text += " " + raw
        gap = None
    if not items:
        raise SourceError(name, "no '· ' bullet found", 1)
    for i, item in enumerate(items, 1):
        item.key = f"{section}-{i}"
    doc.tournament = items
    return [doc]


def _flag_lost_symbol(doc: SourceDoc, item: TournamentRecord, gap: int, follow: str) -> None:
    """A bullet cut by blank lines and resumed in lower case lost something in between."""
    before = item.text.split()[-1] if item.text.split() else ""
    after = follow.split()[0]
    guess = " (the text speaks of X: probably {X})" if re.search(r"\bX\b", follow) else ""
    doc.problems.append(
        Problem(
            doc.path,
            gap,
            f"a symbol seems lost between {before!r} and {after!r}{guess}; text kept as printed",
        )
    )
    if "lost-symbol" not in item.flags:
        item.flags.append("lost-symbol")


def _section_for(path: Path, text: str, doc: SourceDoc) -> str:
    """The MTR section of a bullet list: from the file name, else 4.2 when it is about shortcuts."""
    match = SECTION_IN_NAME.search(path.name)
    if match:
        return match["section"]
    if re.search(r"\bpass\w* la priorité|raccourci", text, re.IGNORECASE):
        doc.problems.append(
            Problem(
                doc.path,
                None,
                "section not stated; assumed 4.2 (tournament shortcuts) from the content",
            )
        )
        return "4.2"
    raise SourceError(doc.path, "MTR bullets of an unknown section (name it in the manifest)")


def set_section(doc: SourceDoc, section: str) -> None:
    """Re-key a bullet list under the section the manifest states (and drop the guess warning)."""
    for i, item in enumerate(doc.tournament, 1):
        item.section = section
        item.key = f"{section}-{i}"
    doc.problems = [p for p in doc.problems if not p.message.startswith("section not stated")]


# ---- English PDF text --------------------------------------------------------------------

PAGE = re.compile(r"^\s*\[page \d+\]\s*$")
LEADERS = re.compile(r"\.{4,}\s*\d+\s*$")
EFFECTIVE = re.compile(r"\bEffective\s+(?P<date>[A-Z][a-z]+ \d{1,2}, \d{4})")
TITLE_WORDS = re.compile(r"TOURNAMENT\s*R\s*ULES|Tournament Rules", re.IGNORECASE)
#: "4.2 Tournament Shortcuts", "1.10  Players", "4.  Communication", "Appendix B—Time Limits".
SECTION = re.compile(r"^(?P<number>\d{1,2}\.\d{1,2})\s+(?P<title>[A-Z][^.]{1,70}?)\s*$")
CHAPTER = re.compile(r"^(?P<number>\d{1,2})\.\s{2,}(?P<title>[A-Z][^.]{1,70}?)\s*$")
APPENDIX = re.compile(r"^Appendix (?P<letter>[A-Z])\s*[—–-]\s*(?P<title>\S.{1,80}?)\s*$")
INTRO = re.compile(r"^Introduction\s*$")
BULLET = re.compile(r"^\s*•\s*(?P<text>.*)$")
NUMBERED = re.compile(r"^\s*\d{1,2}\.\s(?=\S)")
_TERMINAL = re.compile(r"[.!?:;][”’\")]?\s*$")


def looks_like_mtr_en(text: str) -> bool:
    """True for the English MTR text: its title and "Effective <date>", or its section headings."""
    head = text[:6000]
    if TITLE_WORDS.search(head.replace("\n", "")) and EFFECTIVE.search(head):
        return True
    return bool(
        re.search(r"(?m)^\d\.\d{1,2} Tournament (?:Shortcuts|Fundamentals|Types)\s*$", head)
    )


def read_mtr_en(path: Path, text: str) -> list[SourceDoc]:
    """Read the English MTR into one document of heading, paragraph and item records."""
    name = str(path)
    doc = SourceDoc(path=name, lang="en", kind="mtr", format=EN_FORMAT)
    lines = [x for x in wiki.numbered_lines(text) if not PAGE.match(x.text)]
    doc.date = _mtr_date(path, text, doc)
    doc.title = "Magic: The Gathering Tournament Rules"
    toc = {_norm(m.group(1)) for x in lines if (m := re.match(r"^(.*?)\s*\.{4,}", x.text))}
    last_toc = max((i for i, x in enumerate(lines) if LEADERS.search(x.text)), default=-1)
    body = lines[last_toc + 1 :]
    width = _text_width(body)

    records: list[TournamentRecord] = []
    section: str | None = None
    counters = {"p": 0, "item": 0}
    current: TournamentRecord | None = None
    prev_raw = ""
    for line in body:
        raw = line.text.strip()
        if not raw:
            continue
        heading = _heading(raw, toc)
        if heading:
            section, title = heading
            records.append(TournamentRecord(section, section, title, line.number, ["heading"]))
            counters = {"p": 0, "item": 0}
            current = None
            prev_raw = raw
            continue
        if section is None:
            continue  # the cover page before the first heading
        bullet = BULLET.match(raw)
        if bullet or NUMBERED.match(raw):
            counters["item"] += 1
            current = TournamentRecord(
                f"{section}-{counters['item']}",
                section,
                bullet["text"].strip() if bullet else raw,
                line.number,
            )
            records.append(current)
        elif current is None or _ends_paragraph(prev_raw, width):
            counters["p"] += 1
            current = TournamentRecord(f"{section}-p{counters['p']}", section, raw, line.number)
            records.append(current)
        else:
            current.text = _join(current.text, raw)
        prev_raw = raw
    if not records:
        raise SourceError(name, "no MTR section heading found (e.g. '4.2 Tournament Shortcuts')")
    doc.tournament = records
    return [doc]


def _mtr_date(path: Path, text: str, doc: SourceDoc) -> str | None:
    """The effective date printed on the cover, else the one in the file name (with a warning)."""
    match = EFFECTIVE.search(text[:6000])
    if match:
        try:
            return datetime.strptime(match["date"], "%B %d, %Y").date().isoformat()
        except ValueError:
            doc.problems.append(Problem(doc.path, None, f"unreadable date {match['date']!r}"))
    named = re.search(r"(\d{4}-\d{2}-\d{2})", path.name)
    if named:
        doc.problems.append(
            Problem(doc.path, None, f"no 'Effective <date>' line: date {named[1]} from the name")
        )
        return named[1]
    doc.problems.append(Problem(doc.path, None, "no effective date found"))
    return None


def _norm(title: str) -> str:
    return re.sub(r"\s+", " ", title).strip()


def _heading(raw: str, toc: set[str]) -> tuple[str, str] | None:
    """``(section, title)`` when the line is a heading: listed in the table of contents if there
    is one, else shaped like one."""
    if toc and _norm(raw) not in toc:
        return None
    for pattern in (SECTION, CHAPTER):
        match = pattern.match(raw)
        if match:
            return match["number"], _norm(match["title"])
    match = APPENDIX.match(raw)
    if match:
        return f"Appendix {match['letter']}", _norm(match["title"])
    if INTRO.match(raw):
        return "intro", "Introduction"
    return None


def _text_width(lines: list[wiki.Line]) -> int:
    """The usual length of a full line of running text (the PDF's measure)."""
    lengths = sorted(len(x.text.strip()) for x in lines if x.text.strip())
    if not lengths:
        return 100
    return lengths[int(len(lengths) * 0.9)]


def _ends_paragraph(prev: str, width: int) -> bool:
    """A line ends its paragraph when it ends a sentence well short of the full measure."""
    return bool(_TERMINAL.search(prev)) and len(prev) < width * 0.85


def _join(text: str, more: str) -> str:
    """Join a wrapped line: keep hyphenated words whole, no space inside quotes or brackets."""
    if text.endswith("-") and len(text) > 1 and text[-2].isalpha():
        return text + more
    if text.endswith(("“", "(", "[", "‘")) or more.startswith(
        ("”", ")", "]", ",", ".", ";", ":", "’")
    ):
        return text + more
    return f"{text} {more}"
