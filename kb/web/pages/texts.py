"""Pages of the texts that are not rules: commentary (wiki prose about rules) and the tournament
rules (MTR), so that every search hit of those kinds leads to a page that shows it.

A commentary paragraph has a page of its own (``/<locale>/commentary/<id>``) naming the rules it
explains; each tournament-rules text the corpus holds (the French section 4.2 of the seeds, the
English MTR when added) has one page (``/<locale>/tournament/<text>``) with a heading per
section and an anchor per item (``#fr-4.2-5``). A text's id is its file's name without the
extension, stable across builds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kb.knowledge.model import Commentary, KnowledgeBase, TournamentRule, parsed_number
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, twin
from kb.web.pages.common import rule_url
from kb.web.resources import get_kb
from kb.web.urls import url_for

__all__ = ["commentary_url", "tournament_item_url", "tournament_section_url", "tournament_texts"]


def text_id(source: str) -> str:
    """A tournament-rules text's id: its file's name without the extension."""
    return Path(source).stem


def tournament_texts(kb: KnowledgeBase) -> dict[str, list[TournamentRule]]:
    """Each tournament-rules text the corpus holds, by id: its items in order."""
    out: dict[str, list[TournamentRule]] = {}
    for item in kb.tournament:
        out.setdefault(text_id(item.source), []).append(item)
    return out


def _item(kb: KnowledgeBase, item_id: str) -> TournamentRule | None:
    return next((t for t in kb.tournament if t.id == item_id), None)


def tournament_item_url(kb: KnowledgeBase, locale: str, item_id: str) -> str | None:
    """The page and anchor of one tournament-rules item (a search hit's link)."""
    item = _item(kb, item_id)
    if item is None:
        return None
    page = url_for("pages.tournament_text", locale=locale, text=text_id(item.source))
    return f"{page}#{item.id}"


def tournament_section_url(kb: KnowledgeBase, locale: str, section: str) -> str | None:
    """The page and anchor of an MTR section a text cites ("MTR 4.2"): in the text of the
    locale's language where there is one, else any text that has the section."""
    section = section.removeprefix("MTR").strip()
    found = [t for t in kb.tournament if t.section == section]
    if not found:
        return None
    item = next((t for t in found if t.lang == locale), found[0])
    page = url_for("pages.tournament_text", locale=locale, text=text_id(item.source))
    return f"{page}#s-{section}"


def commentary_url(locale: str, comment_id: str) -> str:
    """The page of one commentary paragraph."""
    return url_for("pages.commentary", locale=locale, comment_id=comment_id)


def _rule_links(locale: str, numbers: list[str]) -> list[dict[str, Any]]:
    return [{"number": n, "url": rule_url(locale, n)} for n in numbers if parsed_number(n)]


def _commentary_json(com: Commentary, locale: str) -> dict[str, Any]:
    return {
        "id": com.id,
        "lang": com.lang,
        "heading": com.heading,
        "text": com.text,
        "source": Path(com.source).name,
        "rules": _rule_links(locale, com.about_rules),
        "terms": com.about_terms,
    }


# ---- routes ---
@twin("/<locale:locale>/commentary/<comment_id>", "commentary")
def commentary(locale: str, comment_id: str, fmt: str = "html") -> Page:
    """One commentary paragraph and the rules it explains."""
    kb = get_kb()
    com = next((c for c in kb.commentary if c.id == comment_id), None)
    if com is None:
        raise PageError(404, _("No commentary “%(id)s”.", id=comment_id[:60]))
    return Page("pages/commentary.html", {"commentary": _commentary_json(com, locale)})


@twin("/<locale:locale>/tournament/", "tournament_index")
def tournament_index(locale: str, fmt: str = "html") -> Page:
    """Every tournament-rules text the corpus holds."""
    kb = get_kb()
    texts = [
        {
            "id": ident,
            "lang": items[0].lang,
            "sections": list(dict.fromkeys(i.heading for i in items)),
            "items": len(items),
            "url": url_for("pages.tournament_text", locale=locale, text=ident),
        }
        for ident, items in tournament_texts(kb).items()
    ]
    return Page("pages/tournament_index.html", {"texts": texts})


@twin("/<locale:locale>/tournament/<text>", "tournament_text")
def tournament_text(locale: str, text: str, fmt: str = "html") -> Page:
    """One tournament-rules text: a heading per section, an anchor per item."""
    kb = get_kb()
    items = tournament_texts(kb).get(text)
    if not items:
        raise PageError(404, _("No tournament rules “%(id)s”.", id=text[:60]))
    sections: list[dict[str, Any]] = []
    for item in items:
        if not sections or sections[-1]["section"] != item.section:
            sections.append(
                {
                    "section": item.section,
                    "title": item.title,
                    "anchor": f"s-{item.section}",
                    "heading_id": None,
                    "items": [],
                }
            )
        if item.text.strip() in (item.heading, item.title):
            # A heading record (the English MTR's "4.2"): its anchor is the section's heading.
            sections[-1]["heading_id"] = item.id
        elif item.text.strip():
            sections[-1]["items"].append(
                {"id": item.id, "text": item.text, "flags": item.flags, "line": item.line}
            )
    data = {
        "text": {"id": text, "lang": items[0].lang, "source": Path(items[0].source).name},
        "sections": sections,
    }
    return Page("pages/tournament.html", data)
