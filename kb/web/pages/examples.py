"""Example pages: every executable example, and one example with its engine trace."""

from __future__ import annotations

import difflib
import re
from typing import Any

from kb.knowledge import lookup
from kb.knowledge.model import LANGS, ExampleInfo, KnowledgeBase, parsed_number
from kb.text.rulenum import try_parse
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, twin
from kb.web.pages.common import rule_url
from kb.web.pages.trace_text import local_step
from kb.web.render import markdown_html
from kb.web.resources import get_kb
from kb.web.urls import url_for

#: A fenced game script in an example's Markdown (the engine's input, shown apart from the prose).
_GAME = re.compile(r"^```game[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_RULE_COMMENT = re.compile(r"\s+#\s*(.*)$")


def local_title(ex: ExampleInfo, locale: str) -> tuple[str, str]:
    """The example's title in the reader's language where it is translated: (title, lang)."""
    title = ex.titles.get(locale)
    return (title, locale) if title else (ex.title, "en")


def cited_links(locale: str, numbers: list[str]) -> list[dict[str, Any]]:
    """The rules an example cites, each with the URL of its page; a tournament rule ("MTR
    4.2") links to its section of the tournament rules' page. The URL is None (the number is
    shown unlinked) where no page would answer: a rule the built texts do not hold (the embedded
    corpus alone has no 103.8a), a tournament rule the corpus holds no text of."""
    from kb.web.pages.texts import tournament_section_url

    kb = get_kb()
    return [
        {
            "number": n,
            "url": rule_url(locale, n)
            if parsed_number(n) and _has_page(kb, locale, n)
            else tournament_section_url(kb, locale, n)
            if n.startswith("MTR")
            else None,
        }
        for n in numbers
    ]


def _has_page(kb: KnowledgeBase, locale: str, number: str) -> bool:
    """Whether the rule page of ``number`` answers (a current rule, an old number of one, or a
    rule deleted since): the first test is a dict lookup, the others run only for the rare rest."""
    return (
        lookup.canonical_for(kb, locale, number) is not None
        or lookup.lookup_rule(kb, locale, number) is not None
    )


def example_summary(ex: ExampleInfo, locale: str) -> dict[str, Any]:
    """An example's title (the reader's language where translated), link, rules and outcome."""
    title, lang = local_title(ex, locale)
    return {
        "id": ex.id,
        "title": title,
        "title_lang": lang,
        "passed": ex.passed,
        "rules": ex.rules,
        "rule_links": cited_links(locale, ex.rules),
        "url": url_for("pages.example", locale=locale, example_id=ex.id),
    }


def trace_rows(ex: ExampleInfo, locale: str) -> list[dict[str, Any]]:
    """The engine's trace of an example: each event with links to the rules it applied."""
    rows = []
    for i, event in enumerate(ex.trace, start=1):
        rules = [str(r) for r in event.get("rules", []) or []]
        text, lang = local_step(str(event.get("text", "")), locale)
        rows.append({"step": i, "text": text, "lang": lang, "rules": cited_links(locale, rules)})
    return rows


def english_prose(ex: ExampleInfo) -> str:
    """The English prose of an example: its Markdown without the title, the ``rules:`` line
    (the page links the rules itself) and the game script (shown apart)."""
    if ex.prose.get("en"):
        return ex.prose["en"]
    prose = _GAME.sub("", ex.markdown)
    first, _, rest = prose.partition("\n")
    if first.lstrip("# ").strip() == ex.title.strip():
        prose = rest
    head, _, body = prose.lstrip("\n").partition("\n")
    if head.lower().startswith("rules:"):
        prose = body
    return prose.strip()


def checks(ex: ExampleInfo, locale: str) -> list[dict[str, Any]]:
    """What the example expects of the game (its ``? …`` lines), with the rules each cites."""
    out = []
    for block in _GAME.findall(ex.markdown):
        for line in block.splitlines():
            line = line.strip()
            if not line.startswith("?"):
                continue
            text = line[1:].strip()
            cited: list[str] = []
            comment = _RULE_COMMENT.search(text)
            if comment:
                text = text[: comment.start()].strip()
                cited = [n for n in re.split(r"[,\s]+", comment.group(1)) if try_parse(n)]
            out.append({"text": text, "rules": cited_links(locale, cited)})
    return out


def examples_index_page(kb: KnowledgeBase, locale: str) -> Page:
    """Every executable example with its outcome."""
    return Page(
        "pages/examples_index.html",
        {"examples": [example_summary(ex, locale) for ex in kb.examples]},
    )


def example_page(kb: KnowledgeBase, locale: str, ex: ExampleInfo) -> Page:
    """One example: its prose in the reader's language (else English, marked), what it checks,
    the engine's trace with every rule linked, and the game script folded away."""
    data = example_summary(ex, locale)
    prose, prose_lang = ex.prose.get(locale), locale
    if not prose:
        prose, prose_lang = english_prose(ex), "en"
    data["html"] = markdown_html(
        prose, lambda n: rule_url(locale, n) if _has_page(kb, locale, n) else None
    )
    data["prose_lang"] = prose_lang
    data["trace"] = trace_rows(ex, locale)
    data["checks"] = checks(ex, locale)
    data["script"] = "\n".join(block.rstrip() for block in _GAME.findall(ex.markdown))
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
            {
                "title": local_title(ex, locale)[0],
                "url": url_for("pages.example", locale=locale, example_id=ex.id),
            }
            for ex in similar_examples(kb, example_id)
        ],
    )


#: How many examples a miss suggests.
MAX_SIMILAR = 10


def similar_examples(kb: KnowledgeBase, example_id: str) -> list[ExampleInfo]:
    """The examples nearest a mistyped id, best first: those whose id starts with what was typed
    (``117-3a-active``), then by likeness of the ids; the first ones only when nothing is near."""
    wanted = example_id[:80].lower()
    by_id = {ex.id: ex for ex in kb.examples}
    starts = [i for i in by_id if i.startswith(wanted)]
    close = difflib.get_close_matches(wanted, list(by_id), n=MAX_SIMILAR, cutoff=0.5)
    found = list(dict.fromkeys([*starts, *close]))[:MAX_SIMILAR]
    return [by_id[i] for i in found] or kb.examples[:MAX_SIMILAR]
