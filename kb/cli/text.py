"""Plain-text output of ``kb rule`` (a rule, its tree, references, folded history and what its
number meant as printed), ``kb concordance`` and ``kb editions``, for a terminal.

Kept apart from the command line so that :mod:`kb.cli.main` stays the parser and the commands, and
the layout of a rule on a terminal can be read (and tested) in one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from kb.cli.types import MAX_LIMIT
from kb.knowledge.model import KnowledgeBase
from kb.knowledge.printed import (
    MAX_MEANINGS,
    other_meanings,
    printed_as_in,
    printed_facts,
    printed_number,
)

#: Example games listed by ``kb rule`` (text); ``--json`` has them all.
MAX_GAMES = 5
#: Characters of a quoted line in ``kb rule`` text output before it is cut with an ellipsis.
LINE_CHARS = 160


def _cut(text: str, limit: int = LINE_CHARS) -> str:
    """A text on one line, cut at a word boundary with an ellipsis when it is longer."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _label(kb: KnowledgeBase, number: str, edition: str) -> str:
    """``117.3a The active player…``: a number with its title or the start of its text."""
    node = kb.rule(edition, number)
    if node is None:
        return number
    return f"{number} {_cut(node.title or node.text, 100)}".rstrip()


def write_rule(
    kb: KnowledgeBase,
    rule: Any,
    data: dict[str, Any],
    out: TextIO,
    pinned: bool = False,
    lang: str = "en",
) -> None:
    """``kb rule`` as text: what ``--json`` has, each part on its own labelled lines.

    ``pinned``: the reader named the edition (the number's meanings in others are not told);
    ``lang``: the reader's language, that of the example games' titles (English when untranslated)."""
    ed = kb.editions[rule.edition]
    day = ed.date or rule.edition
    printed = printed_number(rule)
    shown = f"{rule.number} (printed {printed})" if printed else rule.number
    head = f"{shown}. {rule.title}" if rule.title else shown
    out.write(f"{head}  [{rule.lang} {day}]\n")
    for line in numbering_notes(kb, rule, meanings=not pinned):
        out.write(line + "\n")
    if rule.text:
        out.write(rule.text + "\n")
    for example in rule.examples:
        out.write(f"  Example: {example}\n")
    if rule.canonical and rule.canonical != rule.number:
        out.write(f"Now rule {rule.canonical}.\n")
    elif rule.canonical is None:
        out.write("This rule no longer exists in the newest English edition.\n")
    if data["parent"]:
        out.write(f"Parent: {_label(kb, data['parent'], rule.edition)}\n")
    if data["children"]:
        out.write("Children:\n")
        for child in data["children"]:
            out.write(f"  {_label(kb, child, rule.edition)}\n")
    refs = list(dict.fromkeys(r["number"] for r in data["refs"]))
    if refs:
        out.write(f"Refers to: {', '.join(refs)}\n")
    if data["referenced_by"]:
        shown = data["referenced_by"][:20]
        more = len(data["referenced_by"]) - len(shown)
        out.write(f"Referred to by: {', '.join(shown)}{f' (+{more} more)' if more else ''}\n")
    if data["terms"]:
        out.write(f"Glossary terms: {', '.join(data['terms'])}\n")
    games = data["engine_examples"]
    if games:
        out.write(f"Example games on the engine ({len(games)}):\n")
        for ex in games[:MAX_GAMES]:
            flag = "" if ex["passed"] else " (does not run as written)"
            title = ex.get("titles", {}).get(lang) or ex["title"]
            out.write(f"  {ex['id']}  {title}{flag}\n")
        if len(games) > MAX_GAMES:
            out.write(f"  … {len(games) - MAX_GAMES} more (--json has them all)\n")
    if data["history"]:
        out.write("History:\n")
        for line in _folded_history(kb, data["history"]):
            out.write(f"  {line}\n")
    for lang_, tr in data["translations"].items():
        title = f"{tr['title']} " if tr["title"] else ""
        out.write(f"[{lang_} {tr['date'] or tr['edition']}] {tr['number']} ")
        out.write(_cut(f"{title}{tr['text']}") + "\n")


def numbering_notes(kb: KnowledgeBase, rule: Any, meanings: bool = True) -> list[str]:
    """What a reader of the number should know: it was printed otherwise (702.30e of 2009-09-04
    is the second 702.30d), the edition printed it for another rule too, or (``meanings``) it
    named other rules in other editions (116.3b: the paying-life rule, 2009-07-11 to 2010-06-18),
    the newest :data:`MAX_MEANINGS` of them."""
    ed = kb.editions[rule.edition]
    day = ed.date or rule.edition
    notes = []
    printed, second, others_kept = printed_facts(kb, rule)
    if second:
        notes.append(
            f"Printed as {printed} in {day}, the second rule with that number; "
            f"kept as {rule.number} (kb rule {printed} --edition {day} is the first)."
        )
    elif printed:
        notes.append(f"Printed as {printed} in {day} (a misprint); kept as {rule.number}.")
    for other in others_kept:
        notes.append(
            f"{day} prints {rule.number} for another rule too: kept as {other} "
            f"(kb rule {other} --edition {day})."
        )
    others = other_meanings(kb, rule) if meanings else []
    for meaning in others[-MAX_MEANINGS:]:
        first, last = (kb.editions[e].date or e for e in (meaning.first, meaning.last))
        span = f"in {first}" if meaning.editions == 1 else f"from {first} to {last}"
        now = f"now {meaning.canonical}" if meaning.canonical else "since deleted"
        notes.append(f"{rule.number} named another rule {span} ({now}): {_cut(meaning.text, 80)}")
    if len(others) > MAX_MEANINGS:
        notes.append(f"  … and {len(others) - MAX_MEANINGS} older meanings of {rule.number}.")
    return notes


def _folded_history(kb: KnowledgeBase, history: list[dict[str, Any]]) -> list[str]:
    """One line per change; the editions that then printed it unchanged folded into it."""
    lines: list[list[Any]] = []
    for entry in history:
        day = entry["date"] or entry["edition"]
        if lines and entry["change"] == "same" and lines[-1][1] == entry["number"]:
            lines[-1][3] = day
            lines[-1][4] += 1
            continue
        change = {"first": "first in the corpus"}.get(entry["change"], entry["change"] or "")
        printed = printed_as_in(kb, entry["edition"], entry["number"])
        change += f" (printed as {printed})" if printed else ""
        lines.append([day, entry["number"], change, None, 0])
    out = []
    for day, number, change, until, same in lines:
        text = f"{day}  {number}  {change}"
        if same:
            text += f"; unchanged in {same} more edition{'s' if same > 1 else ''} to {until}"
        out.append(text)
    return out


def write_concordance(
    kb: KnowledgeBase,
    eds: tuple[Any, Any],
    groups: dict[str, list[Any]],
    sides: Iterable[str],
    apart: int,
    limit: int,
    out: TextIO,
) -> None:
    """``kb concordance`` as text: what was edited, created and deleted leads, with titles; the
    pure moves come last, folded into runs; ``sides`` names the excerpt side(s), ``apart`` counts
    the rules only one side holds."""
    from kb.knowledge.lookup import move_runs, rule_context

    out.write(f"{eds[0].id} -> {eds[1].id}\n")
    for side, ed in (("from", eds[0]), ("to", eds[1])):
        if side in sides:
            kind = "created" if side == "from" else "deleted"
            out.write(
                f"({ed.id} holds excerpts only: rules it does not quote are not counted as {kind})\n"
            )
    if apart:
        out.write(f"{apart} rules not compared (only one side holds them)\n")
    counts = ", ".join(f"{len(groups[k])} {k}" for k in ("edited", "created", "deleted", "moved"))
    out.write(f"{counts}\n")
    # What was edited, created and deleted leads, with titles; the pure moves come last, folded.
    for kind in ("edited", "created", "deleted"):
        items = groups[kind]
        out.write(f"{kind} ({len(items)})\n")
        for item in items[:limit]:
            rule = kb.rule(eds[1].id, item["new"]) if item["new"] else None
            rule = rule or (kb.rule(eds[0].id, item["old"]) if item["old"] else None)
            moved = item["old"] and item["new"] and item["old"] != item["new"]
            label = f"{item['old']} -> {item['new']}" if moved else item["new"] or item["old"]
            out.write(f"  {label}  {rule_context(kb, rule)}".rstrip() + "\n")
        if len(items) > limit:
            out.write(f"  … {_more(len(items), limit)}\n")
    runs = move_runs(groups["moved"], kb.ordered_numbers(eds[0].id))
    out.write(f"moved without other change ({len(groups['moved'])}, in {len(runs)} runs)\n")
    for run in runs[:limit]:
        first, last = run["first"], run["last"]
        if run["count"] == 1:
            out.write(f"  {first['old']} -> {first['new']}\n")
        else:
            span = f"{first['old']} … {last['old']} -> {first['new']} … {last['new']}"
            out.write(f"  {span}  ({run['count']} rules)\n")
    if len(runs) > limit:
        out.write(f"  … {_more(len(runs), limit, ' runs')}\n")


def _more(count: int, limit: int, what: str = "") -> str:
    """``561 more`` and how to see them: ``--limit`` when its cap (100) shows them all, else
    ``--json``, which lists everything."""
    more = count - limit
    if limit >= MAX_LIMIT:
        return f"{more} more{what} (--json has them all)"
    if count <= MAX_LIMIT:
        return f"{more} more{what} (--limit {count} shows them all, or --json)"
    return f"{more} more{what} (--limit shows up to {MAX_LIMIT}; --json has them all)"


def write_editions(rows: list[dict[str, Any]], left_out: list[dict[str, Any]], out: TextIO) -> None:
    """``kb editions`` as text: one line per edition (``--json``'s rows), then what was left out."""
    for r in rows:
        out.write(
            f"{r['lang']}  {r['date'] or '(undated)':<10}  {r['kind']:<7}  rules {r['rules']:>5}  "
            f"examples {r['examples']:>4}  glossary {r['glossary']:>4}  unresolved "
            f"{r['unresolved_refs']:>3}  numbering {_numbering(r):<22}  {r['id']}  "
            f"({Path(r['source'] or '').name})\n"
        )
    for r in left_out:
        out.write(f"left out  {r['source']}:{r['line'] or ''}  {r['reason']}\n")


def _numbering(row: dict[str, Any]) -> str:
    """The numbering an edition follows: ``own`` for a text numbered as itself, else what it
    follows (``pre-m10``, an edition's date, a range of dates)."""
    numbering = row["numbering"] or "?"
    return "own" if numbering == row["id"] else numbering.removeprefix(f"{row['lang']}-")
