"""The search page: checks the query, asks :mod:`kb.search`, groups the hits by rule."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flask import Response, redirect, request
from markupsafe import Markup

from kb.knowledge.lookup import listed_editions
from kb.knowledge.model import LANGS, KnowledgeBase
from kb.search.written import as_written as _as_written
from kb.text.rulenum import parse_number_query, try_parse
from kb.web.i18n import Text
from kb.web.i18n import text as _
from kb.web.notes import join_sentences, note_text
from kb.web.pages.base import Page, PageError, twin
from kb.web.pages.common import edition_label, glossary_url, rule_url
from kb.web.pages.texts import commentary_url, tournament_item_url
from kb.web.resources import SearchUnavailable, get_kb, get_search
from kb.web.urls import url_for

if TYPE_CHECKING:  # the search package loads with the first search, not at start
    from kb.search import SearchResult

MAX_PAGE = 500
PER_PAGE = 10
#: The kind filter: "rules" is every numbered node (sections, rules and subrules).
KINDS = ("rules", "glossary", "example", "commentary", "tournament", "card", "ruling")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _sent_as_utf8(name: str) -> bool:
    """Whether every value of the query parameter ``name``, as sent, is valid UTF-8."""
    from urllib.parse import parse_qsl

    raw = request.query_string.decode("latin-1")
    try:
        parse_qsl(raw, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        pairs = parse_qsl(raw, encoding="latin-1")
        return all(_utf8(value) for key, value in pairs if key == name)
    return True


def _utf8(latin: str) -> bool:
    try:
        latin.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _checked(args: Mapping[str, str]) -> dict[str, Any]:
    """The query parameters, or a 400 naming what is wrong."""
    # A long query is cut by the search, with a note (kb.search.query.MAX_QUERY, the CLI's too);
    # the server refuses a longer address than it reads (414).
    q = args.get("q", "")
    if _CONTROL.search(q):
        raise PageError(400, _("The query contains control characters."))
    if "\ufffd" in q or ("%" in q and not _sent_as_utf8("q")):
        # Werkzeug keeps bytes that are no UTF-8 (a lone surrogate, %ED%A0%80) percent-encoded:
        # shown back, they would read as what the reader never typed.
        raise PageError(400, _("The query is not valid UTF-8."))
    lang = args.get("lang", "")
    if lang and lang not in LANGS:
        raise PageError(400, _("Unknown language “%(lang)s”: use en, fr or ja.", lang=lang[:20]))
    kind = args.get("kind", "")
    if kind and kind not in KINDS:
        raise PageError(
            400, _("Unknown kind “%(kind)s”: use one of %(kinds)s.", kind=kind[:20], kinds=KINDS)
        )
    edition = args.get("edition", "")
    if len(edition) > 40 or _CONTROL.search(edition):
        raise PageError(400, _("Unknown edition."))
    raw_page = args.get("page", "1")
    if not raw_page.isdigit() or not 1 <= int(raw_page) <= MAX_PAGE:
        raise PageError(400, _("The page must be a number from 1 to %(max)s.", max=MAX_PAGE))
    return {"q": q.strip(), "lang": lang, "kind": kind, "edition": edition, "page": int(raw_page)}


def _search_url(locale: str, params: dict[str, Any], **changes: Any) -> str:
    merged = {k: v for k, v in {**params, **changes}.items() if v not in ("", None, 1)}
    return url_for("pages.search", locale=locale, **merged)


def _hit_url(kb: KnowledgeBase, locale: str, hit: dict[str, Any]) -> str | None:
    kind = hit.get("kind", "rule")
    number = str(hit.get("number") or "")
    key = str(hit.get("key") or "")
    if kind == "glossary":
        return glossary_url(kb, locale, key, hit.get("lang") or "en") if key else None
    if kind in ("card", "ruling"):  # a build with cards (kb.search.cards): key is the URL name
        anchor = "#h-rulings" if kind == "ruling" else ""
        return url_for("pages.card", locale=locale, name=key) + anchor if key else None
    if kind == "example":
        return url_for("pages.example", locale=locale, example_id=key) if key else None
    canonical = hit.get("canonical")
    if kind == "commentary":
        return commentary_url(locale, key) if key else None
    if kind == "tournament":
        return tournament_item_url(kb, locale, key) if key else None
    lang = hit.get("lang") or locale
    newest = kb.newest(lang)
    edition = hit.get("edition")
    if canonical and (edition is None or (newest and newest.id == edition) or lang != locale):
        return rule_url(locale, canonical)
    if edition and try_parse(number):
        return rule_url(locale, number, edition)
    return rule_url(locale, canonical or number)


def _unavailable(data: dict[str, Any]) -> Page:
    """The 503 of a search that cannot run: the form and its message on the page, the error
    envelope (``ok: false``, ``error``) in JSON."""
    return Page("pages/search.html", data, status=503, error=Text(data["message"]))


def search_page(kb: KnowledgeBase, locale: str, args: Mapping[str, str]) -> Page:
    """Run a search (or show the empty form) and group the hits by rule."""
    params = _checked(args)
    pool = get_search()
    data: dict[str, Any] = {
        "query": params["q"],
        "filters": {k: params[k] for k in ("lang", "kind", "edition")},
        "languages": list(LANGS),
        "kinds": list(KINDS),
        "editions": [
            {"id": e.id, "lang": e.lang, "label": edition_label(e, locale)}
            for lang in LANGS
            for e in listed_editions(kb, lang)
        ],
        "available": pool.available,
        "total": 0,
        "groups": [],
        "suggestion": None,
        "page": params["page"],
        "pages": 0,
        "page_links": [],
        "first_page": None,
        "prev_page": None,
        "next_page": None,
        "last_page": None,
        "past_end": False,
        "message": None,
        "message_local": None,
        "notes": [],
    }
    if not pool.available:
        data["message"] = "Search is unavailable: " + (pool.error or "no index") + "."
        if not params["q"]:
            return Page("pages/search.html", data)
        return _unavailable(data)
    if not params["q"]:
        return Page("pages/search.html", data)
    from kb.search import SearchError

    try:
        result = pool.get().search(
            params["q"],
            lang=params["lang"] or None,
            edition=params["edition"] or None,
            kind=params["kind"] or None,
            limit=PER_PAGE,
            page=params["page"],
            # Without a language filter, the reader's own language comes first.
            prefer_lang=None if params["lang"] else locale,
        )
    except SearchUnavailable as error:
        data["available"] = False
        data["message"] = f"Search is unavailable: {error}."
        return _unavailable(data)
    except SearchError as error:
        raise PageError(400, note_text(error.note), query=params["q"]) from None
    found = result.to_json()
    groups: dict[str, dict[str, Any]] = {}
    for hit in found.get("hits", []):
        kind = hit.get("kind")
        if kind in ("section", "rule", "subrule") and hit.get("canonical"):
            key = f"rule:{hit['canonical']}"
        else:
            key = f"{kind}:{hit.get('lang')}:{hit.get('key') or hit.get('number')}"
        url = _hit_url(kb, locale, hit)
        group = groups.setdefault(
            key,
            {
                "kind": kind,
                "canonical": hit.get("canonical"),
                "number": hit.get("canonical") or hit.get("number") or "",
                "title": hit.get("title"),
                "lang": hit.get("lang"),
                "url": url,
                "hits": [],
            },
        )
        ed = kb.editions.get(hit.get("edition") or "")
        label = edition_label(ed, locale) if ed else None
        # The hit's edition and the range of editions that print its text, not every id (a
        # rule of an archive is printed by eighty of them).
        shown = {k: v for k, v in hit.items() if k != "editions"}
        span = _edition_span(kb, hit.get("editions") or [], locale)
        group["hits"].append({**shown, "url": url, "edition_label": label, "editions": span})
    data.update(
        total=found.get("total", 0),
        groups=list(groups.values()),
        suggestion=_suggestion(kb, result, locale, params),
        pages=found.get("pages", 0),
        **_told(kb, result, locale),
    )
    data.update(_pager(locale, params, min(found.get("pages", 0), MAX_PAGE)))
    return Page("pages/search.html", data)


def _edition_span(kb: KnowledgeBase, ids: list[str], locale: str) -> dict[str, Any] | None:
    """The editions that print a hit's text, as a range: ``first`` and ``last`` (id and label)
    and ``count``; None when there are none."""
    eds = [kb.editions[i] for i in ids if i in kb.editions]
    if not eds:
        return None
    first, last = eds[0], eds[-1]
    return {
        "first": {"id": first.id, "label": edition_label(first, locale)},
        "last": {"id": last.id, "label": edition_label(last, locale)},
        "count": len(eds),
    }


def _pager(locale: str, params: dict[str, Any], pages: int) -> dict[str, Any]:
    """Links to the pages around this one, and to the first, previous, next and last pages."""
    page = params["page"]

    def link(n: int) -> dict[str, Any]:
        return {"page": n, "url": _search_url(locale, params, page=n), "current": n == page}

    if 0 < pages < page:
        # Past the end (page 500 of 12): the way back is the last page, and the pager says so.
        return {
            "past_end": True,
            "page_links": [link(n) for n in range(max(1, pages - 8), pages + 1)],
            "first_page": link(1),
            "prev_page": link(pages),
            "next_page": None,
            "last_page": link(pages),
        }
    return {
        "past_end": False,
        "page_links": [link(n) for n in range(max(1, page - 4), min(pages, page + 4) + 1)],
        "first_page": link(1) if page > 1 else None,
        "prev_page": link(page - 1) if page > 1 else None,
        "next_page": link(page + 1) if page < pages else None,
        "last_page": link(pages) if page < pages else None,
    }


def _suggestion(
    kb: KnowledgeBase, result: SearchResult, locale: str, params: dict[str, Any]
) -> dict[str, Any] | None:
    """The corrected query, its URL and the "did you mean" line that links to it (HTML); French
    words as written (the index folds accents: ``priorite`` is shown ``priorité``)."""
    if not result.suggestion:
        return None
    suggested = result.suggestion  # written by the search (its French words with accents)
    url = _search_url(locale, params, q=suggested, page=1)
    link = Markup('<a href="%s">%s</a>') % (url, suggested)
    from kb.search import Note

    line = note_text(Note("did_you_mean", {"suggestion": suggested}))
    return {
        "query": suggested,
        "url": url,
        "text_local": line.local(locale),
        "html": str(line.html(locale, {"suggestion": link})),
    }


def _told(kb: KnowledgeBase, result: SearchResult, locale: str) -> dict[str, Any]:
    """The result's notes in English (``message``, each note's ``text``) and in the reader's
    language (``message_local``, ``text_local``); the page shows the local ones."""
    notes = []
    for item in result.notes:
        changes = {}
        if item.code == "renumbered" and locale != "en":
            # The search names the rule by its English title; the reader's own is better.
            title = _local_title(kb, str(item.params.get("canonical")), locale)
            if title:
                changes["title"] = title
        notes.append({**item.to_json(), "text_local": note_text(item, **changes).local(locale)})
    # The "did you mean" line links the suggestion (see _suggestion): the message need not say it.
    shown = [n["text_local"] for n in notes if n["code"] != "did_you_mean"]
    return {
        "message": result.message or None,
        "message_local": join_sentences(shown, locale) or None,
        "notes": notes,
    }


def _local_title(kb: KnowledgeBase, canonical: str, locale: str) -> str | None:
    """The title the search named a current rule by (its own or its nearest titled ancestor's
    in English), in ``locale``; None when that text has no such title."""
    num = try_parse(canonical)
    while num is not None:
        english = kb.current(str(num), "en")
        if english is not None and english.title:
            rule = kb.current(str(num), locale)
            return rule.title if rule is not None and rule.title else None
        num = num.parent
    return None


def _with_terms(
    kb: KnowledgeBase, found: list[str], prefix: str, lang: str, limit: int
) -> list[str]:
    """Completions completed by the term base's names in ``lang`` that start with ``prefix``:
    a language without a glossary of its own (Japanese: 優 -> 優先権) still completes its
    terms, and one character is enough where a word is one character."""
    wanted = prefix.strip().lower()
    names = sorted(
        {n for term in kb.terms for n in term.names(lang) if n.lower().startswith(wanted)},
        key=lambda n: (len(n), n),
    )
    seen: dict[str, str] = {}
    for name in [*found, *names]:
        seen.setdefault(name.casefold(), name)  # "Legend" and "legend" are one completion
    return list(seen.values())[:limit]


def suggestions(kb: KnowledgeBase, prefix: str, lang: str, limit: int = 8) -> list[str]:
    """Completions for the browser's search box: index terms, else rule and glossary titles."""
    prefix = prefix.strip()
    if not prefix or _CONTROL.search(prefix):  # the search reads its first MAX_QUERY characters
        return []
    pool = get_search()
    if pool.available:
        from kb.search import SearchError

        try:
            found = pool.get().suggest(prefix, lang, limit=limit)
        except (SearchError, SearchUnavailable):
            return []
        return _with_terms(kb, _as_written(kb, found, lang), prefix, lang, limit)
    wanted = prefix.lower()
    out: list[str] = []
    for ed in reversed(kb.editions_of(lang)):
        for entry in kb.glossary.get(ed.id, {}).values():
            if entry.term.lower().startswith(wanted) and entry.term not in out:
                out.append(entry.term)
        for rule in kb.rules.get(ed.id, {}).values():
            if rule.title and rule.title.lower().startswith(wanted) and rule.title not in out:
                out.append(rule.title)
        if len(out) >= limit:
            break
    return out[:limit]


# ---- routes ---
@twin("/<locale:locale>/search", "search")
def search(locale: str, fmt: str = "html") -> Page | Response:
    """Full-text search with filters, suggestions and paging; on the page, a query that is one
    rule number (in any spelling, no filter) opens that rule in the locale's language."""
    if fmt == "html":
        target = _number_target(request.args, locale)
        if target is not None:
            return redirect(target, 302)
    return search_page(get_kb(), locale, request.args)


def _number_target(args: Mapping[str, str], locale: str) -> str | None:
    """The rule page a typed number opens (``117.3b``, ``ルール117.3b``): the current rule by
    that number, or (an old number) the page that redirects to what it became; None for any
    other query or a filtered search (the reader asked for a list)."""
    q = (args.get("q") or "").strip()
    if not q or len(q) > 40 or any(args.get(k) for k in ("lang", "kind", "edition", "page")):
        return None
    numbers = parse_number_query(q)
    if not numbers or len(numbers) != 1:
        return None
    kb = get_kb()
    number = numbers[0]
    if number not in kb.concordance and not any(kb.find(lang, number) for lang in LANGS):
        return None  # no rule by that number anywhere: the search says so
    return rule_url(locale, number)
