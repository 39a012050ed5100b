"""Rule pages: the current rule by canonical number and a rule as one edition printed it, with
its subtree, references, terms, translations, history and examples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, current_app, redirect, request

from kb.base.cachemap import MISSING, keep, shared_cache
from kb.history import diffs as stored_history
from kb.knowledge import lookup
from kb.knowledge.asks import ask_json
from kb.knowledge.lookup import followed_editions, lag, local_term, term_entry
from kb.knowledge.model import LANGS, Edition, ExampleInfo, KnowledgeBase, Ref, Rule, parsed_number
from kb.knowledge.serialise import rule_json
from kb.store.reader import RuleHead
from kb.web.current import current
from kb.web.i18n import LANGUAGE_NAMES
from kb.web.i18n import text as _
from kb.web.pages import rule_body
from kb.web.pages.base import Page, PageError, suffix, twin
from kb.web.pages.cards import card_href, card_terms
from kb.web.pages.common import (
    anchor,
    edition_info,
    find_rule,
    glossary_url,
    not_found_rule,
    numbering_notices,
    parse_number,
    printed_url,
    rule_url,
    short,
)
from kb.web.pages.examples import example_summary, trace_rows
from kb.web.pages.history import HistoryEntries, history, old_numbers
from kb.web.pages.rule_twin import compact
from kb.web.render import rule_html
from kb.web.resources import get_kb
from kb.web.urls import url_for

MAX_PAGE_EXAMPLES = 3


MAX_PAGE_TRACE = 12


SUBTREE_BUDGET = 20_000


RENDER_BUDGET = 24_000


MAX_PREVIEWS = 30


MAX_TERMS = 24


#: Glossary terms and examples kept as pages show them (shared by every page that names them).
TERM_ITEMS = 8192
EXAMPLE_ITEMS = 1024


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
    resolve = _ref_links(get_kb(), locale, rule, pinned)
    return lambda ref: resolve(ref)[0]


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
    num = parsed_number(rule.number)
    spans: list[tuple[str, int, int]] = []
    if terms is not None:
        for key, start, end in rule.term_spans:
            # The build also names concepts of the term base that have no glossary entry to
            # link to ("play a land"): those stay plain text.
            if key not in terms and term_entry(kb, key, rule.lang, rule.edition) is not None:
                terms.add(key)
                spans.append((key, start, end))
    href = _ref_href(locale, rule, pinned)
    spans += card_terms(kb, rule.edition, "rule", rule.number)  # a build with cards

    def term_href(key: str) -> str:
        return card_href(locale, key) or glossary_url(kb, locale, key)

    examples = []
    for i, text in enumerate(rule.examples):
        refs = rule.example_refs[i] if i < len(rule.example_refs) else []
        named = card_terms(kb, rule.edition, "example", f"{rule.number}#{i}")
        html = (
            rule_html(text, refs, href, named, term_href) if named else rule_html(text, refs, href)
        )
        examples.append({"text": text, "html": html})
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


def _terms(kb: KnowledgeBase, rules: list[Rule], locale: str) -> list[dict[str, Any]]:
    keys = list(dict.fromkeys(k for rule in rules for k in rule.terms))
    out = []
    lang = rules[0].lang if rules else locale
    edition = rules[0].edition if rules else None
    cache = shared_cache(kb, "_term_items")
    if cache is None:
        cache = {}
    root = current().request.root_path  # type: ignore[union-attr]
    for key in keys:
        wanted = (key, lang, edition, locale, root)
        item = cache.get(wanted, MISSING)
        if item is MISSING:
            item = _term_item(kb, key, lang, edition, locale)
            keep(cache, wanted, item, TERM_ITEMS)
        if item is not None:
            out.append(item)  # type: ignore[arg-type]
    return out


def _term_item(
    kb: KnowledgeBase, key: str, lang: str, edition: str | None, locale: str
) -> dict[str, Any] | None:
    """A glossary term as the terms list of a page shows it (None: no entry defines it)."""
    entry = term_entry(kb, key, lang, edition)
    if entry is None:
        return None
    return {
        "key": key,
        "term": entry.term,
        "local": local_term(kb, entry, locale),
        "definition": short(entry.definition, 240),
        "lang": entry.lang,
        "url": glossary_url(kb, locale, entry.key, entry.lang),
    }


def _translations(
    kb: KnowledgeBase, rule: Rule, locale: str, by_lang: HistoryEntries
) -> list[dict[str, Any]]:
    """The same rule in the other languages, with their edition and how far it lags.

    The newest text of each language is the last entry of the lineage's history there (what
    :meth:`~kb.knowledge.model.KnowledgeBase.counterparts` finds, without asking the lineage again)."""
    if not rule.canonical:
        return []
    out = []
    if rule.lineage in (None, rule.canonical):
        found = {}
        for lang, entries in by_lang.items():
            newest = kb.rule(entries[-1][0], entries[-1][1]) if lang != rule.lang else None
            if newest is not None:
                found[lang] = newest
    else:
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
                "edition": _edition_info(kb, ed, locale),
                "lag": _lag(kb, ed),
                "url": rule_url(lang, rule.canonical),
            }
        )
    return out


def _example_item(kb: KnowledgeBase, ex: ExampleInfo, locale: str) -> dict[str, Any]:
    """An example as a rule page shows it: its summary and the start of its trace (kept per
    example and locale: the same few examples are shown on every page of the rules they cite)."""
    cache = shared_cache(kb, "_example_items")
    if cache is None:
        cache = {}
    key = (ex.id, locale, current().request.root_path)  # type: ignore[union-attr]
    item = cache.get(key)
    if item is None:
        item = example_summary(ex, locale)
        rows = trace_rows(ex, locale)
        item["trace"] = rows[:MAX_PAGE_TRACE]
        item["trace_more"] = max(0, len(rows) - MAX_PAGE_TRACE)
        keep(cache, key, item, EXAMPLE_ITEMS)
    return item  # type: ignore[no-any-return]


def _asks(kb: KnowledgeBase, canonical: str, locale: str) -> dict[str, Any] | None:
    """What players ask about the rule ("Players ask"): the questions citing it in the page's
    language, else in English (marked as such), each a search link; None when none cites it."""
    lang, asks, more = kb.asks_for(canonical, locale)
    if not asks:
        return None
    return {
        "lang": lang,
        "fallback": lang != locale,
        "more": more,
        "items": [
            {**ask_json(a), "url": url_for("pages.search", locale=locale, q=a.q)} for a in asks
        ],
    }


def _edition_info(kb: KnowledgeBase, ed: Edition, locale: str) -> dict[str, Any] | None:
    """:func:`edition_info`, kept per knowledge base, edition and locale (rule pages only read
    it; a page that adds to its edition's info makes its own)."""
    cache = shared_cache(kb, "_edition_infos")
    if cache is None:
        return edition_info(ed, locale)
    found = cache.get((ed.id, locale))
    if found is None or found[0] is not ed:
        found = cache[(ed.id, locale)] = (ed, edition_info(ed, locale))
    return found[1]  # type: ignore[no-any-return]


def _lag(kb: KnowledgeBase, ed: Edition) -> dict[str, Any]:
    """:func:`kb.knowledge.lookup.lag`, kept per knowledge base and edition (it reads the editions only)."""
    cache = shared_cache(kb, "_lags")
    if cache is None:
        return lag(kb, ed)
    found = cache.get(ed.id)
    if found is None or found[0] is not ed:
        found = cache[ed.id] = (ed, lag(kb, ed))
    return found[1]  # type: ignore[no-any-return]


def _text_bytes(rule: Rule) -> int:
    return len(rule.text.encode()) + sum(len(x.encode()) for x in rule.examples)


def _subtree(kb: KnowledgeBase, rule: Rule, budget: int) -> list[Rule] | None:
    """:meth:`~kb.knowledge.model.KnowledgeBase.subtree` read a level at a time (one query per level);
    None as soon as the texts below pass ``budget`` (the page then shows the children only)."""
    loaded = {rule.number: rule}
    level = [rule]
    size = _text_bytes(rule)
    while level:
        wanted = [(rule.edition, c) for node in level for c in node.children if c not in loaded]
        level = []
        for (_ed, number), node in lookup.rules_many(kb, wanted).items():
            if node is not None and number not in loaded:
                loaded[number] = node
                level.append(node)
                size += _text_bytes(node)
        if size > budget:
            return None

    def walk(node: Rule) -> list[Rule]:
        out = [node]
        for child in node.children:
            found = loaded.get(child)
            if found is not None:
                out.extend(walk(found))
        return out

    nodes = walk(rule)
    return nodes if sum(_text_bytes(n) for n in nodes) <= budget else None


def _ref_targets(kb: KnowledgeBase, rules: list[Rule], pinned: str | None) -> list[tuple[str, str]]:
    """Where the references of ``rules`` are first looked up (see :func:`_ref_links`)."""
    out = []
    for rule in rules:
        if rule.edition not in kb.editions:
            continue
        first = pinned or followed_editions(kb, kb.editions[rule.edition])[0]
        out.extend((first, ref.number) for ref in rule.refs)
        out.extend((first, ref.number) for refs in rule.example_refs for ref in refs)
    return out


def rule_page(
    kb: KnowledgeBase, locale: str, rule: Rule, fallback: bool, pinned: str | None = None
) -> Page:
    """A rule and its subtree with everything around it.

    The rules it shows beside its own (children, ancestors, neighbours, the rules that cite it,
    its text in the other languages, the rules it cites) are read together first, in a query or
    two, rather than one by one as the page meets them."""
    canonical = rule.canonical
    num = parsed_number(rule.number)
    depth0 = num.depth if num else 0
    # The lineage's history (precomputed by the build): its rows, its old numbers and where
    # its text is in the other languages, in one lookup.
    lineage = canonical or rule.lineage  # a rule deleted since has its history too
    by_lang = stored_history.entries(kb, lineage) if lineage else {}
    back = kb.referenced_by(rule)[:20]
    prev_number, next_number = lookup.neighbour_numbers(kb, rule)
    ancestors = [str(anc) for anc in reversed(num.ancestors())] if num is not None else []
    # Ancestors are read whole: the pages of their other descendants show them too (kept).
    wanted = [(rule.edition, n) for n in (*rule.children, *ancestors)]
    translated = []
    if canonical and rule.lineage in (None, canonical):
        translated = [(e[-1][0], e[-1][1]) for lang, e in by_lang.items() if lang != rule.lang]
    wanted += translated
    wanted += _ref_targets(kb, [rule], pinned)
    # The neighbours and the rules citing this one are links only: their heads do.
    linked_only = {(rule.edition, n) for n in (prev_number, next_number, *back) if n is not None}
    found = lookup.rules_many(kb, wanted, linked_only)

    nodes = None if rule.kind == "section" else _subtree(kb, rule, SUBTREE_BUDGET)
    shallow = nodes is None
    children = [c for c in (kb.rule(rule.edition, n) for n in rule.children) if c]
    lookup.rules_many(
        kb,
        [
            *_ref_targets(kb, nodes[1:] if nodes else children, pinned),
            *_ref_targets(kb, [r for r in (found[t] for t in translated) if r], None),
        ],
    )
    linked: set[str] = set()
    root = _node(kb, rule, locale, pinned, depth0, linked)
    subtree = (
        [] if nodes is None else [_node(kb, n, locale, pinned, depth0, linked) for n in nodes[1:]]
    )
    size = sum(len(n["html"]) + sum(len(x["html"]) for x in n["examples"]) for n in subtree)
    if shallow or size > RENDER_BUDGET:
        shallow = True
        nodes = [rule, *children]
        subtree = [_node(kb, n, locale, pinned, depth0) for n in nodes[1:]]
    assert nodes is not None
    ed = kb.editions[rule.edition]

    def link(r: Rule | RuleHead | None) -> dict[str, Any] | None:
        if r is None:
            return None
        url = rule_url(locale, r.number, pinned) if pinned or not r.canonical else None
        url = url or rule_url(locale, r.canonical or r.number)
        return {"number": r.number, "title": r.title or short(r.text, 60), "url": url}

    def head(number: str | None) -> Rule | RuleHead | None:
        """A rule read above as a link (its head), else as a rule."""
        if number is None:
            return None
        found_head = found.get((rule.edition, number), MISSING)
        return kb.rule(rule.edition, number) if found_head is MISSING else found_head

    crumbs = []
    for anc in ancestors:
        parent = head(anc)
        if parent is not None:
            crumbs.append(link(parent))
    prev = head(prev_number)
    nxt = head(next_number)
    examples = kb.examples_for(canonical) if canonical else []
    asks = _asks(kb, canonical, locale) if canonical else None
    # A static export writes a page per version of a rule: there, the history and the engine's
    # examples (the rule's, the same on every version) are on the current rule's page, linked.
    shared = bool(pinned and canonical and current_app.config.get("EXPORT"))
    shown_examples = [] if shared else examples[:MAX_PAGE_EXAMPLES]
    shown = [_example_item(kb, ex, locale) for ex in shown_examples]
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
        "edition": _edition_info(kb, ed, locale),
        "lag": _lag(kb, ed) if ed.lang != "en" else None,
        "current_url": rule_url(locale, canonical) if canonical else None,
        "subtree": subtree,
        "shallow": shallow,
        "breadcrumbs": crumbs,
        "prev": link(prev),
        "next": link(nxt),
        "previews": _previews(kb, nodes, locale, pinned)[:MAX_PREVIEWS],
        "terms": _terms(kb, nodes[:1] if shallow else nodes, locale)[:MAX_TERMS],
        "translations": _translations(kb, rule, locale, by_lang),
        "history": history(kb, lineage, locale, by_lang, full=False)
        if lineage and not shared
        else [],
        "history_url": rule_url(locale, canonical) + "#history" if shared and canonical else None,
        "old_numbers": old_numbers(kb, lineage, locale, by_lang) if lineage else [],
        "referenced_by": [link(head(n)) for n in back],
        "examples": shown,
        "more_examples": max(0, len(examples) - len(shown)),
        "asks": asks,
        "permalink": permalink,
        "numbering": numbering_notices(kb, rule, locale, request.args.get("via"), pinned),
    }
    return Page(
        "pages/rule.html",
        data,
        alternates=alternates,
        written=rule_body.blocks,
        # The JSON twin lists every entry of the history, the page only those its rows show.
        # ?history=all: every history entry; else runs (kb.web.pages.rule_twin). Engine traces
        # are behind each example's link either way.
        json=lambda: compact(
            {
                **rule_json(kb, rule),
                "page": {
                    **data,
                    "history": history(kb, lineage, locale, by_lang)
                    if lineage and not shared
                    else [],
                },
            },
            locale,
            request.args.get("history") == "all",
        ),
    )


# ---- routes ---
def _rule_number(text: str) -> str:
    num = parse_number(text)
    if num is None:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise PageError(
            404,
            _("“%(text)s” is not a rule number (try 117, 117.3 or 117.3a).", text=shown),
            number=shown,
            suggestions=[],
        )
    return str(num)


@twin("/<locale:locale>/rules/<number>", "rule")
def rule(locale: str, number: str, fmt: str = "html") -> Page | Response:
    """The current rule for a canonical number, in the locale's language where it exists."""
    kb = get_kb()
    key = _rule_number(number)
    edition = request.args.get("edition")
    if key != number and not edition:
        return redirect(suffix(url_for("pages.rule", locale=locale, number=key), fmt), 301)
    found = find_rule(kb, locale, key, edition)
    if found.how in ("current", "deleted"):
        assert found.rule is not None
        return rule_page(kb, locale, found.rule, found.fallback)
    # An old number of a named edition that became a current rule leads there for good (301).
    # The others may lead elsewhere later: an old number (116.3b before July 2019) to the rule
    # it became, as a later edition may give the number to another rule; a misprint to the
    # rule that printed it; a rule deleted since to the edition's page.
    moved = found.how == "old" and found.rule is not None and found.rule.canonical
    return redirect(suffix(found.url + found.via, fmt), 301 if moved else 302)


@twin("/<locale:locale>/<edition>/rules/<number>", "rule_pinned")
def rule_pinned(locale: str, edition: str, number: str, fmt: str = "html") -> Page | Response:
    """A rule as it was in one edition (its number in that edition's numbering)."""
    kb = get_kb()
    key = _rule_number(number)
    ed = lookup.rule_edition(kb, edition, locale, key)
    if ed is None:
        raise PageError(
            404,
            _("No edition “%(edition)s”.", edition=edition[:40]),
            editions=[e for e in kb.editions],
        )
    if ed.id != edition or key != number:
        target = url_for("pages.rule_pinned", locale=locale, edition=ed.id, number=key)
        return redirect(suffix(target, fmt), 301)
    found = kb.rule(ed.id, key)
    if found is None:
        if target := printed_url(kb, locale, key, ed.id):  # a misprint: the rule that printed it
            return redirect(suffix(target, fmt), 302)
        raise not_found_rule(kb, locale, key, ed.id)
    return rule_page(kb, locale, found, fallback=found.lang != locale, pinned=ed.id)
