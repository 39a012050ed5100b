"""What each page shows, as plain data: one function per page, shared by its HTML and JSON forms.

Views read the knowledge base and return a :class:`Page` (template name and a JSON-ready dict);
they never build HTML by hand except through :mod:`kb.web.render`, which escapes everything.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import url_for

from kb.model import LANGS, Edition, ExampleInfo, GlossaryEntry, KnowledgeBase, Ref, Rule
from kb.rulenum import RuleNumber, try_parse
from kb.views import edition_json, rule_json
from kb.web.i18n import LANGUAGE_NAMES, Text, format_day, format_month
from kb.web.i18n import text as _
from kb.web.render import markdown_html, rule_html, word_diff

PREVIEW_CHARS = 280
MAX_PAGE_EXAMPLES = 3
#: Steps of each example's trace shown on a rule page (the example's own page has them all).
MAX_PAGE_TRACE = 12
MAX_CHANGES_SHOWN = 400
#: Above this many bytes of text a rule page lists its children instead of its whole subtree,
#: which keeps every page well under 60 KB (section 7 alone is close to a megabyte).
SUBTREE_BUDGET = 20_000
#: The same check on the rendered HTML of the subtree (links and term markup add up).
RENDER_BUDGET = 24_000
MAX_PREVIEWS = 30
MAX_TERMS = 24


@dataclass
class Page:
    """A page's template and data (the data is also the body of the JSON twin)."""

    template: str
    data: dict[str, Any]
    status: int = 200
    #: The same page in each interface locale, for the language switcher.
    alternates: dict[str, str] = field(default_factory=dict)
    #: The JSON twin's body when it is not ``data`` (a rule: the CLI's shape, ``data`` as "page").
    json: dict[str, Any] | None = None


class PageError(Exception):
    """A visitor error (404, 400) with a message and extra data such as suggestions.

    The message is a :class:`Text`: English in logs and the JSON ``error``, the visitor's
    language on the page and in ``error_local``.
    """

    def __init__(self, status: int, message: Text | str, **data: Any) -> None:
        text = message if isinstance(message, Text) else Text(message)
        super().__init__(text.english())
        self.status = status
        self.text = text
        self.message = text.english()
        self.data = data


# ---- URLs --------------------------------------------------------------------------------------
def rule_url(locale: str, number: str, edition: str | None = None) -> str:
    """The page of a rule: current (by canonical number) or pinned to an edition."""
    if edition:
        return url_for("pages.rule_pinned", locale=locale, edition=edition, number=number)
    return url_for("pages.rule", locale=locale, number=number)


def anchor(number: str) -> str:
    """The HTML id of a rule (``R1173a``): dotted numbers never serve as ids."""
    num = try_parse(number)
    return num.anchor if num else "R" + "".join(c for c in number if c.isalnum())


def short(text: str, limit: int = PREVIEW_CHARS) -> str:
    """A text cut at a word boundary for previews."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "…"


def edition_label(ed: Edition, locale: str) -> str:
    """How a reader names an edition: "Edition of 14 November 2025", or for a quoted page
    without a date its title, where it comes from and the numbering it follows."""
    day = format_day(ed.date, locale)
    if day and (ed.kind == "full" or ed.version or not ed.title):
        return _("Edition of %(date)s", date=day).local(locale)
    wiki = any("wiki" in src.rsplit("/", 1)[-1].lower() for src in ed.sources)
    if day:
        if wiki:
            return _("“%(title)s” (wiki) of %(date)s", title=ed.title, date=day).local(locale)
        return _("“%(title)s” of %(date)s", title=ed.title, date=day).local(locale)
    start, _sep, end = (ed.numbering or "").partition("..")
    if start and end and format_month(start, locale) and format_month(end, locale):
        span = {"start": format_month(start, locale), "end": format_month(end, locale)}
        if wiki:
            return _(
                "“%(title)s” (wiki), numbering of %(start)s to %(end)s", title=ed.title, **span
            ).local(locale)
        return _("“%(title)s”, numbering of %(start)s to %(end)s", title=ed.title, **span).local(
            locale
        )
    if ed.title:
        return _("“%(title)s” (wiki)", title=ed.title).local(locale) if wiki else f"“{ed.title}”"
    return ed.id


def edition_info(ed: Edition | None, locale: str) -> dict[str, Any] | None:
    """An edition as ``kb editions --json`` shows it (:func:`kb.views.edition_json`), with what
    a page shows of it under ``page``: its label, title, language name and date for readers."""
    if ed is None:
        return None
    return {
        **edition_json(ed),
        "page": {
            "label": edition_label(ed, locale),
            "title": ed.title,
            "language": LANGUAGE_NAMES.get(ed.lang, ed.lang),
            "date_display": format_day(ed.date, locale),
        },
    }


def resolve_edition(kb: KnowledgeBase, spec: str, lang: str) -> Edition | None:
    """An edition from a URL: an id (any language), else a date or version in ``lang``, else in
    English (``/ja/2011-09-30/…`` shows the English text when Japanese has no such edition)."""
    return kb.resolve_edition(spec, lang) or kb.resolve_edition(spec, "en")


def old_rule(kb: KnowledgeBase, spec: str, lang: str, number: str) -> Rule | None:
    """The rule an old number names in a named edition (its ``canonical`` is the current rule
    it became, None if deleted); None when the edition or the number is unknown."""
    ed = resolve_edition(kb, spec, lang)
    return kb.rule(ed.id, number) if ed else None


def current_for_old(kb: KnowledgeBase, spec: str, lang: str, number: str) -> tuple[Edition, Rule]:
    """:func:`old_rule` for a visitor: its edition and rule, or a :class:`PageError` that names
    the unknown edition (400) or the nearest rules of that edition (404)."""
    ed = resolve_edition(kb, spec, lang)
    if ed is None:
        raise PageError(
            400, _("Unknown edition “%(edition)s”.", edition=spec[:40]), edition=spec[:40]
        )
    old = kb.rule(ed.id, number)
    if old is None:
        raise not_found_rule(kb, lang, number, ed.id)
    return ed, old


def followed_editions(kb: KnowledgeBase, ed: Edition) -> list[str]:
    """The editions whose numbering a text follows, nearest first: itself, what it translates,
    the editions its wording fits (newest first), the edition its numbering names."""
    out = [ed.id]
    node = ed
    for _step in range(4):
        nxt = [node.translates] if node.translates else []
        nxt += list(reversed(node.fits))
        if node.numbering in kb.editions:
            nxt.append(node.numbering)
        nxt = [n for n in nxt if n and n in kb.editions and n not in out]
        if not nxt:
            break
        out.extend(nxt)
        node = kb.editions[nxt[0]]
    return out


def lag(kb: KnowledgeBase, ed: Edition) -> dict[str, Any]:
    """How far a text is behind the newest full English edition, in full English editions and
    days, measured from the text it follows (the original it translates, else itself).

    Undated: ``editions`` is the least number of full editions published after the end of its
    numbering range (``at_least``), ``days`` None; nothing known: both None.
    """
    chain = followed_editions(kb, ed)
    follows = kb.editions[chain[1]] if ed.translates and len(chain) > 1 else ed
    full = kb.editions_of("en", full_only=True)
    out: dict[str, Any] = {
        "follows": follows.id,
        "follows_date": follows.date,
        "numbering": follows.numbering,
        "editions": None,
        "days": None,
        "at_least": False,
    }
    if not full:
        return out
    if follows.date:
        out["editions"] = sum(1 for e in full if e.date and e.date > follows.date)
        newest = full[-1].date
        if newest:
            days = dt.date.fromisoformat(newest) - dt.date.fromisoformat(follows.date)
            out["days"] = max(0, days.days)
        return out
    _start, _sep, end = (follows.numbering or "").partition("..")
    if end[:4].isdigit():
        out["editions"] = sum(1 for e in full if e.date and e.date > end)
        out["at_least"] = True
    return out


# ---- the table of contents -----------------------------------------------------------------------
def toc_edition(kb: KnowledgeBase, locale: str) -> Edition | None:
    """The edition whose sections and rules make the table of contents for a locale."""
    own = kb.newest(locale)
    if own is not None and own.kind == "full":
        return own
    return kb.newest("en") or own


def title_for(kb: KnowledgeBase, rule: Rule, locale: str) -> tuple[str, str]:
    """A rule's title in the locale's language where a translation has it: (title, lang)."""
    if rule.lang != locale and rule.canonical:
        mine = kb.current(rule.canonical, locale)
        if mine is not None and mine.title:
            return mine.title, mine.lang
    return rule.title or short(rule.text, 80), rule.lang


def toc(kb: KnowledgeBase, locale: str, with_rules: bool = True) -> list[dict[str, Any]]:
    """Sections 1-9 and their rules, from the locale's table-of-contents edition."""
    ed = toc_edition(kb, locale)
    if ed is None:
        return []
    table = kb.rules.get(ed.id, {})
    sections: dict[int, dict[str, Any]] = {}
    for number in kb.ordered_numbers(ed.id):
        rule = table[number]
        num = try_parse(number)
        if num is None or num.depth > 1:
            continue
        sec = sections.setdefault(
            num.section,
            {"number": str(num.section), "title": "", "lang": ed.lang, "url": None, "rules": []},
        )
        title, lang = title_for(kb, rule, locale)
        url = rule_url(locale, rule.canonical or number) if rule.canonical else None
        if num.is_section:
            sec.update(title=title, lang=lang, url=url)
        elif with_rules:
            sec["rules"].append({"number": number, "title": title, "lang": lang, "url": url})
    return [sections[k] for k in sorted(sections)]


# ---- home --------------------------------------------------------------------------------------
def home(kb: KnowledgeBase, locale: str) -> Page:
    """Search box, the newest edition of each language and the table of contents."""
    newest = [edition_info(kb.newest(lang), locale) for lang in LANGS if kb.newest(lang)]
    ed = toc_edition(kb, locale)
    return Page(
        "pages/home.html",
        {
            "newest": newest,
            "toc_edition": edition_info(ed, locale),
            "toc": toc(kb, locale),
            "examples": len(kb.examples),
        },
    )


def rules_index(kb: KnowledgeBase, locale: str) -> Page:
    """Every section and rule of the table-of-contents edition (and the anchor mapper)."""
    ed = toc_edition(kb, locale)
    return Page(
        "pages/rules_index.html",
        {"toc_edition": edition_info(ed, locale), "toc": toc(kb, locale)},
    )


# ---- rules -------------------------------------------------------------------------------------
def lookup_rule(kb: KnowledgeBase, locale: str, key: str) -> tuple[Rule, bool] | None:
    """The current rule for a canonical number in the locale's language (or English, flagged)."""
    if key in kb.concordance:
        for lang in (locale, "en", *LANGS):
            rule = kb.current(key, lang)
            if rule is not None:
                return rule, rule.lang != locale
    rule = kb.find(locale, key)
    if rule is not None:
        return rule, False
    rule = kb.find("en", key)
    if rule is not None:
        return rule, locale != "en"
    return None


def canonical_for(kb: KnowledgeBase, locale: str, key: str) -> str | None:
    """The current rule a visitor's number stands for: the number itself when it is a canonical
    id; else an old number's canonical, from the newest edition that printed it (the visitor's
    language first, then English, then the others); None when no live rule has that number."""
    if key in kb.concordance:
        return key
    for lang in dict.fromkeys((locale, "en", *LANGS)):
        rule = kb.find(lang, key)
        if rule is not None and rule.canonical:
            return rule.canonical
    return None


def not_found_rule(kb: KnowledgeBase, locale: str, number: str, edition: str | None) -> PageError:
    """A 404 that names the nearest rules."""
    ed = resolve_edition(kb, edition, locale) if edition else toc_edition(kb, locale)
    lang = ed.lang if ed else locale
    near = kb.nearest(lang, number, ed.id if ed else None) if ed else []
    pinned = edition if edition else None
    message = (
        _("No rule %(number)s in %(edition)s.", number=number, edition=ed.id)
        if ed
        else _("No rule %(number)s in this knowledge base.", number=number)
    )
    return PageError(
        404,
        message,
        number=number,
        suggestions=[
            {"number": n, "url": rule_url(locale, n, pinned) if pinned else rule_url(locale, n)}
            for n in near
        ],
    )


RefLink = Callable[[Ref], tuple[str | None, Rule | None]]


def _ref_links(kb: KnowledgeBase, locale: str, rule: Rule, pinned: str | None) -> RefLink:
    """How the references in ``rule`` link: ``ref -> (url, the rule it names)``; the URL is the
    current rule it became, else its old edition.

    A quote (a wiki page) cites rules it does not quote itself: those are looked up in the
    editions whose numbering the quote follows. Nothing found: ``(None, None)`` (unresolved).
    """
    chain = followed_editions(kb, kb.editions[rule.edition]) if rule.edition in kb.editions else []
    if pinned:
        chain = [pinned, *(e for e in chain if e != pinned)]

    def resolve(ref: Ref) -> tuple[str | None, Rule | None]:
        for ed_id in chain:
            target = kb.rule(ed_id, ref.number)
            if target is None:
                continue
            if ed_id == pinned:
                return rule_url(locale, ref.number, pinned), target
            if ref.canonical:
                return rule_url(locale, ref.canonical), target
            if target.canonical and not pinned:
                return rule_url(locale, target.canonical), target
            return rule_url(locale, ref.number, ed_id), target
        if ref.canonical:
            return rule_url(locale, ref.canonical), kb.current(ref.canonical, rule.lang)
        return None, None

    return resolve


def _ref_href(locale: str, rule: Rule, pinned: str | None) -> Callable[[Ref], str | None]:
    """The URL of each reference in ``rule`` (see :func:`_ref_links`)."""
    resolve = _ref_links(_kb(), locale, rule, pinned)
    return lambda ref: resolve(ref)[0]


def _kb() -> KnowledgeBase:
    from kb.web.resources import get_kb

    return get_kb()


def _node(
    kb: KnowledgeBase,
    rule: Rule,
    locale: str,
    pinned: str | None,
    depth0: int,
    terms: set[str] | None = None,
) -> dict:
    """One rule of a page as data; glossary terms are linked once per page (``terms`` collects
    the keys already linked, None: no term links)."""
    num = try_parse(rule.number)
    spans: list[tuple[str, int, int]] = []
    if terms is not None:
        for key, start, end in rule.term_spans:
            # The build also names concepts of the term base that have no glossary entry to
            # link to ("play a land"): those stay plain text.
            if key not in terms and _glossary_entry(kb, key, rule.lang, rule.edition) is not None:
                terms.add(key)
                spans.append((key, start, end))
    href = _ref_href(locale, rule, pinned)

    def term_href(key: str) -> str:
        return url_for("pages.glossary_entry", locale=locale, key=key)

    examples = []
    for i, text in enumerate(rule.examples):
        refs = rule.example_refs[i] if i < len(rule.example_refs) else []
        examples.append({"text": text, "html": rule_html(text, refs, href)})
    return {
        "number": rule.number,
        "display": num.display if num else rule.number,
        "anchor": anchor(rule.number),
        "depth": (num.depth if num else 0) - depth0,
        "kind": rule.kind,
        "title": rule.title,
        "text": rule.text,
        "html": rule_html(
            rule.text,
            rule.refs,
            href,
            terms=spans,
            term_href=term_href if spans else None,
        ),
        "examples": examples,
        "canonical": rule.canonical,
        "change": rule.change,
        "url": rule_url(locale, rule.number, pinned or rule.edition)
        if pinned or not rule.canonical
        else rule_url(locale, rule.canonical),
        "children": len(rule.children),
    }


def _previews(kb: KnowledgeBase, rules: list[Rule], locale: str, pinned: str | None) -> list[dict]:
    """The rules this subtree refers to, with a short text: shown as a list, used for hovers."""
    seen: dict[str, dict[str, Any]] = {}
    for rule in rules:
        resolve = _ref_links(kb, locale, rule, pinned)
        for ref in [*rule.refs, *(r for refs in rule.example_refs for r in refs)]:
            url, target = resolve(ref)
            if url is None or target is None or url in seen:
                continue
            seen[url] = {
                "url": url,
                "number": ref.number,
                "title": target.title,
                "text": short(target.text),
                "lang": target.lang,
            }
    return list(seen.values())


def _glossary_entry(
    kb: KnowledgeBase, key: str, lang: str, edition: str | None = None
) -> GlossaryEntry | None:
    """The entry a term of a ``lang`` text names: as its own edition defined it (a 2016 rule, the
    2016 glossary), else its language's newest glossary, else the English."""
    own = kb.glossary.get(edition or "", {}).get(key)
    return own or kb.glossary_lookup(key, lang) or kb.glossary_lookup(key, "en")


def local_term(kb: KnowledgeBase, entry: GlossaryEntry, locale: str) -> str | None:
    """The name of a glossary entry's concept in ``locale`` from the term base (the Term whose
    English names hold the entry's key, term or an alias), None when it is already in that
    language or the term base has no name there."""
    if entry.lang == locale:
        return None
    names = {entry.key.lower(), entry.term.lower(), *(a.lower() for a in entry.aliases)}
    for term in kb.terms:
        if names & {n.lower() for n in term.names(entry.lang)}:
            local = term.names(locale)
            return local[0] if local else None
    return None


def _terms(kb: KnowledgeBase, rules: list[Rule], locale: str) -> list[dict[str, Any]]:
    keys: list[str] = []
    for rule in rules:
        keys.extend(k for k in rule.terms if k not in keys)
    out = []
    lang = rules[0].lang if rules else locale
    edition = rules[0].edition if rules else None
    for key in keys:
        entry = _glossary_entry(kb, key, lang, edition)
        if entry is None:
            continue
        out.append(
            {
                "key": key,
                "term": entry.term,
                "local": local_term(kb, entry, locale),
                "definition": short(entry.definition, 240),
                "lang": entry.lang,
                "url": url_for("pages.glossary_entry", locale=locale, key=entry.key),
            }
        )
    return out


def _history(kb: KnowledgeBase, canonical: str, locale: str) -> list[dict[str, Any]]:
    """Per language: the rule in every edition, a word diff where its text changed."""
    out = []
    # The reader's language first, then English (the full history), then the others.
    for lang in sorted(LANGS, key=lambda code: (code != locale, code != "en")):
        entries = kb.history(canonical, lang)
        if not entries:
            continue
        rows = []
        prev: Rule | None = None
        for entry in entries:
            rule = kb.rule(entry["edition"], entry["number"])
            if rule is None:
                continue
            row = {
                **entry,
                "date_display": format_day(entry["date"], locale),
                "label": (
                    edition_label(kb.editions[entry["edition"]], locale)
                    if entry["edition"] in kb.editions
                    else entry["edition"]
                ),
                "url": rule_url(locale, entry["number"], entry["edition"]),
                "renumbered_from": None,
                "diff": None,
            }
            if prev is not None:
                if prev.number != rule.number:
                    row["renumbered_from"] = prev.number
                old = f"{prev.title or ''} {prev.text}".strip()
                new = f"{rule.title or ''} {rule.text}".strip()
                if old != new:
                    row["diff"] = word_diff(old, new)
            rows.append(row)
            prev = rule
        out.append({"lang": lang, "language": LANGUAGE_NAMES[lang], "entries": rows})
    return out


def _old_numbers(kb: KnowledgeBase, canonical: str, locale: str) -> list[dict[str, Any]]:
    """Numbers the rule had before (``116.3b until 2019-06-14``), from the English editions."""
    numbers = kb.concordance.get(canonical, {})
    spans: dict[str, dict[str, Any]] = {}
    for ed in kb.editions_of("en"):
        number = numbers.get(ed.id)
        if number is None or number == canonical:
            continue
        span = spans.setdefault(number, {"number": number, "from": ed.date, "until": ed.date})
        span["until"] = ed.date or span["until"]
    for span in spans.values():
        span["from_display"] = format_day(span["from"], locale)
        span["until_display"] = format_day(span["until"], locale)
    return list(spans.values())


def _translations(kb: KnowledgeBase, rule: Rule, locale: str) -> list[dict[str, Any]]:
    """The same rule in the other languages, with their edition and how far it lags."""
    if not rule.canonical:
        return []
    out = []
    found = kb.counterparts(rule)
    for lang in LANGS:
        if lang == rule.lang:
            continue
        other = found.get(lang)
        if other is None:
            out.append({"lang": lang, "language": LANGUAGE_NAMES[lang], "missing": True})
            continue
        ed = kb.editions[other.edition]
        href = _ref_href(locale, other, None)
        out.append(
            {
                "lang": lang,
                "language": LANGUAGE_NAMES[lang],
                "missing": False,
                "number": other.number,
                "title": other.title,
                "text": other.text,
                "html": rule_html(other.text, other.refs, href),
                "edition": edition_info(ed, locale),
                "lag": lag(kb, ed),
                "url": rule_url(lang, rule.canonical),
            }
        )
    return out


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


def rule_page(
    kb: KnowledgeBase, locale: str, rule: Rule, fallback: bool, pinned: str | None = None
) -> Page:
    """A rule and its subtree with everything around it."""
    nodes = kb.subtree(rule)
    shallow = rule.kind == "section" or (
        sum(len(n.text.encode()) + sum(len(x.encode()) for x in n.examples) for n in nodes)
        > SUBTREE_BUDGET
    )
    num = try_parse(rule.number)
    depth0 = num.depth if num else 0
    linked: set[str] = set()
    root = _node(kb, rule, locale, pinned, depth0, linked)
    subtree = [] if shallow else [_node(kb, n, locale, pinned, depth0, linked) for n in nodes[1:]]
    size = sum(len(n["html"]) + sum(len(x["html"]) for x in n["examples"]) for n in subtree)
    if shallow or size > RENDER_BUDGET:
        shallow = True
        nodes = [rule, *(c for c in (kb.rule(rule.edition, n) for n in rule.children) if c)]
        subtree = [_node(kb, n, locale, pinned, depth0) for n in nodes[1:]]
    ed = kb.editions[rule.edition]

    def link(r: Rule | None) -> dict[str, Any] | None:
        if r is None:
            return None
        url = rule_url(locale, r.number, pinned) if pinned or not r.canonical else None
        url = url or rule_url(locale, r.canonical or r.number)
        return {"number": r.number, "title": r.title or short(r.text, 60), "url": url}

    crumbs = []
    if num is not None:
        for anc in reversed(num.ancestors()):
            parent = kb.rule(rule.edition, str(anc))
            if parent is not None:
                crumbs.append(link(parent))
    prev, nxt = kb.neighbours(rule)
    canonical = rule.canonical
    examples = kb.examples_for(canonical) if canonical else []
    shown = []
    for ex in examples[:MAX_PAGE_EXAMPLES]:
        item = example_summary(ex, locale)
        rows = trace_rows(ex, locale)
        item["trace"] = rows[:MAX_PAGE_TRACE]
        item["trace_more"] = max(0, len(rows) - MAX_PAGE_TRACE)
        shown.append(item)
    permalink = (
        url_for("links.permalink", number=canonical)
        if canonical
        else url_for("pages.rule_pinned", locale=locale, edition=rule.edition, number=rule.number)
    )
    alternates = {
        loc: (
            url_for("pages.rule_pinned", locale=loc, edition=pinned, number=rule.number)
            if pinned
            else url_for("pages.rule", locale=loc, number=canonical or rule.number)
        )
        for loc in LANGS
    }
    data = {
        "rule": root,
        "lang": rule.lang,
        "language": LANGUAGE_NAMES.get(rule.lang, rule.lang),
        "fallback": fallback,
        "pinned": bool(pinned),
        "edition": edition_info(ed, locale),
        "lag": lag(kb, ed) if ed.lang != "en" else None,
        "current_url": rule_url(locale, canonical) if canonical else None,
        "subtree": subtree,
        "shallow": shallow,
        "breadcrumbs": crumbs,
        "prev": link(prev),
        "next": link(nxt),
        "previews": _previews(kb, nodes, locale, pinned)[:MAX_PREVIEWS],
        "terms": _terms(kb, nodes[:1] if shallow else nodes, locale)[:MAX_TERMS],
        "translations": _translations(kb, rule, locale),
        "history": _history(kb, canonical, locale) if canonical else [],
        "old_numbers": _old_numbers(kb, canonical, locale) if canonical else [],
        "referenced_by": [link(kb.rule(rule.edition, n)) for n in kb.referenced_by(rule)[:20]],
        "examples": shown,
        "more_examples": max(0, len(examples) - MAX_PAGE_EXAMPLES),
        "permalink": permalink,
    }
    return Page(
        "pages/rule.html", data, alternates=alternates, json={**rule_json(kb, rule), "page": data}
    )


# ---- glossary ----------------------------------------------------------------------------------
def glossary_edition(kb: KnowledgeBase, locale: str) -> Edition | None:
    """The glossary a locale shows: its language's newest, else the English one."""
    return kb.glossary_edition(locale) or kb.glossary_edition("en")


def glossary_index(kb: KnowledgeBase, locale: str) -> Page:
    """Every entry of the glossary, alphabetically."""
    ed = glossary_edition(kb, locale)
    entries = sorted(kb.glossary.get(ed.id, {}).values(), key=lambda e: e.key) if ed else []
    return Page(
        "pages/glossary_index.html",
        {
            "edition": edition_info(ed, locale),
            "entries": [
                {
                    "key": e.key,
                    "term": e.term,
                    "lang": e.lang,
                    "obsolete": e.obsolete,
                    "url": url_for("pages.glossary_entry", locale=locale, key=e.key),
                }
                for e in entries
            ],
        },
    )


def find_glossary(kb: KnowledgeBase, locale: str, key: str) -> GlossaryEntry | None:
    """An entry by key or alias, in the locale's language first."""
    for lang in (locale, "en", *LANGS):
        entry = kb.glossary_lookup(key, lang)
        if entry is not None:
            return entry
    return None


def glossary_page(kb: KnowledgeBase, locale: str, entry: GlossaryEntry) -> Page:
    """One glossary entry, its references and the same concept in the other languages."""

    def href(ref: Ref) -> str:
        return rule_url(locale, ref.canonical or ref.number)

    names = {entry.term.lower(), *(a.lower() for a in entry.aliases)}
    equivalents = []
    for term in kb.terms:
        if names & {n.lower() for n in term.names(entry.lang)}:
            for lang in LANGS:
                if lang != entry.lang and term.names(lang):
                    equivalents.append({"lang": lang, "names": term.names(lang)})
            break
    return Page(
        "pages/glossary_entry.html",
        {
            "entry": {
                "key": entry.key,
                "term": entry.term,
                "lang": entry.lang,
                "definition": entry.definition,
                "html": rule_html(entry.definition, entry.refs, href),
                "aliases": entry.aliases,
                "obsolete": entry.obsolete,
                "see": [
                    {"term": s, "url": url_for("pages.glossary_entry", locale=locale, key=s)}
                    for s in entry.see
                ],
                "rules": [{"number": n, "url": rule_url(locale, n)} for n in entry.rule_refs],
            },
            "edition": edition_info(kb.editions.get(entry.edition), locale),
            "equivalents": equivalents,
        },
        alternates={
            loc: url_for("pages.glossary_entry", locale=loc, key=entry.key) for loc in LANGS
        },
    )


# ---- editions ----------------------------------------------------------------------------------
def editions(kb: KnowledgeBase, locale: str) -> Page:
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


def changes(kb: KnowledgeBase, locale: str, span: str) -> Page:
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


# ---- examples ----------------------------------------------------------------------------------
def examples_index(kb: KnowledgeBase, locale: str) -> Page:
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


def parse_number(text: str) -> RuleNumber | None:
    """A rule number from a URL segment (any spelling), or None."""
    if len(text) > 40:
        return None
    return try_parse(text)
