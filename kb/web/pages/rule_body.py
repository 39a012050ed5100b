"""The content of a rule page written by Python: what the ``content`` block of
``templates/pages/rule.html`` writes for the same data, character for character.

Every uncached rule page is rendered, and Jinja spent most of a page's rendering on the few
hundred small pieces of this block (each value and each loop step passing through its
generators, its context and its attribute lookups). Here each piece is one formatted string.
The template stays what the page means: ``tests/web/test_rule_body.py`` renders both for many
rules (subtrees, examples, history, translations, references, old editions, every locale) and
requires them equal, so a change to one that the other lacks fails there. The messages are the
template's, looked up through the same ``_`` and ``ngettext`` (Babel extracts them from the
template, where they are written too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import current_app, g
from markupsafe import Markup

from kb.base.cachemap import keep
from kb.web.render import esc
from kb.web.urls import url_for


class _Text:
    """The page's message helpers, bound once per page (the template's ``_``, ``ngettext`` and
    ``language`` filter, which read the request's locale), and its fixed messages escaped."""

    __slots__ = ("escaped", "gettext", "language", "ngettext")

    def __init__(self, env: Any, locale: str) -> None:
        self.gettext: Callable[..., str] = env.globals["_"]
        self.ngettext: Callable[..., str] = env.globals["ngettext"]
        self.language: Callable[[str], str] = env.filters["language"]
        self.escaped = _ESCAPED.setdefault((id(env), locale), {})

    def m(self, message: str) -> str:
        """A message without variables, translated and escaped (kept per locale: a page
        writes about thirty of them)."""
        found = self.escaped.get(message)
        if found is None:
            found = self.escaped[message] = esc(self.gettext(message))
        return found


#: (environment id, locale) -> message -> its translation, escaped.
_ESCAPED: dict[tuple[int, str], dict[str, str]] = {}


def blocks(data: dict[str, Any]) -> tuple[Markup, Markup]:
    """The ``title`` and ``content`` blocks of ``pages/rule.html`` for a rule page's ``data``
    (:func:`kb.web.pages.rules.rule_page`), in the request that shows it."""
    rule = data["rule"]
    title = Markup(f"{esc(rule['number'])} {esc(rule['title'] or '')}")
    return title, content(data, current_app.jinja_env, g.locale, url_for)


def content(data: dict[str, Any], env: Any, locale: str, url_for: Callable[..., str]) -> Markup:
    """The ``content`` block of ``pages/rule.html`` for ``data``, with the template
    environment's message helpers, in the interface ``locale``."""
    t = _Text(env, locale)
    _ = t.gettext
    out: list[str] = []
    w = out.append
    lang = data["lang"]
    e_lang = esc(lang)
    e_locale = esc(locale)
    rule = data["rule"]

    w(f'<nav class="crumbs" aria-label="{t.m("Breadcrumbs")}">\n  <ol>\n    <li><a href="')
    w(f'{esc(url_for("pages.rules_index", locale=locale))}">{t.m("Rules")}</a></li>\n')
    for c in data["breadcrumbs"]:
        w(
            f'<li><a href="{esc(c["url"])}" lang="{e_lang}">{esc(c["number"])} '
            f"{esc(c['title'])}</a></li>"
        )
    w("  </ol>\n</nav>\n")
    w(f'<article class="main-rule" lang="{e_lang}" id="{esc(rule["anchor"])}">\n')
    w(
        f'  <h1><span class="num">{esc(rule["display"])}</span> {esc(rule["title"] or "")}'
        f'</h1>\n  <div class="notices" lang="{e_locale}">\n'
    )
    if data["fallback"]:
        w(
            '<p class="notice">'
            + esc(
                _(
                    "Not available in this language: shown in %(language)s.",
                    language=t.language(lang),
                )
            )
            + "</p>"
        )
    edition = data["edition"]
    label = edition["page"]["label"]
    if data["pinned"]:
        w(
            '    <p class="notice">'
            + esc(_("Text as printed in: %(edition)s.", edition=label))
            + "\n"
        )
        current_url = data["current_url"]
        if current_url:
            w(f'<a href="{esc(current_url)}">{t.m("Current rule")} {esc(rule["canonical"])}</a>')
        else:
            w(t.m("This rule no longer exists."))
        w("</p>\n")
    elif rule["canonical"] and rule["canonical"] != rule["number"]:
        w(
            '    <p class="notice">'
            + esc(
                _(
                    "Numbered %(old)s in this text; %(new)s in the current rules.",
                    old=rule["number"],
                    new=rule["canonical"],
                )
            )
            + "</p>\n"
        )
    for n in data["numbering"]:
        link = f' <a href="{esc(n["url"])}">{esc(n["link"])}</a>' if n["url"] else ""
        w(f'    <p class="notice">{esc(n["text"])}{link}</p>\n')
    w(f'    <p class="meta">{esc(data["language"])} · {esc(label)}')
    if edition["kind"] != "full":
        w(f" ({t.m('excerpts')})")
    if data["lag"]:
        w(" · " + esc(_lag_text(t, data["lag"])))
    permalink = esc(data["permalink"])
    w(
        f'    · <a class="permalink" href="{permalink}">{t.m("Permalink")}</a>\n'
        f'    <button type="button" class="copy-link" data-href="{permalink}" '
        f'data-done="{t.m("Copied")}" hidden>{t.m("Copy link")}</button>'
    )
    if rule["canonical"]:  # the rule read side by side (kb.web.pages.sidebyside)
        compare = esc(url_for("pages.compare", locale=locale, number=rule["canonical"]))
        w(f' · <a class="compare" href="{compare}">{t.m("Side by side")}</a>')
    w("</p>\n  </div>\n")
    if rule["text"] and rule["text"] != rule["title"]:
        w(f'<p class="text">{esc(rule["html"])}</p>')
    for ex in rule["examples"]:
        w(f'<p class="example">{esc(ex["html"])}</p>')
    shallow = data["shallow"]
    for n in data["subtree"]:
        _node(w, t, n, shallow)
    w("</article>\n")
    w(f'<nav class="prevnext" aria-label="{t.m("Previous and next rule")}">\n')
    prev, nxt = data["prev"], data["next"]
    if prev:
        w(
            f'<a rel="prev" href="{esc(prev["url"])}">← <span lang="{e_lang}">'
            f"{esc(prev['number'])} {esc(prev['title'])}</span></a>"
        )
    if nxt:
        w(
            f'<a rel="next" href="{esc(nxt["url"])}"><span lang="{e_lang}">'
            f"{esc(nxt['number'])} {esc(nxt['title'])}</span> →</a>"
        )
    w("</nav>\n\n")
    if data["translations"]:
        _translations(w, t, data["translations"], e_locale)
    w("\n")
    if data["terms"]:
        _terms(w, t, data["terms"])
    w("\n")
    if data["previews"]:
        _previews(w, t, data["previews"])
    w("\n")
    if data["referenced_by"]:
        w(
            '<section aria-labelledby="h-back">\n'
            f'  <h2 id="h-back">{t.m("Referred to by")}</h2>\n  <ul class="inline">'
        )
        for r in data["referenced_by"]:
            if r:
                w(f'<li><a href="{esc(r["url"])}">{esc(r["number"])}</a></li>')
        w("</ul>\n</section>\n")
    w("\n")
    if data["history"] or data["old_numbers"] or data.get("history_url"):
        _history(w, t, data, rule)
    w("\n")
    asks = data.get("asks")
    if asks:
        _asks(w, t, asks)
    w("\n")
    if data["examples"] or data["more_examples"]:
        _examples(w, t, data, locale, url_for)
    return Markup("".join(out))


def _asks(w: Callable[[str], Any], t: _Text, asks: dict[str, Any]) -> None:
    """What players ask about the rule: the questions citing it, each a search link."""
    w(
        '<section class="asks" aria-labelledby="h-asks">\n'
        f'  <h2 id="h-asks">{t.m("Players ask")}</h2>\n'
    )
    if asks["fallback"]:
        w(
            '<p class="note">'
            f"{t.m('No question in this language cites this rule yet; in English:')}</p>"
        )
    w(f'  <ul lang="{esc(asks["lang"])}">\n')
    for a in asks["items"]:
        w(f'<li><a href="{esc(a["url"])}">{esc(a["q"])}</a></li>\n')
    w("</ul>\n")
    if asks["more"]:
        more = t.ngettext("%(num)d more question", "%(num)d more questions", asks["more"])
        w(f"<p>{esc(more)}</p>")
    w("</section>\n")


def _lag_text(t: _Text, lag: dict[str, Any]) -> str:
    """The ``lag_text`` macro of ``pages/_lag.html``."""
    editions = lag["editions"]
    if editions is None or (lag["at_least"] and not editions):
        return t.gettext("How far behind the English rules is unknown.")
    if lag["at_least"]:
        return t.ngettext(
            "At least %(num)d English edition behind.",
            "At least %(num)d English editions behind.",
            editions,
        )
    if editions:
        text = t.ngettext(
            "%(num)d English edition behind", "%(num)d English editions behind", editions
        )
        if lag["days"]:
            text += " (" + t.ngettext("%(num)d day", "%(num)d days", lag["days"]) + ")"
        return text + "."
    return t.gettext("Up to date with the English rules.")


def _node(w: Callable[[str], Any], t: _Text, n: dict[str, Any], shallow: bool) -> None:
    """The ``node`` macro: one rule of the subtree."""
    anchor = esc(n["anchor"])
    level = 2 if n["depth"] <= 1 else 3
    title = n["title"]
    w(
        f'<section class="rule depth-{esc(n["depth"])}" id="{anchor}">\n'
        f'  <h{level} class="rule-head"><a class="num" href="#{anchor}">{esc(n["display"])}</a>'
        + (f" {esc(title)}" if title else "")
        + f"</h{level}>\n"
    )
    if n["text"] and n["text"] != title:
        w(f'<p class="text">{esc(n["html"])}</p>')
    for ex in n["examples"]:
        w(f'  <p class="example">{esc(ex["html"])}</p>\n')
    if shallow and n["children"]:
        w(
            f'<p class="more"><a href="{esc(n["url"])}">'
            f"{esc(t.ngettext('%(num)d subrule', '%(num)d subrules', n['children']))}</a></p>"
        )
    w("</section>\n")


def _translations(
    w: Callable[[str], Any], t: _Text, translations: list[dict[str, Any]], e_locale: str
) -> None:
    _ = t.gettext
    w(
        '<section class="translations" aria-labelledby="h-trans">\n'
        f'  <h2 id="h-trans">{t.m("In other languages")}</h2>\n'
        '  <div class="side-by-side">\n'
    )
    for tr in translations:
        e_lang = esc(tr["lang"])
        w(
            f'    <article class="translation" lang="{e_lang}">\n'
            f'      <h3 lang="{e_locale}">{esc(tr["language"])}</h3>\n'
        )
        if tr["missing"]:
            w(
                f'      <p lang="{e_locale}">'
                f"{t.m('No translation of this rule in the corpus.')}</p>\n"
            )
        else:
            w(
                f'      <p class="rule-head"><a href="{esc(tr["url"])}" hreflang="{e_lang}">'
                f'<span class="num">{esc(tr["number"])}</span> {esc(tr["title"] or "")}</a>'
                "</p>\n"
            )
            if tr["text"] != tr["title"]:
                w(f'<p class="text">{esc(tr["html"])}</p>')
            w(f'      <p class="meta" lang="{e_locale}">{esc(tr["edition"]["page"]["label"])}.\n')
            if tr["lag"] and tr["lang"] != "en":
                w(esc(_lag_text(t, tr["lag"])))
            w("</p>\n")
        w("    </article>\n")
    w("  </div>\n</section>\n")


def _terms(w: Callable[[str], Any], t: _Text, terms: list[dict[str, Any]]) -> None:
    w(
        '<section aria-labelledby="h-terms">\n'
        f'  <h2 id="h-terms">{t.m("Glossary terms")}</h2>\n'
        '  <dl class="terms">\n'
    )
    for term in terms:
        local = term["local"]
        fields = (term["key"], local, term["url"], term["lang"], term["term"], term["definition"])
        found = _TERM_HTML.get(fields)
        if found is None:
            e_lang = esc(term["lang"])
            found = (
                f'    <dt data-term="{esc(term["key"])}">'
                + (f'<span class="term-local">{esc(local)}</span> (' if local else "")
                + f'<a href="{esc(term["url"])}" lang="{e_lang}">{esc(term["term"])}</a>'
                + (")" if local else "")
                + f'</dt>\n    <dd lang="{e_lang}">{esc(term["definition"])}</dd>\n'
            )
            keep(_TERM_HTML, fields, found, TERM_HTML_ITEMS)
        w(found)
    w("  </dl>\n</section>\n")


#: A glossary term of a page's list as written, by its fields: the same few hundred terms are
#: listed on page after page (eight a page, five escaped values each).
_TERM_HTML: dict[tuple[Any, ...], str] = {}
TERM_HTML_ITEMS = 2048


def _previews(w: Callable[[str], Any], t: _Text, previews: list[dict[str, Any]]) -> None:
    w(
        '<section aria-labelledby="h-refs">\n'
        f'  <h2 id="h-refs">{t.m("Rules referred to")}</h2>\n'
        '  <ul class="previews">\n'
    )
    for p in previews:
        url = esc(p["url"])
        e_lang = esc(p["lang"])
        w(
            f'    <li data-preview="{url}"><a href="{url}"><span class="num">{esc(p["number"])}'
            f'</span> <span lang="{e_lang}">{esc(p["title"] or "")}</span></a> '
            f'<span class="preview-text" lang="{e_lang}">{esc(p["text"])}</span></li>\n'
        )
    w("  </ul>\n</section>\n")


def _history(w: Callable[[str], Any], t: _Text, data: dict[str, Any], rule: dict[str, Any]) -> None:
    _ = t.gettext
    ngettext = t.ngettext
    w(
        '<section class="history" id="history" aria-labelledby="h-history">\n'
        f'  <h2 id="h-history">{t.m("History")}</h2>\n'
    )
    if data.get("history_url"):
        number = rule["canonical"] or rule["number"]
        w(
            f'<p><a href="{esc(data["history_url"])}">'
            f"{esc(t.gettext('History of rule %(number)s in English', number=number))}</a></p>"
        )
    old_numbers = data["old_numbers"]
    if old_numbers:
        w(f"  <p>{t.m('Earlier numbers:')}\n")
        last = len(old_numbers) - 1
        for i, o in enumerate(old_numbers):
            if o["from"] and o["from"] != o["until"]:
                text = _(
                    "%(number)s in the editions of %(start)s to %(end)s",
                    number=o["number"],
                    start=o["from_display"],
                    end=o["until_display"],
                )
            else:
                text = _(
                    "%(number)s in the edition of %(date)s",
                    number=o["number"],
                    date=o["until_display"] or "?",
                )
            w(f'<span class="old-number">{esc(text)}</span>' + ("; " if i != last else ""))
        w("</p>\n")
    history = data["history"]
    names = {  # escaped
        "same": t.m("unchanged"),
        "moved": t.m("moved"),
        "edited": t.m("edited"),
        "created": t.m("created"),
        "first": t.m("first edition in the corpus"),
        "deleted": t.m("deleted"),
    }
    for h in history:
        h_lang = h["lang"]
        w(f'  <h3 id="history-{esc(h_lang)}">{esc(h["language"])}</h3>\n')
        deleted = h["deleted"]
        if h["count"] == 1 and not deleted:
            e = h["rows"][0]["entry"]
            w(
                '  <p class="single-edition">'
                + esc(
                    _(
                        "This is the only edition of this text in %(language)s in the corpus.",
                        language=t.language(h_lang),
                    )
                )
                + f'\n    <a href="{esc(e["url"])}">{esc(e["number"])} · '
                f"{esc(e['date_display'] or e['label'])}</a>.\n"
            )
            if h_lang != "en" and any(x["lang"] == "en" for x in history):
                w(
                    '<a href="#history-en">'
                    + esc(
                        _(
                            "History of rule %(number)s in English",
                            number=rule["canonical"] or rule["number"],
                        )
                    )
                    + "</a>."
                )
            w("</p>\n")
            continue
        rows = h["rows"]
        w(
            '  <p class="meta">'
            + esc(ngettext("%(num)d edition", "%(num)d editions", h["count"]))
            + " · "
            + esc(ngettext("%(num)d change", "%(num)d changes", len(rows) - 1 + bool(deleted)))
            + '</p>\n  <table class="history-table">\n'
            f'    <thead><tr><th scope="col">{t.m("Edition")}</th><th scope="col">'
            f'{t.m("Number")}</th><th scope="col">{t.m("Change")}</th></tr></thead>\n'
            "    <tbody>\n"
        )
        e_lang = esc(h_lang)
        for i, r in enumerate(rows):
            e = r["entry"]
            renumbered = e["renumbered_from"]
            number = (
                f'<span class="renumbered">{esc(renumbered)} → {esc(e["number"])}</span>'
                if renumbered
                else esc(e["number"])
            )
            diff = e["diff"]
            if i == 0:
                change = e["change"]
                if change in (None, "first", "same"):
                    name = names["first"]
                else:
                    name = names[change] if change in names else esc(change)
            elif diff or e["change"] == "edited":
                name = names["edited"]
            else:
                name = names["moved"]
            w(
                "      <tr>\n"
                f'        <td><a href="{esc(e["url"])}">{esc(e["date_display"] or e["label"])}'
                f"</a></td>\n        <td>{number}</td>\n        <td>{name}"
            )
            if diff:
                w(f'<div class="diff" lang="{e_lang}">{esc(diff)}</div>')
            unchanged = r["unchanged"]
            if unchanged:
                until = r["until"]
                w(
                    '<p class="unchanged">'
                    + esc(
                        ngettext(
                            "then unchanged in %(num)d more edition, to %(date)s",
                            "then unchanged in %(num)d more editions, to %(date)s",
                            unchanged,
                            date=until["date_display"] or until["label"],
                        )
                    )
                    + f' (<a href="{esc(until["url"])}">{esc(until["number"])}</a>)</p>'
                )
            w("</td>\n      </tr>\n")
        if deleted:
            w(
                f'      <tr class="deleted">\n        <td><a href="{esc(deleted["url"])}">'
                f"{esc(deleted['date_display'] or deleted['label'])}</a></td>\n"
                f"        <td>{esc(deleted['number'])} → —</td>\n"
                f"        <td>{names['deleted']}</td>\n      </tr>\n"
            )
        w("    </tbody>\n  </table>\n")
    w("</section>\n")


def _cite(r: dict[str, Any]) -> str:
    """A rule a trace step cites: a link to its page, or its number alone where it has none (a
    tournament rule, MTR 4.2: :func:`kb.web.pages.examples.cited_links`)."""
    if r["url"] is None:
        return f'<span class="ref">{esc(r["number"])}</span>'
    return f'<a class="ref" href="{esc(r["url"])}" data-rule="{esc(r["number"])}">{esc(r["number"])}</a>'


def _examples(
    w: Callable[[str], Any],
    t: _Text,
    data: dict[str, Any],
    locale: str,
    url_for: Callable[..., str],
) -> None:
    _ = t.gettext
    w(
        '<section class="examples" aria-labelledby="h-examples">\n'
        f'  <h2 id="h-examples">{t.m("Examples")}</h2>\n'
    )
    for ex in data["examples"]:
        outcome = (
            f'<span class="outcome ok">{t.m("✓ the engine plays it as written")}</span>'
            if ex["passed"]
            else f'<span class="outcome ko">{t.m("✗ the engine’s game differs from the text")}'
            "</span>"
        )
        w(
            '  <details class="example-run">\n'
            f'    <summary><span lang="{esc(ex["title_lang"])}">{esc(ex["title"])}</span> — '
            f"{outcome}</summary>\n"
            f'<ol class="trace" aria-label="{t.m("Engine trace")}">\n'
        )
        for step in ex["trace"]:
            lang = esc(step.get("lang", "en"))
            w(f'  <li class="step" data-step="{esc(step["step"])}" lang="{lang}">')
            w(esc(step["text"]))
            rules = step["rules"]
            if rules:
                w(' <span class="cites">(' + ", ".join(_cite(r) for r in rules) + ")</span>")
            w("</li>\n")
        w(f'</ol>    <p><a href="{esc(ex["url"])}">{t.m("Open the example")}</a>')
        if ex["trace_more"]:
            w(
                " ("
                + esc(t.ngettext("%(num)d more step", "%(num)d more steps", ex["trace_more"]))
                + ")"
            )
        w("</p>\n  </details>\n")
    more = data["more_examples"]
    if more:
        w(
            f'<p><a href="{esc(url_for("pages.examples", locale=locale))}">'
            + esc(t.ngettext("%(num)d more example", "%(num)d more examples", more))
            + "</a></p>"
        )
    w("</section>\n")
