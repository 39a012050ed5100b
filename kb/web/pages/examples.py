"""Example pages: every executable example, and one example with its engine trace."""

from __future__ import annotations

from typing import Any

from flask import url_for

from kb.model import LANGS, ExampleInfo, KnowledgeBase
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, twin
from kb.web.pages.common import rule_url
from kb.web.render import markdown_html
from kb.web.resources import get_kb


def example_summary(ex: ExampleInfo, locale: str) -> dict[str, Any]:
    """An example's title, link and outcome."""
    return {
        "id": ex.id,
        "title": ex.title,
        "passed": ex.passed,
        "rules": ex.rules,
        "url": url_for("pages.example", locale=locale, example_id=ex.id),
    }


def trace_rows(ex: ExampleInfo, locale: str) -> list[dict[str, Any]]:
    """The engine's trace of an example: each event with links to the rules it applied."""
    rows = []
    for i, event in enumerate(ex.trace, start=1):
        rules = [str(r) for r in event.get("rules", []) or []]
        rows.append(
            {
                "step": i,
                "text": str(event.get("text", "")),
                "rules": [{"number": r, "url": rule_url(locale, r)} for r in rules],
            }
        )
    return rows


def examples_index_page(kb: KnowledgeBase, locale: str) -> Page:
    """Every executable example with its outcome."""
    return Page(
        "pages/examples_index.html",
        {"examples": [example_summary(ex, locale) for ex in kb.examples]},
    )


def example_page(kb: KnowledgeBase, locale: str, ex: ExampleInfo) -> Page:
    """One example: its prose (Markdown, sanitised) and the engine's trace, step by step."""
    data = example_summary(ex, locale)
    prose = ex.markdown
    first, _, rest = prose.partition("\n")
    if first.lstrip("# ").strip() == ex.title.strip():
        prose = rest  # the page prints the title as its own heading
    # ... and the rules it cites as links: the file's own "rules:" line would say it twice.
    head, _, body = prose.lstrip("\n").partition("\n")
    if head.lower().startswith("rules:"):
        prose = body
    data["html"] = markdown_html(prose, lambda n: rule_url(locale, n))
    data["trace"] = trace_rows(ex, locale)
    data["rule_links"] = [{"number": r, "url": rule_url(locale, r)} for r in ex.rules]
    return Page(
        "pages/example.html",
        {"example": data},
        alternates={loc: url_for("pages.example", locale=loc, example_id=ex.id) for loc in LANGS},
    )


# ---- routes ---
@twin("/<locale:locale>/examples/", "examples")
def examples(locale: str, fmt: str = "html") -> Page:
    """Every executable example."""
    return examples_index_page(get_kb(), locale)


@twin("/<locale:locale>/examples/<example_id>", "example")
def example(locale: str, example_id: str, fmt: str = "html") -> Page:
    """One example and its engine trace."""
    kb = get_kb()
    for ex in kb.examples:
        if ex.id == example_id:
            return example_page(kb, locale, ex)
    raise PageError(
        404,
        _("No example “%(id)s”.", id=example_id[:60]),
        suggestions=[
            {"title": ex.title, "url": url_for("pages.example", locale=locale, example_id=ex.id)}
            for ex in kb.examples[:10]
        ],
    )
