"""The editions page (with a selector to compare any two editions of a language) and what
changed between two editions, edits first, the long list of pure moves folded into runs."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Response, redirect, request

from kb.align.concordance import diff_editions
from kb.history.diffs import full_text
from kb.knowledge import lookup
from kb.knowledge.comparison import (
    IncomparableEditions,
    check_comparable,
    excerpt_sides,
    split_excerpt,
)
from kb.knowledge.model import LANGS, Change, Edition, KnowledgeBase
from kb.text.rulenum import try_parse
from kb.web.i18n import LANGUAGE_NAMES, language_name
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, suffix, twin
from kb.web.pages.common import edition_info, rule_url, short
from kb.web.render import word_diff
from kb.web.resources import get_kb
from kb.web.urls import url_for

#: Rules listed per kind of change (the JSON lists every change).
MAX_CHANGES_SHOWN = 400
#: Edited rules shown with their word diff: a diff costs up to 10 ms, the page stays under a second.
MAX_DIFFS = 100
#: Comparisons the build did not make, kept per process (two archive editions take ~0.1 s).
DIFF_CACHE = 64
_diffs: OrderedDict[tuple[str, str, str], list[Change]] = OrderedDict()
_diffs_lock = threading.Lock()


def editions_page(kb: KnowledgeBase, locale: str) -> Page:
    """Every edition per language, a link to what changed into each, and the comparison form."""
    # The comparison that ends at each edition (its previous full edition, not an excerpt).
    into = {span.split("..", 1)[1]: span for span in kb.changes}
    groups = []
    for lang in LANGS:
        rows = []
        for ed in lookup.listed_editions(kb, lang):
            info = edition_info(ed, locale)
            assert info is not None
            span = into.get(ed.id)
            info["page"]["changes_url"] = (
                url_for("pages.changes", locale=locale, span=span) if span else None
            )
            info["page"]["lag"] = lookup.lag(kb, ed) if lang != "en" else None
            info["page"]["contents_url"] = url_for(
                "pages.edition_contents", locale=locale, edition=ed.id
            )
            rows.append(info)
        if rows:
            full = [r for r in rows if r["kind"] == "full"]
            pool = full if len(full) > 1 else rows
            groups.append(
                {
                    "lang": lang,
                    "language": LANGUAGE_NAMES[lang],
                    "editions": rows,
                    # the form's defaults: the two newest complete texts (else the two newest)
                    "compare_from": pool[-2]["id"] if len(pool) > 1 else None,
                    "compare_to": pool[-1]["id"],
                }
            )
    spans = [
        {"span": k, "url": url_for("pages.changes", locale=locale, span=k)} for k in kb.changes
    ]
    return Page("pages/editions.html", {"languages": groups, "comparisons": spans})


def _edition(kb: KnowledgeBase, spec: str, locale: str) -> Edition:
    """One side of a comparison, or a 404 that lists the editions one can compare."""
    ed = lookup.resolve_edition(kb, spec, locale) if spec and len(spec) <= 60 else None
    if ed is None:
        raise PageError(
            404,
            _("No edition “%(edition)s”.", edition=spec[:60]),
            edition=spec[:60],
            editions=[e.id for lang in LANGS for e in lookup.listed_editions(kb, lang)],
        )
    return ed


def compared(kb: KnowledgeBase, old: Edition, new: Edition) -> list[Change]:
    """The changes from ``old`` to ``new``: the build's comparison of neighbours, else computed
    now (any two editions of a language, in either direction) and kept for the next visitor."""
    built = kb.changes.get(f"{old.id}..{new.id}")
    if built is not None:
        return [c for c in built if c.change != "same"]
    key = (kb.content_hash, old.id, new.id)
    with _diffs_lock:
        hit = _diffs.get(key)
        if hit is not None:
            _diffs.move_to_end(key)
            return hit
    found = diff_editions(kb, old.id, new.id)
    with _diffs_lock:
        _diffs[key] = found
        while len(_diffs) > DIFF_CACHE:
            _diffs.popitem(last=False)
    return found


def parse_span(kb: KnowledgeBase, locale: str, span: str) -> tuple[Edition, Edition]:
    """``FROM..TO`` as two editions of one language, or an error that says what is wrong."""
    old_spec, sep, new_spec = span.partition("..")
    if not sep:
        raise PageError(
            404,
            _(
                "No comparison “%(span)s”; compare two editions of one language as FROM..TO.",
                span=span[:60],
            ),
        )
    old, new = _edition(kb, old_spec, locale), _edition(kb, new_spec, locale)
    try:
        check_comparable(old, new)  # the rule kb concordance follows too
    except IncomparableEditions as exc:
        if exc.reason == "same":
            raise PageError(400, _("Choose two different editions to compare.")) from None
        raise PageError(
            400,
            _(
                "Compare two editions of one language: %(old)s is %(old_lang)s, %(new)s is "
                "%(new_lang)s.",
                old=old.id,
                old_lang=language_name(old.lang, locale),
                new=new.id,
                new_lang=language_name(new.lang, locale),
            ),
        ) from None
    return old, new


def changes_page(kb: KnowledgeBase, locale: str, old: Edition, new: Edition) -> Page:
    """What changed from one edition to another: edited rules with their word diff, created and
    deleted rules with their titles, then the pure moves folded into runs."""
    groups: dict[str, list[dict[str, Any]]] = {
        k: [] for k in ("edited", "created", "deleted", "moved")
    }
    # Against an excerpt, the rules it does not quote are counted apart, not as created/deleted.
    kept, apart = split_excerpt(old, new, compared(kb, old, new))
    for change in kept:
        if change.change not in groups:
            continue
        before = kb.rule(old.id, change.old) if change.old else None
        after = kb.rule(new.id, change.new) if change.new else None
        item: dict[str, Any] = {"old": change.old, "new": change.new}
        if change.new:
            item["url"] = rule_url(locale, change.new, new.id)
        if change.old:
            item["old_url"] = rule_url(locale, change.old, old.id)
        if change.change != "moved":
            item["title"] = lookup.rule_context(kb, after or before)
            item["own_title"] = bool((after or before) and (after or before).title)  # type: ignore[union-attr]
        if change.change == "edited" and len(groups["edited"]) < MAX_DIFFS:
            if before and after:
                item["diff"] = word_diff(
                    full_text(before.title, before.text), full_text(after.title, after.text)
                )
        elif change.change in ("created", "deleted"):
            rule = after or before
            item["text"] = short(rule.text, 160) if rule else ""
        groups[change.change].append(item)
    for items in groups.values():
        items.sort(key=lambda i: _sort_key(i.get("new") or i.get("old")))
    span = f"{old.id}..{new.id}"
    return Page(
        "pages/changes.html",
        {
            "from": edition_info(old, locale),
            "to": edition_info(new, locale),
            "span": span,
            "backwards": kb.sort_date(old) > kb.sort_date(new),
            "counts": {k: len(v) for k, v in groups.items()},
            # The sides that hold excerpts only ("from", "to"), and the changes set apart.
            "excerpt": list(excerpt_sides(old, new)),
            "not_compared": [{"change": c.change, "old": c.old, "new": c.new} for c in apart],
            "changes": groups,
            "move_runs": lookup.move_runs(groups["moved"], kb.ordered_numbers(old.id)),
            "limit": MAX_CHANGES_SHOWN,
            "diff_limit": MAX_DIFFS,
            "reverse_url": url_for("pages.changes", locale=locale, span=f"{new.id}..{old.id}"),
            "editions_url": url_for("pages.editions", locale=locale) + f"#h-{old.lang}",
        },
        alternates={loc: url_for("pages.changes", locale=loc, span=span) for loc in LANGS},
    )


def _sort_key(number: str | None) -> tuple[int, int, int]:
    num = try_parse(number or "")
    return num.sort_key() if num else (10**6, 0, 0)


# ---- routes ---
@twin("/<locale:locale>/editions/", "editions")
def editions(locale: str, fmt: str = "html") -> Page | Response:
    """Every edition; with ``?from=&to=`` (the comparison form), the page of that comparison."""
    kb = get_kb()
    wanted_from, wanted_to = request.args.get("from", ""), request.args.get("to", "")
    if wanted_from or wanted_to:
        if not (wanted_from and wanted_to):
            raise PageError(400, _("Choose a second edition to compare."))
        old, new = parse_span(kb, locale, f"{wanted_from}..{wanted_to}")
        target = url_for("pages.changes", locale=locale, span=f"{old.id}..{new.id}")
        return redirect(suffix(target, fmt), 303)
    return editions_page(kb, locale)


@twin("/<locale:locale>/editions/<span>", "changes")
def changes(locale: str, span: str, fmt: str = "html") -> Page | Response:
    """What changed between two editions (``en-2019-06-14..en-2019-07-12``; any two editions of
    a language, either way; dates stand for the editions of the URL's language)."""
    kb = get_kb()
    old, new = parse_span(kb, locale, span)
    if span != f"{old.id}..{new.id}":
        target = url_for("pages.changes", locale=locale, span=f"{old.id}..{new.id}")
        return redirect(suffix(target, fmt), 301)
    return changes_page(kb, locale, old, new)
