"""The JSON twin of a rule page, kept small: the history folded into runs and the engine's
traces behind a link.

A rule of an archive has a history row per edition (78 for 117.3b, most of them "same") and up to
a few executable examples, each with its whole engine trace: the twin of /en/rules/117.3b was
49 KB of which the reader of one rule needs little. By default the twin gives the history as
runs (an edition that changed the rule, then how many editions kept it, and the last of them)
and each example as its title and the URL of its page and twin, where the trace is;
``?history=all`` gives the whole twin as before (every history entry, the traces: the shape of
``kb rule --json`` exactly).
"""

from __future__ import annotations

from typing import Any

from kb.web.urls import url_for

__all__ = ["compact", "fold_history"]


def fold_history(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """History rows (``edition``, ``date``, ``number``, ``change``) folded into runs: each row
    that is not "same" (or that renumbers) starts a run; ``unchanged`` counts the rows it stands
    for and ``until`` names the last of them."""
    out: list[dict[str, Any]] = []
    for row in rows:
        run = out[-1] if out else None
        if run is not None and row.get("change") == "same" and row.get("number") == run["number"]:
            run["unchanged"] += 1
            run["until"] = {"edition": row.get("edition"), "date": row.get("date")}
            continue
        out.append({**row, "unchanged": 0, "until": None})
    return out


def _example_link(locale: str, example: dict[str, Any]) -> dict[str, Any]:
    """An example without its trace, and where the trace is (its page and JSON twin)."""
    url = url_for("pages.example", locale=locale, example_id=example["id"])
    kept = {k: v for k, v in example.items() if k not in ("trace", "trace_text")}
    return {**kept, "url": url, "json_url": url + ".json"}


def compact(body: dict[str, Any], locale: str, full_history: bool) -> dict[str, Any]:
    """The rule twin's body with folded history and no traces (unchanged if ``full_history``)."""
    if full_history:
        return body
    out = dict(body)
    out["history"] = fold_history(body.get("history") or [])
    out["engine_examples"] = [_example_link(locale, x) for x in body.get("engine_examples", [])]
    page = dict(body.get("page") or {})
    if page.get("history"):
        page["history"] = [{k: v for k, v in h.items() if k != "entries"} for h in page["history"]]
    page["examples"] = [_example_link(locale, x) for x in page.get("examples", [])]
    out["page"] = page
    return out
