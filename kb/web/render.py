"""Text to safe HTML: rule texts with their links, word-level diffs (:func:`kb.text.worddiff.word_diff`)
and sanitised Markdown."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import markdown
import nh3
from markupsafe import Markup, escape

from kb.knowledge.model import Ref
from kb.markdown import RuleRefExtension
from kb.text.references import link_html
from kb.text.worddiff import word_diff

__all__ = ["esc", "markdown_html", "rule_html", "word_diff"]

try:
    from markupsafe._speedups import _escape_inner
except ImportError:  # markupsafe without its C speedups

    def _escape_inner(text: str, /) -> str:
        return str(escape(text))


def esc(value: Any) -> str:
    """What ``{{ value }}`` writes with autoescape: a text escaped, :class:`Markup` as it is."""
    kind = type(value)
    if kind is str:
        return _escape_inner(value)  # type: ignore[no-any-return]
    if kind is Markup:
        return value  # type: ignore[no-any-return]
    return str(escape(value))


#: What survives sanitising of rendered Markdown (examples are prose, lists, code and tables).
ALLOWED_TAGS = {
    "a", "p", "br", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote",
    "h2", "h3", "h4", "table", "thead", "tbody", "tr", "th", "td", "hr", "span",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "class", "data-rule", "data-rules", "title"}, "span": {"class"}}


def rule_html(
    text: str,
    refs: Iterable[Ref],
    href: Callable[[Ref], str | None],
    terms: Sequence[tuple[str, int, int]] = (),
    term_href: Callable[[str], str | None] | None = None,
) -> Markup:
    """A rule's text as escaped HTML with its references (and glossary terms) as links.

    ``terms`` are ``(glossary key, start, end)`` spans (``Rule.term_spans``, found at build time).
    """
    if term_href is None:
        return Markup(link_html(text, list(refs), href))
    return Markup(link_html(text, list(refs), href, terms=terms, term_href=term_href))


def markdown_html(text: str, rule_url: Callable[[str], str | None], lang: str = "en") -> Markup:
    """Markdown prose with rule references linked (by :mod:`kb.markdown`, the extension other
    projects use; ``rule_url`` None leaves one unlinked), then sanitised (no script, no raw
    HTML)."""
    ext = RuleRefExtension(build_url=lambda number, _base, _lang: rule_url(number), lang=lang)
    html = markdown.markdown(text, extensions=[ext, "fenced_code", "tables"])
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
    return Markup(clean)
