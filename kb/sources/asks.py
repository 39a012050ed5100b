"""Reader of "Players ask" (``corpus/asks/<lang>/<section>.toml``): questions in players' words,
each citing the rules that answer it.

A file is a list of ``[[ask]]`` tables, each with ``lang`` (the folder's), ``q`` (the question)
and ``rules`` (rule numbers of the edition the file was written from). The reader knows the
format only: it returns :class:`AskRecord` entries and reports what it cannot read as
:class:`~kb.sources.records.Problem` entries (file and line). A file that is not valid TOML is
left out whole; a bad entry is left out alone; neither stops the build.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kb.sources.records import Problem
from kb.sources.registry import toml_error_line
from kb.text.rulenum import try_parse

#: The languages a question may be asked in (one folder each).
ASK_LANGS = ("en", "fr", "ja")
#: A question longer than this is not a question but a pasted text (left out, reported).
MAX_QUESTION = 500
_ASK_TABLE = re.compile(r"^\s*\[\[\s*ask\s*\]\]")


@dataclass(slots=True)
class AskRecord:
    """One question as written: its language, words, the rules it cites, file and line."""

    lang: str
    q: str
    rules: list[str]
    source: str
    line: int
    #: the file's stem and the question's place in it ("en/117#3"): stable while files are
    #: only appended to, and readable in a report
    key: str = ""


def read_asks(root: Path) -> tuple[list[AskRecord], list[Problem]]:
    """Every question of ``root`` (``<lang>/*.toml``), in language then file order, and the
    problems met (a missing folder is no problem: the corpus may have no questions)."""
    asks: list[AskRecord] = []
    problems: list[Problem] = []
    if not root.is_dir():
        return asks, problems
    for lang in ASK_LANGS:
        folder = root / lang
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml"), key=_file_order):
            found, met = read_ask_file(path, lang)
            asks.extend(found)
            problems.extend(met)
    return asks, problems


def read_ask_file(path: Path, lang: str) -> tuple[list[AskRecord], list[Problem]]:
    """The questions of one file of language ``lang`` and its problems: a file that cannot be
    read or parsed gives none (one "error"), a bad entry is left out (one "warning" each)."""
    where = str(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [Problem(where, None, f"cannot read: {exc}", "error")]
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        return [], [Problem(where, toml_error_line(exc, raw), f"not valid TOML: {exc}", "error")]
    entries = data.get("ask", [])
    if not isinstance(entries, list):
        return [], [Problem(where, 1, "`ask` must be an array of tables ([[ask]])", "error")]
    lines = [n for n, text in enumerate(raw.split("\n"), 1) if _ASK_TABLE.match(text)]
    asks: list[AskRecord] = []
    problems: list[Problem] = []
    for i, entry in enumerate(entries):
        line = lines[i] if i < len(lines) else 1
        why = _invalid(entry, lang)
        if why:
            problems.append(Problem(where, line, f"question left out: {why}"))
            continue
        asks.append(
            AskRecord(
                lang=lang,
                q=" ".join(entry["q"].split()),
                rules=list(dict.fromkeys(str(try_parse(r)) for r in entry["rules"])),
                source=where,
                line=line,
                key=f"{lang}/{path.stem}#{i + 1}",
            )
        )
    return asks, problems


def _invalid(entry: object, lang: str) -> str:
    """Why ``entry`` is not a question of language ``lang`` ("" when it is one)."""
    if not isinstance(entry, dict):
        return "not a table"
    q = entry.get("q")
    if not isinstance(q, str) or not q.strip():
        return "`q` must be a non-empty string"
    if len(q) > MAX_QUESTION:
        return f"`q` is longer than {MAX_QUESTION} characters"
    if entry.get("lang", lang) != lang:
        return f"`lang` is {entry.get('lang')!r} in the {lang!r} folder"
    rules = entry.get("rules")
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
        return "`rules` must be a non-empty list of rule numbers"
    bad = [r for r in rules if try_parse(r) is None]
    if bad:
        return f"not rule numbers: {', '.join(map(repr, bad))}"
    unknown = set(entry) - {"lang", "q", "rules"}
    if unknown:
        return f"unknown fields: {', '.join(sorted(unknown))}"
    return ""


def _file_order(path: Path) -> tuple[int, str]:
    """Section files in number order (``100`` before ``1000``), others after by name."""
    return (int(path.stem), "") if path.stem.isdigit() else (1 << 30, path.stem)
