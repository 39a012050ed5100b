"""Reader of translated Comprehensive Rules published one paragraph a line, whole or in parts.

The Japanese translation team publishes its text so: a header saying when it was translated
(「…を、…が 2026-01-16 に翻訳したものです。」), the contents (もくじ), the introduction, the rules
(``100.1. …``, ``100.1a …``) each on one line with their examples (``例：…``) on the lines after,
the glossary (用語集) as a heading 「日本語（よみ）／English」 and a definition line per entry, the
credits (クレジット) and a last line saying from when the rules are effective. A French text in the
same layout (``Exemple :``, ``Glossaire``, ``Crédits``) reads the same way. Any part of such a text
(an excerpt that starts at a rule or inside the glossary) is read too, as a partial edition of the
translation, so that parts of one translation given together make one edition.

Unlike the official English files (:mod:`kb.sources.cr_text`), no blank line separates the
paragraphs, the glossary headings carry the English name of the entry (paired with the English
glossary at build time by :mod:`kb.build.glossary_pairs`), and the edition is said by the header
or the last line. A file mixed with another language or claiming an impossible edition date
raises :class:`SourceError` with file and line: it is left out, never half read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from kb.sources.records import GlossaryRecord, Problem, RuleRecord, SourceDoc, SourceError
from kb.sources.translated_lines import (
    FORMAT,
    credits_heading,
    effective_date,
    example_prefix,
    file_name_date,
    glossary_heading,
    header_date,
    is_contents_heading,
    ja_glossary_heading,
    line_lang,
    text_lang,
)
from kb.text.references import find_refs
from kb.text.rulenum import RuleNumber, try_parse

__all__ = ["FORMAT", "looks_like", "read"]

_SUBRULE = re.compile(r"^(?P<num>\d{3}\.\d{1,3}[a-z]?)(?:\.\s*|\s+)(?P<text>\S.*)$")
_RULE = re.compile(r"^(?P<num>\d{3})\.\s*(?P<title>\S.*)$")
_SECTION = re.compile(r"^(?P<num>\d)\.\s*(?P<title>[^。.]{1,40})$")
#: An entry of the contents: a section (also "10. 用語集"), or a rule.
_CONTENTS_ENTRY = re.compile(r"^(?P<num>\d{1,3})\.\s*(?P<title>[^。.]{1,40})$")
_OBSOLETE_JA = re.compile(r"^\s*[(（]\s*廃語\s*[)）]\s*")
_OBSOLETE = re.compile(r"\s*[(（]\s*(?:Obsolète|obsolète|Obsolete|廃語|廃止)\s*[)）]\s*$")
_SENSE = re.compile(r"\s*[(（]\s*(\d)\s*[)）]\s*$")
_SEE_JA = re.compile(r"(?:^|[。\s　])「?([^\s　。、「」〔〕0-9A-Za-z]{1,30})」?\s*参照")
_SEE_FR = re.compile(r"\bVoir(?:\s+aussi)?\s+(?!r[èe]gles?\b)([^.0-9][^.]*?)\s*\.")
_WIKI_MARKS = re.compile(r"^\s*(?:提供\s*[:：]\s*MTG\s*Wiki|引用\s*[:：]\s*総合ルール)")


def looks_like(text: str) -> bool:
    """True for a French or Japanese rules text (or part of one) in the one-paragraph-a-line
    layout: its translation header, its last line, its glossary headings 「…（…）／…」, or rule
    lines that follow one another with no blank line between and make most of the text."""
    lines = text.split("\n")
    lang = text_lang(text)
    if lang not in ("ja", "fr") or any(_WIKI_MARKS.match(x) for x in lines[:400]):
        return False
    content = [x.strip() for x in lines if x.strip()]
    if not content:
        return False
    if any(header_date(x) for x in content[:20]) or effective_date(content[-1]):
        return True
    if sum(1 for x in content[:50] if ja_glossary_heading(x)) >= 3:
        return True
    if not (_SUBRULE.match(content[0]) or _RULE.match(content[0])):
        return False  # a page that quotes rules after its own prose (a wiki) is no rules text
    ruled = [bool(_SUBRULE.match(x) or _RULE.match(x) or example_prefix(x)) for x in lines]
    adjacent = sum(1 for a, b in pairwise(ruled) if a and b)
    return adjacent >= 3 and sum(ruled) >= 0.8 * len(content)


@dataclass
class _State:
    """What the reader has seen so far of one file."""

    path: str
    lang: str
    mode: str = "head"  # head, contents, intro, rules, glossary, credits
    problems: list[Problem] = field(default_factory=list)
    rules: list[RuleRecord] = field(default_factory=list)
    seen: dict[str, RuleRecord] = field(default_factory=dict)
    glossary: list[GlossaryRecord] = field(default_factory=list)
    contents: list[str] = field(default_factory=list)
    title: str | None = None
    translated: tuple[str, int] | None = None  # (ISO date, line) of the header
    effective: tuple[str, int] | None = None  # (ISO date, line) of the last line
    previous: RuleNumber | None = None
    current: RuleRecord | None = None  # the rule the next examples belong to
    repeated: bool = False  # the current rule was printed again (its examples may be too)
    pending_term: GlossaryRecord | None = None
    credits_line: int | None = None


def read(path: Path, text: str) -> list[SourceDoc]:
    """Read a translated rules text (or part of one) into one :class:`SourceDoc`: ``cr`` when
    the text is whole, ``cr-partial`` for a part; raises :class:`SourceError` for a file mixed
    with another language, an impossible or self-contradicting edition date, or no rules nor
    glossary at all."""
    name = str(path)
    lang = text_lang(text)
    if lang not in ("ja", "fr"):
        raise SourceError(name, "not a French or Japanese translation of the rules", 1)
    state = _State(name, lang)
    lines = text.split("\n")
    first = next((x.strip() for x in lines if x.strip()), "")
    if _SUBRULE.match(first) or _RULE.match(first) or _SECTION.match(first):
        state.mode = "rules"
    elif ja_glossary_heading(first):
        state.mode = "glossary"
    for index, raw in enumerate(lines):
        line = raw.strip()
        if line:
            _read_line(state, line, index + 1)
    _close_term(state)
    _check_ending(state, lines)
    if not state.rules and not state.glossary:
        raise SourceError(name, "a translated rules text with no rules and no glossary entry", 1)
    date = _edition_date(state, name)
    whole = _is_whole(state)
    return [
        SourceDoc(
            path=name,
            lang=lang,
            kind="cr" if whole else "cr-partial",
            format=FORMAT,
            date=date,
            version=state.translated[0] if state.translated else None,
            numbering=date,
            translates=date,
            title=state.title or _default_title(lang, date),
            rules=state.rules,
            glossary=state.glossary,
            problems=state.problems,
        )
    ]


#: How a paragraph of rules or glossary text ends (a sentence, a quotation, a parenthesis).
_PARAGRAPH_END = ("。", ".", "」", "）", ")", "»", "”", '"', "!", "?", "！", "？", ":", "：")


def _check_ending(state: _State, lines: list[str]) -> None:
    """A text cut short: its last line is a rule, example or definition stopping mid-sentence."""
    lineno, last = next(
        ((i + 1, x.strip()) for i, x in reversed(list(enumerate(lines))) if x.strip()), (0, "")
    )
    if state.mode not in ("rules", "glossary") or last.endswith(_PARAGRAPH_END):
        return
    heading = _RULE.match(last) or _SECTION.match(last) or ja_glossary_heading(last)
    if heading and not _SUBRULE.match(last):
        return
    raise SourceError(
        state.path,
        f"the text stops mid-sentence ({last[-30:]!r}): the file is truncated, so it was not added",
        lineno,
    )


def _default_title(lang: str, date: str | None) -> str:
    base = "総合ルール" if lang == "ja" else "Règles complètes"
    return f"{base} ({date})" if date else base


def _edition_date(state: _State, name: str) -> str | None:
    """The English edition the text translates: its last line, else its header, else the date
    in the file's name (a warning says so); the two in the text must agree."""
    if state.translated and state.effective and state.translated[0] != state.effective[0]:
        raise SourceError(
            name,
            f"the header says translated on {state.translated[0]} (line {state.translated[1]}) "
            f"but the last line says effective from {state.effective[0]}: which edition it "
            "translates is unknown, so it was not added",
            state.effective[1],
        )
    found = state.effective or state.translated
    if found:
        return found[0]
    from_name = file_name_date(name)
    if from_name:
        state.problems.append(
            Problem(
                name,
                None,
                f"no translation header nor effective date in this part: edition {from_name} "
                "taken from the file's name",
            )
        )
        return from_name
    state.problems.append(
        Problem(name, None, "no edition date in the text or the file's name: an undated part")
    )
    return None


def _is_whole(state: _State) -> bool:
    """A whole translation: header, contents, every rule heading the contents list, a glossary
    and the credits."""
    if not (state.translated and state.contents and state.glossary and state.credits_line):
        return False
    have = {r.number for r in state.rules}
    listed = [n for n in state.contents if len(n) == 3 or (len(n) == 1 and n != "0")]
    return all(n in have for n in listed)


def _read_line(state: _State, line: str, lineno: int) -> None:
    """Place one non-empty line according to the part of the text it stands in."""
    found = effective_date(line)
    if found is not None:
        _set_date(state, "effective", found, line, lineno)
        return
    if credits_heading(line, state.lang) and state.mode != "head":
        _close_term(state)
        state.mode, state.credits_line = "credits", lineno
        return
    if state.mode == "credits":
        return
    if glossary_heading(line, state.lang) and state.mode in ("rules", "intro", "glossary"):
        _close_term(state)
        state.mode = "glossary"
        return
    if state.mode == "head":
        _read_head(state, line, lineno)
    elif state.mode == "contents":
        _read_contents(state, line, lineno)
    elif state.mode == "intro":
        section = _SECTION.match(line)
        if section and section["num"] != "0":
            state.mode = "rules"
            _read_rule_line(state, line, lineno)
    elif state.mode == "rules":
        if state.lang == "ja" and ja_glossary_heading(line):
            state.mode = "glossary"
            _read_glossary_line(state, line, lineno)
        else:
            _read_rule_line(state, line, lineno)
    else:
        _read_glossary_line(state, line, lineno)


def _set_date(state: _State, which: str, found: str | None, line: str, lineno: int) -> None:
    if found == "":
        raise SourceError(
            state.path,
            f"claims an edition that does not exist ({line[:60]!r} is no calendar date), so it "
            "was not added",
            lineno,
        )
    assert found is not None
    setattr(state, which, (found, lineno))


def _read_head(state: _State, line: str, lineno: int) -> None:
    found = header_date(line)
    if found is not None:
        _set_date(state, "translated", found, line, lineno)
    elif is_contents_heading(line):
        state.mode = "contents"
    elif _RULE.match(line) or _SUBRULE.match(line):
        state.mode = "rules"
        _read_rule_line(state, line, lineno)


def _read_contents(state: _State, line: str, lineno: int) -> None:
    """A contents entry ("117. タイミングと優先権"), until a line that is none or a section
    the contents listed already (the body's "0. はじめに")."""
    entry = _CONTENTS_ENTRY.match(line)
    if entry and entry["num"] not in state.contents:
        state.contents.append(entry["num"])
        return
    if entry is None:
        state.title = line
        state.mode = "intro"
        return
    state.mode = "intro"
    _read_line(state, line, lineno)


def _read_rule_line(state: _State, line: str, lineno: int) -> None:
    sub = _SUBRULE.match(line)
    head = None if sub else _RULE.match(line)
    section = None if sub or head else _SECTION.match(line)
    if sub or head or section:
        if section and section["num"] == "0":
            state.mode = "intro"
            return
        match = sub or head or section
        assert match is not None
        number = try_parse(match["num"])
        if number is None:
            state.problems.append(Problem(state.path, lineno, f"not a rule number: {line[:40]!r}"))
            return
        key = str(number)
        text = match["text"] if sub else ""
        title = None if sub else match["title"]
        _check_foreign(state, text or title or "", lineno)
        if key in state.seen:
            first = state.seen[key]
            same = (first.text, first.title) == (text, title)
            state.problems.append(
                Problem(
                    state.path,
                    lineno,
                    f"rule {key} printed again (first at line {first.line})"
                    + ("; same text, read once" if same else "; the texts differ, kept the first"),
                )
            )
            state.current, state.repeated = first, True
            return
        if state.previous is not None and number < state.previous:
            state.problems.append(
                Problem(state.path, lineno, f"rule {key} is out of order (after {state.previous})")
            )
        record = RuleRecord(key, text, lineno, title=title)
        state.rules.append(record)
        state.seen[key] = record
        state.previous = number
        state.current, state.repeated = record, False
        return
    current = state.current
    prefix = example_prefix(line)
    if prefix is not None:
        if current is None:
            state.problems.append(
                Problem(state.path, lineno, "example before the first rule; cannot be placed")
            )
            return
        example = line[prefix:].strip()
        _check_foreign(state, example, lineno)
        if not (state.repeated and example in current.examples):
            current.examples.append(example)
        return
    if current is None:
        state.problems.append(
            Problem(state.path, lineno, f"line before the first rule, not placed: {line[:60]!r}")
        )
        return
    _check_foreign(state, line, lineno)
    current.text = f"{current.text}\n{line}" if current.text else line
    state.problems.append(
        Problem(
            state.path,
            lineno,
            f"unnumbered line attached to rule {current.number} as a continuation",
        )
    )


def _check_foreign(state: _State, text: str, lineno: int) -> None:
    """Raise for a line written in another language than the text's (a mixed file)."""
    found = line_lang(text)
    if found is not None and found != state.lang:
        names = {"en": "English", "fr": "French", "ja": "Japanese"}
        raise SourceError(
            state.path,
            f"this line is in {names[found]} in a {names[state.lang]} translation: a file mixed "
            f"with another language is not added ({text[:50]!r})",
            lineno,
        )


# ---- the glossary -----------------------------------------------------------------------------


def _read_glossary_line(state: _State, line: str, lineno: int) -> None:
    """A heading starts an entry, the line after it is its definition, later lines continue it.

    Japanese headings are known by their form 「日本語（よみ）／English」; in other languages a
    heading is the line after a definition (one paragraph a line), unless it opens a numbered
    sense ("2. …")."""
    pending = state.pending_term
    if state.lang == "ja":
        is_heading = ja_glossary_heading(line) is not None
    else:
        is_heading = (pending is None or bool(pending.definition)) and not re.match(r"\d\.", line)
        is_heading = is_heading and len(line) <= 80 and not line.endswith((".", ":", "。"))
    if is_heading:
        _close_term(state)
        state.pending_term = _heading_record(state, line, lineno)
        return
    if pending is None:
        state.problems.append(
            Problem(state.path, lineno, f"glossary line before any heading: {line[:60]!r}")
        )
        return
    _check_foreign(state, line, lineno)
    pending.definition = f"{pending.definition}\n{line}" if pending.definition else line


def _heading_record(state: _State, line: str, lineno: int) -> GlossaryRecord:
    """A glossary heading: the term and its aliases, the reading, the English names and the
    sense number of a Japanese heading that splits one English entry ("Draw(1)")."""
    record = GlossaryRecord(term=line, definition="", line=lineno)
    head = line
    parts = ja_glossary_heading(line)
    english = ""
    if parts is not None:
        head, record.reading, english = parts
    elif "／" in line:
        head, _, english = line.partition("／")
    marker = _OBSOLETE.search(head)
    if marker:
        record.obsolete = True
        head = head[: marker.start()]
    sense = _SENSE.search(english)
    if sense:
        record.sense = int(sense[1])
        english = english[: sense.start()]
    record.en_names = _english_names(english)
    record.en_heading = english
    head = head.strip()
    if not head and record.reading:
        head = record.reading
        state.problems.append(
            Problem(
                state.path,
                lineno,
                f"glossary heading without its term ({line!r}): read under its reading {head!r}",
            )
        )
    names = _names(head, state.lang, len(record.en_names))
    record.term, record.aliases = names[0], names[1:]
    return record


def _english_names(text: str) -> list[str]:
    """'Banding/"Bands with Other"' -> ['Banding', 'Bands with Other'] (a name cut short, as
    "Nonmodal ", keeps its trailing space: the pairing reads it as the start of a name)."""
    out = []
    for piece in text.split("/"):
        name = piece.strip("\"“”'").lstrip()
        if name.strip():
            out.append(name)
    return out


def _names(head: str, lang: str, english_count: int) -> list[str]:
    """The term and its aliases: split at "、" (Japanese) or ", " where the English side names
    as many, so that one name holding a comma stays whole."""
    sep = "、" if lang == "ja" else ","
    pieces = [p.strip() for p in head.split(sep) if p.strip()]
    if len(pieces) > 1 and english_count == len(pieces):
        return pieces
    return [head]


def _close_term(state: _State) -> None:
    """Finish the entry being read: obsolete mark, references and "see" targets."""
    record = state.pending_term
    if record is None:
        return
    state.pending_term = None
    if not record.definition:
        state.problems.append(
            Problem(state.path, record.line, f"glossary term {record.term!r} has no definition")
        )
    marker = _OBSOLETE_JA.match(record.definition)
    if marker:
        record.obsolete = True
    record.rule_refs = list(
        dict.fromkeys(r.number for r in find_refs(record.definition, state.lang))
    )
    see = _SEE_JA if state.lang == "ja" else _SEE_FR
    record.see = [m[1].strip() for m in see.finditer(record.definition) if m[1].strip()]
    state.glossary.append(record)
