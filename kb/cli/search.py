"""``kb search QUERY``: the search from the command line, as text or JSON."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import TextIO

from kb.base.limits import MAX_LIMIT


def run_search_command(
    instance: Path,
    query: str,
    lang: str | None,
    edition: str | None,
    kind: str | None,
    limit: int,
    as_json: bool,
    out: TextIO,
    page: int = 1,
) -> int:
    """Search a built instance and print the result (``page``: hits ``limit`` at a time, as the
    web's pages); 0 on success, 2 on a refused request."""
    from kb.search.results import SearchError
    from kb.search.searcher import Searcher

    instance = Path(instance)
    from kb.build import load

    kb = load(instance)
    try:
        with Searcher(instance / "index", kb) as searcher:
            result = searcher.search(
                query, lang=lang, edition=edition, kind=kind, limit=limit, page=page
            )
    except SearchError as exc:
        if as_json:
            out.write(json.dumps({"ok": False, "error": str(exc), "status": 400}) + "\n")
        else:
            out.write(f"error: {exc}\n")
        return 2
    except FileNotFoundError as exc:
        out.write(f"error: {exc}\n")
        return 1
    if as_json:
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=1) + "\n")
        return 0
    if result.message:
        out.write(result.message + "\n")
    if result.suggestion and result.hits:
        out.write(f"Did you mean: {result.suggestion}\n")
    out.write(f"{result.total} result(s)\n")
    for hit in result.hits:
        label = hit.number or hit.key
        where = hit.edition or hit.kind
        extra = " (other language)" if hit.cross_language else ""
        if hit.withdrawn:
            extra += f" (withdrawn: last in {hit.edition})"
        title = f" {hit.title}" if hit.title else ""
        out.write(f"\n{hit.kind} {label} [{hit.lang}, {where}]{extra}{title}\n")
        # A snippet is one indented line: the text's own line breaks would start at column 0.
        out.write("  " + " ".join(_plain(hit.snippet).split()) + "\n")
    shown = (page - 1) * limit + len(result.hits)
    if result.hits and result.total > shown:
        out.write(
            f"\n… {result.total - shown} more: --page {page + 1} (--limit up to {MAX_LIMIT})\n"
        )
    return 0


def _plain(snippet: str) -> str:
    """The snippet for a terminal: marks as [brackets], entities decoded."""
    text = snippet.replace("<mark>", "[").replace("</mark>", "]")
    return unescape(re.sub(r"<[^>]+>", "", text))
