"""The editions page and what changed between two editions."""

from __future__ import annotations

from typing import Any

from flask import url_for

from kb.lookup import lag
from kb.model import LANGS, KnowledgeBase
from kb.rulenum import try_parse
from kb.web.i18n import LANGUAGE_NAMES
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, twin
from kb.web.pages.common import edition_info, rule_url
from kb.web.render import word_diff
from kb.web.resources import get_kb

MAX_CHANGES_SHOWN = 400


def editions_page(kb: KnowledgeBase, locale: str) -> Page:
    """Every edition per language, with links to what changed between neighbours."""
    # The comparison that ends at each edition (its previous full edition, not an excerpt).
    into = {span.split("..", 1)[1]: span for span in kb.changes}
    groups = []
    for lang in LANGS:
        rows = []
        for ed in kb.editions_of(lang):
            info = edition_info(ed, locale)
            assert info is not None
            span = into.get(ed.id)
            info["page"]["changes_url"] = (
                url_for("pages.changes", locale=locale, span=span) if span else None
            )
            info["page"]["lag"] = lag(kb, ed) if lang != "en" else None
            rows.append(info)
        if rows:
            groups.append({"lang": lang, "language": LANGUAGE_NAMES[lang], "editions": rows})
    spans = [
        {"span": k, "url": url_for("pages.changes", locale=locale, span=k)} for k in kb.changes
    ]
    return Page("pages/editions.html", {"languages": groups, "comparisons": spans})


def changes_page(kb: KnowledgeBase, locale: str, span: str) -> Page:
    """What changed between two editions: moved, edited, created and deleted rules."""
    if span not in kb.changes:
        raise PageError(
            404,
            _(
                "No comparison “%(span)s”; compare two editions of one language as FROM..TO.",
                span=span,
            ),
            comparisons=[
                {"span": k, "url": url_for("pages.changes", locale=locale, span=k)}
                for k in kb.changes
            ],
        )
    old_id, new_id = span.split("..", 1)
    groups: dict[str, list[dict[str, Any]]] = {
        k: [] for k in ("moved", "edited", "created", "deleted")
    }
    for change in kb.changes[span]:
        if change.change not in groups:
            continue
        item: dict[str, Any] = {"old": change.old, "new": change.new}
        if change.new:
            item["url"] = rule_url(locale, change.new, new_id)
        if change.old:
            item["old_url"] = rule_url(locale, change.old, old_id)
        if change.change == "edited" and len(groups["edited"]) < MAX_CHANGES_SHOWN:
            old, new = kb.rule(old_id, change.old or ""), kb.rule(new_id, change.new or "")
            if old and new:
                item["diff"] = word_diff(old.text, new.text)
        groups[change.change].append(item)
    for items in groups.values():
        items.sort(key=lambda i: _sort_key(i.get("new") or i.get("old")))
    return Page(
        "pages/changes.html",
        {
            "from": edition_info(kb.editions.get(old_id), locale),
            "to": edition_info(kb.editions.get(new_id), locale),
            "span": span,
            "counts": {k: len(v) for k, v in groups.items()},
            "changes": groups,
            "limit": MAX_CHANGES_SHOWN,
        },
        alternates={loc: url_for("pages.changes", locale=loc, span=span) for loc in LANGS},
    )


def _sort_key(number: str | None) -> tuple[int, int, int]:
    num = try_parse(number or "")
    return num.sort_key() if num else (10**6, 0, 0)


# ---- routes ---
@twin("/<locale:locale>/editions/", "editions")
def editions(locale: str, fmt: str = "html") -> Page:
    """Every edition and the comparisons between them."""
    return editions_page(get_kb(), locale)


@twin("/<locale:locale>/editions/<span>", "changes")
def changes(locale: str, span: str, fmt: str = "html") -> Page:
    """What changed between two editions (``en-2019-06-14..en-2019-07-12``)."""
    return changes_page(get_kb(), locale, span)
