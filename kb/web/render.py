"""Text to safe HTML: rule texts with their links, word-level diffs and sanitised Markdown."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence

import markdown
import nh3
from markupsafe import Markup, escape

from kb.model import Ref
from kb.web.mdext import RuleRefExtension

try:
    from kb.link import link_html as _link_html
except ImportError:  # pragma: no cover - kb.link is written in parallel
    _link_html = None

#: What survives sanitising of rendered Markdown (examples are prose, lists, code and tables).
ALLOWED_TAGS = {
    "a", "p", "br", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote",
    "h2", "h3", "h4", "table", "thead", "tbody", "tr", "th", "td", "hr", "span",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "class", "data-rule", "title"}, "span": {"class"}}


def rule_html(
    text: str,
    refs: Iterable[Ref],
    href: Callable[[Ref], str],
    terms: Sequence[tuple[str, int, int]] = (),
    term_href: Callable[[str], str | None] | None = None,
) -> Markup:
    """A rule's text as escaped HTML with its references (and glossary terms) as links.

    ``terms`` are ``(glossary key, start, end)`` spans, as :class:`kb.link.TermMatcher` finds them.
    """
    refs = list(refs)
    if _link_html is not None:
        if term_href is None:
            return Markup(_link_html(text, refs, href))
        return Markup(_link_html(text, refs, href, terms=terms, term_href=term_href))
    out: list[str] = []
    pos = 0
    for ref in sorted(refs, key=lambda r: r.start):
        if ref.start < pos or ref.end > len(text):
            continue
        out.append(str(escape(text[pos : ref.start])))
        label = escape(text[ref.start : ref.end])
        if ref.resolved:
            out.append(
                f'<a class="ref" href="{escape(href(ref))}" data-rule="{escape(ref.number)}">'
                f"{label}</a>"
            )
        else:
            out.append(str(label))
        pos = ref.end
    out.append(str(escape(text[pos:])))
    return Markup("".join(out))


_TOKEN = re.compile(r"\s+|\d+(?:\.\d+)*[a-z]?|[A-Za-zÀ-ÖØ-öø-ÿœŒ'’-]+|.", re.S)


def word_diff(old: str, new: str) -> Markup:
    """A word-level diff as HTML: removed words in ``<del>``, added in ``<ins>``.

    Latin words are compared whole; Japanese, which has no spaces, is compared per character.
    """
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(str(escape("".join(a[i1:i2]))))
            continue
        if i2 > i1:
            out.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return Markup("".join(out))


def markdown_html(text: str, rule_url: Callable[[str], str]) -> Markup:
    """Markdown prose with rule references linked, then sanitised (no script, no raw HTML)."""
    ext = RuleRefExtension(build_url=lambda number, _base, _end: rule_url(number))
    html = markdown.markdown(text, extensions=[ext, "fenced_code", "tables"])
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
    return Markup(clean)
