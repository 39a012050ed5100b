"""Reader of the French wiki page format ("La priorité"): commentary, then two rule quotes.

The page holds French prose, then "La traduction française des règles dit a dit :" and the French
text of some rules, then "La version originale officielle des règles dit a dit :" and the English
original of the same rules. Neither quote is dated: the numbering is read from where "Timing and
Priority" sits (116: the rules of July 2010 - June 2019). Three documents come out: the commentary
and one partial rules text per language.
"""

from __future__ import annotations

import re
from pathlib import Path

from kb.sources import wiki
from kb.sources.records import Problem, SourceDoc, SourceError

FORMAT = "fr-wiki"
#: The two markers that introduce the quotes ("dit a dit" is the wiki's own typo, kept as printed).
FR_QUOTE = re.compile(r"^\s*La traduction fran[çc]aise des r[èe]gles .*:\s*$", re.IGNORECASE)
EN_QUOTE = re.compile(
    r"^\s*La version originale (?:officielle )?des r[èe]gles .*:\s*$", re.IGNORECASE
)


def looks_like(text: str) -> bool:
    """True if the text has the French wiki's quote markers."""
    lines = text.split("\n")
    return any(FR_QUOTE.match(x) for x in lines) or any(EN_QUOTE.match(x) for x in lines)


def read(path: Path, text: str) -> list[SourceDoc]:
    """Read a French wiki page: ``[commentary (fr), French quote, English quote]``."""
    name = str(path)
    lines = wiki.numbered_lines(text)
    fr_at = next((i for i, x in enumerate(lines) if FR_QUOTE.match(x.text)), None)
    en_at = next((i for i, x in enumerate(lines) if EN_QUOTE.match(x.text)), None)
    if fr_at is None and en_at is None:
        raise SourceError(name, "no quote marker ('La traduction française des règles … :')", 1)
    marks = sorted(i for i in (fr_at, en_at) if i is not None)
    prose = lines[: marks[0]]
    problems: list[Problem] = []

    quotes: list[SourceDoc] = []
    for lang, at in (("fr", fr_at), ("en", en_at)):
        if at is None:
            problems.append(Problem(name, None, f"no {lang} quote on this page"))
            continue
        end = min((m for m in marks if m > at), default=len(lines))
        quotes.append(_quote(name, lang, lines[at + 1 : end], at + 1))

    rules_about = wiki.top_rules(r for q in quotes for r in q.rules)
    numbering = next((q.numbering for q in quotes if q.numbering), None)
    pairs = wiki.harvest_fr_linked_terms(prose)
    commentary = SourceDoc(
        path=name,
        lang="fr",
        kind="commentary",
        format=FORMAT,
        numbering=numbering,
        title=_title(prose),
        part="commentary",
        term_pairs=pairs,
        problems=problems,
    )
    terms = [p.term for p in pairs]
    for record in wiki.commentary_records(prose, "fr", rules_about, [], None):
        record.about_terms = [t for t in terms if t in record.text]
        commentary.commentary.append(record)
    wiki.number_keys(commentary.commentary)
    if not commentary.commentary:
        commentary.problems.append(Problem(name, 1, "no commentary before the quotes"))
    for quote in quotes:
        if quote.numbering is None and numbering is not None:
            # Both quotes are the same rules in two languages: one numbering serves both.
            quote.numbering = numbering
    return [commentary, *quotes]


def _title(prose: list[wiki.Line]) -> str | None:
    """The page's subject: the opening words of its first sentence ("La priorité est …")."""
    for line in prose:
        match = re.match(r"^\s*((?:L[ae]s?|L['’])\s*\S+?)\s+(?:est|sont)\b", line.text)
        if match:
            return match.group(1)
        if line.text.strip():
            return None
    return None


def _quote(path: str, lang: str, lines: list[wiki.Line], marker_line: int) -> SourceDoc:
    """One quote block: numbered rule lines, continuation lines joined to the rule above."""
    doc = SourceDoc(path=path, lang=lang, kind="cr-partial", format=FORMAT, part=lang)
    rules = wiki.read_rule_lines(lines, " ", path, doc.problems)
    if not rules:
        doc.problems.append(Problem(path, marker_line, f"the {lang} quote holds no rule"))
    doc.rules = rules
    doc.numbering = wiki.numbering_of(rules)
    return doc
