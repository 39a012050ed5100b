"""Plain-text output of ``kb rule``: a rule, its tree, references and folded history, for a terminal.

Kept apart from the command line so that :mod:`kb.cli` stays the parser and the commands, and
the layout of a rule on a terminal can be read (and tested) in one place.
"""

from __future__ import annotations

from typing import Any, TextIO

from kb.model import KnowledgeBase

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


def write_rule(kb: KnowledgeBase, rule: Any, data: dict[str, Any], out: TextIO) -> None:
    """``kb rule`` as text: what ``--json`` has, each part on its own labelled lines."""
    ed = kb.editions[rule.edition]
    head = f"{rule.number}. {rule.title}" if rule.title else rule.number
    out.write(f"{head}  [{rule.lang} {ed.date or rule.edition}]\n")
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
            out.write(f"  {ex['id']}  {ex['title']}{flag}\n")
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
        lines.append([day, entry["number"], change, None, 0])
    out = []
    for day, number, change, until, same in lines:
        text = f"{day}  {number}  {change}"
        if same:
            text += f"; unchanged in {same} more edition{'s' if same > 1 else ''} to {until}"
        out.append(text)
    return out
