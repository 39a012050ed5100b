"""Reader of the official Comprehensive Rules text file (English, and French/Japanese translations
published in the same layout) into a :class:`SourceDoc` of rules and glossary entries.

Layout, as published: a title, the effective date, an introduction, a table of contents (which
repeats the "Glossary" and "Credits" headings), the numbered rules, the glossary, the credits. The
rules start after the first "Credits" line; the glossary runs from the last "Glossary" line to the
last "Credits" line. What the reader cannot place is reported as a Problem with file and line.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from pathlib import Path

from kb.sources.cr_numbers import (
    free_number,
    in_place,
    intended,
    numbered,
    numbered_lines,
    retro_fix,
)
from kb.sources.decode import normalize_text, read_text
from kb.sources.records import GlossaryRecord, Problem, RuleRecord, SourceDoc, SourceError
from kb.text.normal import MONTH_NAMES
from kb.text.references import find_refs
from kb.text.rulenum import RuleNumber, parse

__all__ = ["looks_like_cr_text", "read_cr_text"]

GLOSSARY_HEADINGS = {"Glossary": "en", "Glossaire": "fr", "用語集": "ja"}
CREDITS_HEADINGS = {"Credits": "en", "Crédits": "fr", "クレジット": "ja"}

_SUBRULE = re.compile(r"\d{3}\.\d{1,3}(?:[a-z]|\.)")
_SECTION_ONE = re.compile(r"1\.\s+\S")
_EXAMPLE = re.compile(r"(?:Examples?|Exemples?|例)\s*[:：]\s*")
# _italics_ or, once (2010-10-01), __italics__; a blank to fill ("Wolf in ________ Clothing") is kept.
_ITALICS = re.compile(r"(?<![\w_])(__?)(?=[^\s_])([^_\n]+?)(?<=\S)\1(?![\w_])")
_MARKS = (("(R)", "®"), ("(TM)", "™"))

_MONTHS_EN = {m.lower(): i + 1 for i, m in enumerate(MONTH_NAMES["en"])}
_MONTHS_FR = {m: i + 1 for i, m in enumerate(MONTH_NAMES["fr"])}
_MONTHS_FR |= {"fevrier": 2, "aout": 8, "decembre": 12}
# "effective as of" since July 2009; the editions before say "These rules are current as of".
_DATE_EN = re.compile(
    r"(?:effective|current)\s+(?:as\s+of|from|on)\s+([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})",
    re.IGNORECASE,
)
_DATE_FR = re.compile(
    r"(?:en\s+vigueur|effectives?|applicables?|prennent\s+effet)\D{0,30}?"
    r"\b(\d{1,2})(?:er)?\s+([a-zéû]+)\s+(\d{4})",
    re.IGNORECASE,
)
_DATE_JA = re.compile(
    r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*(?:から|より|以降)?\s*(?:有効|発効|施行)"
)
_VERSION = re.compile(r"(?:総合ルール|[Vv]ersion)\s*[:：]?\s*((\d{4})(\d{2})(\d{2})\.\d+)")

_OBSOLETE = re.compile(r"\s*[(（]\s*(?:Obsolete|Obsolète|obsolète|廃止)\s*[)）]\s*$")
# Terms that contain a comma but are one name, not "term, alias" (APNAP and its translations).
_WHOLE_TERMS = {
    "Active Player, Nonactive Player Order",
    "Ordre Joueur actif, Joueur non actif",
    "Ordre joueur actif, joueur non actif",
    "アクティブ・プレイヤー、非アクティブ・プレイヤー順",
}
_COMMA_IN_QUOTES = re.compile(r',([”"»])(?=\s|$)')
_OPENING = '"“«「『'
_CLOSING = '"”»」』'
_SEE = re.compile(r"\b(?:See|Voir)(?:\s+(?:also|aussi))?\s+(.+?)(?:\.[”\"»]?|[”\"»]\.)(?=\s|$)")
_SEE_JA = re.compile(r"(?<![\w.])「([^」]+)」\s*(?:を)?参照")


@dataclass(slots=True)
class _Regions:
    begin: int  # index of the first line after the contents list
    rules_start: int  # index of the first numbered line of the rules
    glossary: int  # index of the last glossary heading
    credits: int  # index of the last credits heading
    lang: str


def _clean(line: str) -> str:
    """Readable text from the ASCII-only editions: drop the underscores of _italics_ (or
    __italics__), restore the registered and trademark signs."""
    if "_" in line:
        line = _ITALICS.sub(r"\2", line)
    if "(" in line:
        for ascii_mark, sign in _MARKS:
            line = line.replace(ascii_mark, sign)
    return line


def _heading_lines(lines: list[str], headings: dict[str, str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip() in headings]


def looks_like_cr_text(text: str) -> bool:
    """True for text in the Comprehensive Rules' layout: numbered rules ("100.1." …), a glossary
    heading and a credits heading in English, French or Japanese."""
    lines = normalize_text(text).split("\n")
    if not _heading_lines(lines, GLOSSARY_HEADINGS) or not _heading_lines(lines, CREDITS_HEADINGS):
        return False
    count = 0
    for line in lines:
        if line[:1].isdigit() and _SUBRULE.match(line):
            count += 1
            if count >= 3:
                return True
    return False


def _first_subrule(lines: list[str], begin: int, end: int) -> int | None:
    return next((i for i in range(begin, end) if _SUBRULE.match(lines[i])), None)


def _regions(lines: list[str], path: str) -> _Regions:
    glossaries = _heading_lines(lines, GLOSSARY_HEADINGS)
    credits = _heading_lines(lines, CREDITS_HEADINGS)
    if not credits and not glossaries:
        raise SourceError(path, "not a Comprehensive Rules text: no Glossary or Credits heading")
    end = len(lines)
    first_credits = credits[0] if credits else end
    glossary = glossaries[-1] if glossaries else -1
    if glossary > first_credits:
        begin = first_credits + 1
    else:
        # No glossary after the first Credits heading: either the file stops inside the rules, or
        # it has no contents list and the rules stand before its only Glossary heading.
        after = _first_subrule(lines, first_credits + 1, end) if credits else None
        if after is not None or glossary < 0:
            raise SourceError(
                path,
                "truncated Comprehensive Rules text: the rules run to the end of the file "
                f"(line {end}) without a Glossary heading after them",
                (after + 1) if after is not None else None,
            )
        if _first_subrule(lines, 0, glossary) is None:
            raise SourceError(
                path, "not a Comprehensive Rules text: no numbered rules before the glossary"
            )
        begin = 0
    last_credits = credits[-1] if credits else -1
    if last_credits < glossary:
        raise SourceError(
            path,
            "truncated Comprehensive Rules text: no Credits heading after the glossary "
            f"(line {glossary + 1})",
            end,
        )
    start = None
    if begin == 0:
        # Without a contents list, the last "1." heading before the glossary opens the rules.
        start = next((i for i in range(glossary - 1, -1, -1) if _SECTION_ONE.match(lines[i])), None)
    if start is None:
        start = next((i for i in range(begin, glossary) if numbered(lines[i])), None)
    if start is None:
        raise SourceError(
            path, "not a Comprehensive Rules text: no numbered rules before the glossary", begin + 1
        )
    lang = GLOSSARY_HEADINGS[lines[glossary].strip()]
    # Without a contents list, the lines before the rules are the introduction, not contents.
    return _Regions(start if begin == 0 else begin, start, glossary, last_credits, lang)


def _sniff_lang(text: str, heading_lang: str) -> str:
    head = text[:4000]
    kana = sum(1 for ch in head if "\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff")
    if kana > 20:
        return "ja"
    if heading_lang == "fr" or re.search(r"\b(?:règles|Règles|vigueur)\b", head):
        return "fr"
    return heading_lang


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return datetime.date(year, month, day).isoformat()
    except ValueError:
        return None


def _version_date(match: re.Match[str] | None) -> str | None:
    """The English edition a translation version such as "20231117.0" follows."""
    return _iso(int(match[2]), int(match[3]), int(match[4])) if match else None


def _effective_date(text: str) -> str | None:
    for match in _DATE_EN.finditer(text):
        month = _MONTHS_EN.get(match[1].lower())
        if month:
            return _iso(int(match[3]), month, int(match[2]))
    for match in _DATE_FR.finditer(text):
        month = _MONTHS_FR.get(match[2].lower())
        if month:
            return _iso(int(match[3]), month, int(match[1]))
    for match in _DATE_JA.finditer(text):
        return _iso(int(match[1]), int(match[2]), int(match[3]))
    return None


def _read_rules(
    lines: list[str], regions: _Regions, path: str, problems: list[Problem]
) -> list[RuleRecord]:
    rules: list[RuleRecord] = []
    seen: dict[str, RuleRecord] = {}
    current: RuleRecord | None = None  # the rule that examples and continuations belong to
    in_example = False
    blank_before = False
    previous: RuleNumber | None = None
    for index in range(regions.begin, regions.rules_start):
        line = lines[index].strip()
        # The end of the contents list ("Customer Service Information" in 2011) is expected here.
        if line and (_EXAMPLE.match(line) or len(line) > 60 or line.endswith((".", "。"))):
            problems.append(
                Problem(path, index + 1, f"line before the first rule, not placed: {line[:80]!r}")
            )
    by_line = numbered_lines(lines, regions.rules_start, regions.glossary)
    printed_all = {n.key for n in by_line.values() if not n.letter_only}
    for index in range(regions.rules_start, regions.glossary):
        line = lines[index]
        lineno = index + 1
        if not line.strip():
            blank_before = True
            continue
        found = by_line.get(index)
        example = None if found else _EXAMPLE.match(line.lstrip())
        if found and found.letter_only:
            if previous is None or previous.minor is None:
                found = None  # "306.b" with no subrule before it: text, not a number
            else:
                found.key = f"{previous.major}.{previous.minor}{found.key[-1]}"
        if found:
            record = RuleRecord(
                found.key,
                "" if found.is_heading else found.rest,
                lineno,
                title=found.rest if found.is_heading else None,
            )
            if found.typo:
                record.flags.append("typo-number")
                problems.append(Problem(path, lineno, f"rule {found.key}: {found.typo}"))
            if line[:1].isspace():
                record.flags.append("indented")
                problems.append(
                    Problem(path, lineno, f"rule {found.key} is printed with a leading space")
                )
            number = parse(found.key)
            if retro_fix(rules, number, previous, seen, printed_all, path, problems):
                previous = parse(rules[-1].number)
            if not in_place(number, previous) or found.key in seen:
                target = intended(number, previous, set(seen), printed_all)
                if target is None and found.key in seen:
                    target = free_number(number, set(seen), printed_all)
                    if target is None:  # a section heading printed again: the same section
                        first = seen[found.key]
                        problems.append(
                            Problem(
                                path,
                                lineno,
                                f"section {found.key} printed again (first at line "
                                f"{first.line}) as {line.strip()!r}; read as the same section",
                            )
                        )
                        previous = number
                        current = first
                        in_example = False
                        continue
                if target is not None:
                    first = seen.get(found.key)
                    what = (
                        f"duplicate rule number {found.key} (first at line {first.line})"
                        if first
                        else f"rule printed as {found.key}"
                    )
                    problems.append(
                        Problem(
                            path,
                            lineno,
                            f"{what} stands where {target} belongs; kept as {target}, flagged",
                        )
                    )
                    record.flags += ["renumbered", f"printed-as:{found.key}"]
                    record.number = str(target)
                    number = target
                elif previous is not None and number < previous:
                    problems.append(
                        Problem(
                            path, lineno, f"rule {found.key} is out of order (after {previous})"
                        )
                    )
            previous = number
            seen[record.number] = record
            rules.append(record)
            current = record
            in_example = False
        elif example:
            if current is None:
                problems.append(
                    Problem(path, lineno, "example before the first rule; cannot be placed")
                )
                continue
            current.examples.append(line.lstrip()[example.end() :].strip())
            in_example = True
        elif current is None:
            problems.append(
                Problem(path, lineno, f"unnumbered line before the first rule: {line.strip()!r}")
            )
        else:
            text = line.strip()
            if in_example:
                current.examples[-1] += "\n" + text
            elif current.title is not None:
                current.title += "\n" + text
            else:
                current.text += "\n" + text
            if blank_before:
                problems.append(
                    Problem(
                        path,
                        lineno,
                        f"unnumbered line after a blank line; attached to rule {current.number} "
                        "as a continuation",
                    )
                )
        blank_before = False
    return rules


def _split_aliases(term: str) -> list[str]:
    """Split "Kicker, Kicked" at commas outside quotation marks."""
    # American punctuation puts the separating comma inside the quotes: '“Partner—[text],” “…”'.
    term = _COMMA_IN_QUOTES.sub(r"\1,", term)
    parts: list[str] = []
    depth = 0
    straight_open = False
    start = 0
    for i, ch in enumerate(term):
        if ch in "“«「":
            depth += 1
        elif ch in "”»」":
            depth = max(0, depth - 1)
        elif ch == '"':
            straight_open = not straight_open
        elif ch in ",、" and depth == 0 and not straight_open:
            parts.append(term[start:i])
            start = i + 1
    parts.append(term[start:])
    return [p for p in (_unquote(p) for p in parts) if p]


def _unquote(text: str) -> str:
    """'“Partner with [name]”' -> 'Partner with [name]'; quotes inside a name ('Intervening “If”
    Clause') stay. A lone opening quote is dropped too: "See “Enters the Battlefield.”" loses its
    closing quote with the sentence's period."""
    text = text.strip(" ,")
    if text[:1] in _OPENING and (
        text[-1:] in _CLOSING or not any(ch in _CLOSING for ch in text[1:])
    ):
        text = text[1:]
        if text[-1:] in _CLOSING:
            text = text[:-1]
        text = text.strip(" ,")
    return text


def _rule_refs(definition: str, lang: str) -> list[str]:
    """The rule numbers a definition refers to, once each, by the one reference grammar."""
    return list(dict.fromkeys(ref.number for ref in find_refs(definition, lang)))


def _see_targets(definition: str) -> list[str]:
    targets: list[str] = []
    for match in _SEE.finditer(definition):
        target = _unquote(match[1])
        if (
            not target
            or target[0].isdigit()
            or re.match(r"(?i)(rules?|sections?|règles?)\b", target)
        ):
            continue
        targets.append(target)
    targets.extend(_unquote(m[1]) for m in _SEE_JA.finditer(definition))
    return targets


def _read_glossary(
    lines: list[str], regions: _Regions, path: str, lang: str, problems: list[Problem]
) -> list[GlossaryRecord]:
    paragraphs: list[list[tuple[int, str]]] = []
    block: list[tuple[int, str]] = []
    for index in range(regions.glossary + 1, regions.credits):
        line = lines[index].strip()
        if line:
            block.append((index + 1, line))
        elif block:
            paragraphs.append(block)
            block = []
    if block:
        paragraphs.append(block)

    entries: list[GlossaryRecord] = []
    for block in paragraphs:
        lineno, head = block[0]
        body = "\n".join(text for _, text in block[1:])
        if len(block) == 1:
            # A paragraph of one line is no entry (a term needs its definition): it continues the
            # entry before, as the list of expansion symbols under "Expansion Symbol" (2003).
            if entries:
                entries[-1].definition += "\n" + head
                problems.append(
                    Problem(
                        path,
                        lineno,
                        f"glossary line after a blank line; attached to the entry "
                        f"{entries[-1].term!r} as a continuation",
                    )
                )
                continue
            problems.append(Problem(path, lineno, f"glossary term {head!r} has no definition"))
        entry = GlossaryRecord(term=head, definition=body, line=lineno)
        marker = _OBSOLETE.search(head)
        if marker:
            entry.obsolete = True
            head = head[: marker.start()].strip()
        entry.term = head
        entry.rule_refs = _rule_refs(body, lang)
        entry.see = _see_targets(body)
        entries.append(entry)

    # A comma splits a term from its aliases unless the whole line is one name: a known one, or
    # one that other entries point to as a whole ("See Active Player, Nonactive Player Order.").
    whole = set(_WHOLE_TERMS)
    for entry in entries:
        whole.update(entry.see)
    for entry in entries:
        if entry.term in whole:
            continue
        names = _split_aliases(entry.term)
        if names:
            entry.term, entry.aliases = names[0], names[1:]
    terms = {entry.term for entry in entries} | {a for e in entries for a in e.aliases}
    for entry in entries:
        targets: list[str] = []
        for target in entry.see:
            pieces = [target] if target in terms else _split_aliases(target)
            targets.extend(p for p in pieces if p not in targets)
        entry.see = targets
    return entries


def read_cr_text(path: Path, text: str | None = None) -> SourceDoc:
    """Read an official Comprehensive Rules text file (EN, or FR/JA in the same layout) into a
    SourceDoc of kind "cr": rules in document order, glossary entries, edition date and problems.

    Raises SourceError for a file that is not a CR text, is truncated, or has no effective date.
    """
    name = str(path)
    text = read_text(Path(path)) if text is None else normalize_text(text)
    lines = [_clean(line.rstrip()) for line in text.split("\n")]
    regions = _regions(lines, name)
    lang = _sniff_lang(text, regions.lang)
    problems: list[Problem] = []

    header = "\n".join(lines[: regions.rules_start])
    trailer = "\n".join(lines[regions.credits :])
    version_match = _VERSION.search(header) or _VERSION.search(trailer)
    version = version_match[1] if version_match else None
    date = _effective_date(header) or _effective_date(trailer)
    if date is None:
        date = _version_date(version_match)
    if date is None:
        raise SourceError(
            name, "no effective date found (e.g. 'These rules are effective as of …')"
        )
    title = next((line.strip() for line in lines if line.strip()), None)

    rules = _read_rules(lines, regions, name, problems)
    if not any(not parse(rule.number).is_section for rule in rules):
        raise SourceError(name, "not a Comprehensive Rules text: no numbered rules", None)
    glossary = _read_glossary(lines, regions, name, lang, problems)
    if not glossary:
        problems.append(Problem(name, regions.glossary + 1, "the glossary has no entries"))
    return SourceDoc(
        path=name,
        lang=lang,
        kind="cr",
        format="cr-text",
        date=date,
        version=version,
        numbering=date,
        translates=None if lang == "en" else (_version_date(version_match) or date),
        title=title,
        rules=rules,
        glossary=glossary,
        problems=problems,
    )
