"""Reader of the Japanese MTG Wiki page format (優先権): commentary sections, then a CR quote.

The page opens with its title and "提供:MTG Wiki", explains the subject under headings (概要, …),
and quotes the Japanese Comprehensive Rules after "引用:総合ルール 20231117.0" as bullets
("- 116.1 …"). The version names the English edition it translates (20231117 -> 2023-11-17).
Japanese/English pairs written as 「優先権/Priority」 are harvested for the term base.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from kb.sources import wiki
from kb.sources.records import CommentaryRecord, Problem, SourceDoc, SourceError

FORMAT = "ja-mtgwiki"
PROVIDER = re.compile(r"^\s*提供\s*[:：]\s*MTG\s*Wiki\s*$", re.IGNORECASE)
QUOTE = re.compile(r"^\s*引用\s*[:：]\s*総合ルール\s*(?P<version>(?P<ymd>\d{8})(?:\.\d+)?)\s*$")
TOC = re.compile(r"^\s*目次\s*\|?\s*$")
#: A heading: a short line that is neither a bullet nor a sentence (no 。、 ending, no colon).
_SENTENCE_END = ("。", "、", "：", ":", ")", "）", "」")


def looks_like(text: str) -> bool:
    """True if the text names MTG Wiki as provider or quotes the Japanese CR with its version."""
    lines = text.split("\n")[:400]
    return any(PROVIDER.match(x) or QUOTE.match(x) for x in lines)


def version_date(version: str) -> str | None:
    """``20231117.0`` -> ``2023-11-17`` (None if the digits are not a date)."""
    try:
        return date(int(version[:4]), int(version[4:6]), int(version[6:8])).isoformat()
    except ValueError:
        return None


def _is_heading(text: str) -> bool:
    raw = text.strip()
    return (
        0 < len(raw) <= 30
        and not raw.startswith(("-", "・", "*", "「"))
        and not raw.endswith(_SENTENCE_END)
        and "。" not in raw
    )


def read(path: Path, text: str) -> list[SourceDoc]:
    """Read a Japanese wiki page: ``[commentary (ja), Japanese quote]`` (the quote if present)."""
    name = str(path)
    lines = wiki.numbered_lines(text)
    quote_at = next((i for i, x in enumerate(lines) if QUOTE.match(x.text)), None)
    prose = lines if quote_at is None else lines[:quote_at]
    if not any(x.text.strip() for x in prose) and quote_at is None:
        raise SourceError(name, "empty Japanese wiki page", 1)

    commentary = SourceDoc(
        path=name, lang="ja", kind="commentary", format=FORMAT, part="commentary"
    )
    body = _commentary(prose, commentary)
    commentary.term_pairs = wiki.harvest_ja_pairs(prose)
    docs = [commentary]
    if quote_at is not None:
        quote = _quote(name, lines[quote_at], lines[quote_at + 1 :])
        docs.append(quote)
        commentary.numbering = quote.numbering
    terms = list(dict.fromkeys(t for p in commentary.term_pairs for t in (p.term, p.en) if t))
    if commentary.title and commentary.title not in terms:
        terms.insert(0, commentary.title)
    for record in body:
        record.about_terms = list(terms)
    commentary.commentary = wiki.number_keys(body)
    return docs


def _commentary(prose: list[wiki.Line], doc: SourceDoc) -> list[CommentaryRecord]:
    """Group the prose under its headings: one record per section, bullets kept as lines."""
    out: list[CommentaryRecord] = []
    heading: str | None = None
    current: CommentaryRecord | None = None
    content = [x for x in prose if x.text.strip()]
    for i, line in enumerate(content):
        raw = line.text.strip()
        if i == 0 and _is_heading(raw):
            doc.title = raw
            continue
        if PROVIDER.match(raw) or TOC.match(raw):
            continue
        nxt = content[i + 1].text.strip() if i + 1 < len(content) else ""
        if _is_heading(raw) and (not nxt or not _is_heading(nxt) or nxt.startswith("-")):
            heading = raw
            current = None
            continue
        if _is_heading(raw):
            # Two headings in a row ("ルール" then "概要"): the first is a parent section.
            heading = raw
            current = None
            continue
        if current is None:
            current = CommentaryRecord("", raw, line.number, heading, wiki.rule_refs(raw, "ja"))
            out.append(current)
        else:
            current.text += "\n" + raw
            current.about_rules.extend(
                r for r in wiki.rule_refs(raw, "ja") if r not in current.about_rules
            )
    return out


def _quote(path: str, marker: wiki.Line, lines: list[wiki.Line]) -> SourceDoc:
    """The quoted Japanese rules: bullets "- 116.2a …", headings "- 116 特別な処理"."""
    match = QUOTE.match(marker.text)
    assert match is not None
    version = match["version"]
    doc = SourceDoc(
        path=path,
        lang="ja",
        kind="cr-partial",
        format=FORMAT,
        version=version,
        title=f"総合ルール {version}",
        part="ja",
    )
    iso = version_date(match["ymd"])
    if iso is None:
        doc.problems.append(Problem(path, marker.number, f"version {version} is not a date"))
    doc.date = doc.translates = doc.numbering = iso
    rules = wiki.read_rule_lines(lines, "\n", path, doc.problems)
    if not rules:
        doc.problems.append(Problem(path, marker.number, "the quote holds no rule"))
    doc.rules = rules
    return doc
