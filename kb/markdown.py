"""A Python-Markdown extension that links the rule references of prose to a kb instance.

Any project can use it (a judge's MkDocs site, a blog)::

    markdown.markdown(text, extensions=["kb.markdown"],
                      extension_configs={"kb.markdown": {"base_url": "https://rules.example.org"}})

or by its entry point name, ``extensions=["kb"]``. It reads references with the site's own finder
(:func:`kb.text.references.find_refs`: "rule 117.3b", "CR 704.5j", "rules 601.2f–h", "règle 117.3b",
"ルール117.3b") and renders each printed span as the site does: one ``<a class="ref">`` per number
or range, the range's numbers in ``data-rules``. Card names quoted as ``[[Card Name]]`` or
``《カード名》`` link to the instance's card pages (``« Nom »`` too where ``is_card`` says it is a
card). Text inside links, code, preformatted blocks and
raw HTML is never touched.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from markdown.util import HTML_PLACEHOLDER, AtomicString

from kb.base.urlcheck import base_url_problem
from kb.knowledge.model import LANGS
from kb.text.cardquotes import CardQuote, find_card_quotes
from kb.text.references import find_refs, ref_groups

__all__ = ["RuleRefExtension", "default_card_url", "default_url", "makeExtension"]

#: Elements whose text is never scanned: links, code, and what is not prose.
SKIP_TAGS = frozenset(
    {"a", "code", "pre", "kbd", "samp", "script", "style", "textarea", "button", "select"}
)
# What Python-Markdown leaves in the text for stashed raw HTML: never scanned, never split.
_PLACEHOLDER = re.compile(re.escape(HTML_PLACEHOLDER % "@").replace("@", r"(\d+)"))
# A raw tag in the prose: an opening or closing tag of a skipped element, such as <a href=...>.
_RAW_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)\b[^>]*?(/?)>\Z")

BuildUrl = Callable[[str, str, str], str | None]


def default_url(number: str, base_url: str, lang: str) -> str:
    """The page of a rule on a kb instance: ``{base_url}/{lang}/rules/{number}`` (an old
    number's page redirects to the rule it became)."""
    return f"{base_url.rstrip('/')}/{lang}/rules/{number}"


def no_card(name: str) -> bool:
    """The default ``is_card``: no « quoted » name is taken for a card."""
    return False


def default_card_url(name: str, base_url: str, lang: str) -> str:
    """The page of a card on a kb instance built with a card file:
    ``{base_url}/{lang}/cards/{name}`` (any of the card's names redirects to its page)."""
    return f"{base_url.rstrip('/')}/{lang}/cards/{quote(name, safe='')}"


class RuleRefTreeprocessor(Treeprocessor):
    """Wraps each rule reference of the rendered tree's prose in an ``<a class="ref">``."""

    def __init__(self, md: Markdown, config: dict[str, Any]) -> None:
        super().__init__(md)
        self.lang: str = config["lang"]
        self.base_url: str = config["base_url"]
        self.html_class: str = config["html_class"]
        self.build_url: BuildUrl = config["build_url"]
        self.card_url: BuildUrl | None = config["card_url"]
        self.is_card: Callable[[str], bool] = config["is_card"]

    def run(self, root: etree.Element) -> None:
        """Link the references of every text node outside :data:`SKIP_TAGS`."""
        # Raw inline tags ("<a href=x>rule 117</a>") are placeholders around ordinary text:
        # while one of a skipped element is open (depth > 0), nothing is linked.
        self._raw_depth = 0
        self._walk(root)

    def _raw_tag(self, index: int) -> None:
        blocks = self.md.htmlStash.rawHtmlBlocks
        raw = str(blocks[index]).strip() if index < len(blocks) else ""
        m = _RAW_TAG.match(raw)
        if m and m.group(2).lower() in SKIP_TAGS and not m.group(3):
            self._raw_depth = max(0, self._raw_depth + (-1 if m.group(1) else 1))

    def _walk(self, el: etree.Element) -> None:
        if el.tag in SKIP_TAGS:
            return
        if el.text:
            text, links = self._split(el.text)
            if links:
                el.text = text
                for i, link in enumerate(links):
                    el.insert(i, link)
        # The children are visited first, then their tails, so a link inserted for a tail
        # (after its child) is never scanned again.
        for child in list(el):
            self._walk(child)
            if child.tail:
                text, links = self._split(child.tail)
                if links:
                    child.tail = text
                    at = list(el).index(child) + 1
                    for i, link in enumerate(links):
                        el.insert(at + i, link)

    def _split(self, text: str) -> tuple[str, list[etree.Element]]:
        """The text before the first link, and the links (each carrying the text after it)."""
        if isinstance(text, AtomicString):
            return text, []
        # Placeholders of stashed HTML are kept whole: only the prose between them is read.
        spans: list[tuple[int, int, list[str], CardQuote | None]] = []
        pos = 0
        for m in (*_PLACEHOLDER.finditer(text), None):
            stop = len(text) if m is None else m.start()
            piece = text[pos:stop] if self._raw_depth == 0 else ""
            refs = [
                (pos + start, pos + end, [r.number for r in group], None)
                for start, end, group in ref_groups(find_refs(piece, self.lang), len(piece))
            ]
            spans.extend(refs)
            for named in find_card_quotes(piece) if self.card_url else ():
                start, end = pos + named.start, pos + named.end
                if named.style == "guillemets" and not self.is_card(named.name):
                    continue  # French quotes also quote plain words
                if not any(a < end and start < b for a, b, _, _ in refs):
                    spans.append((start, end, [], named))
            if m is not None:
                self._raw_tag(int(m.group(1)))
                pos = m.end()
        if not spans:
            return text, []
        spans.sort(key=lambda span: span[0])
        links = []
        for i, (start, end, numbers, named) in enumerate(spans):
            link = self._card_link(named) if named else self._link(text[start:end], numbers)
            link.tail = text[end : spans[i + 1][0] if i + 1 < len(spans) else len(text)]
            links.append(link)
        return text[: spans[0][0]], links

    def _card_link(self, quote: CardQuote) -> etree.Element:
        el = etree.Element("a")
        el.set("class", "card")
        el.set("href", self.card_url(quote.name, self.base_url, self.lang))
        el.set("data-card", quote.name)
        el.text = AtomicString(quote.label)
        return el

    def _link(self, label: str, numbers: list[str]) -> etree.Element:
        url = self.build_url(numbers[0], self.base_url, self.lang)
        if not url:  # the instance has no page for it: the reference stays, unlinked
            el = etree.Element("span")
            el.set("class", self.html_class)
            el.text = AtomicString(label)
            return el
        el = etree.Element("a")
        el.set("class", self.html_class)
        el.set("href", url)
        el.set("data-rule", numbers[0])
        if len(numbers) > 1:
            el.set("data-rules", " ".join(numbers))
        el.text = AtomicString(label)
        return el


class RuleRefExtension(Extension):
    """Link rule references in Markdown prose to a kb instance (see the module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "base_url": [
                "",
                "Root URL of the kb instance: an http(s) URL, or a path from this site's root "
                "('' links to this site's root).",
            ],
            "lang": ["en", "Language of the prose (en, fr or ja): how references are read."],
            "html_class": ["ref", "CSS class of the links."],
            "build_url": [
                default_url,
                "Callable (number, base_url, lang) -> URL, or None to leave the reference "
                "unlinked (a rule the instance has no page for).",
            ],
            "card_url": [
                default_card_url,
                "Callable (card name, base_url, lang) -> URL for [[Card Name]] and 《カード名》 "
                "(None: cards are not linked).",
            ],
            "is_card": [
                no_card,
                "Callable (name) -> bool: whether « name » is a card (French quotes also quote "
                "plain words, so they link only when this says so).",
            ],
        }
        super().__init__(**kwargs)
        lang = self.getConfig("lang")
        if lang not in LANGS:
            raise ValueError(f"kb.markdown: unknown lang {lang!r} (expected one of {LANGS})")
        base = self.getConfig("base_url")
        if not isinstance(base, str):
            raise ValueError(f"kb.markdown: base_url is a string, not {base!r}")
        # '' links to this site's root; a bare word would make links relative to each page.
        problem = base_url_problem(base, embedded=True) if base else None
        if problem:
            raise ValueError(f"kb.markdown: base_url {base!r}: {problem}")

    def extendMarkdown(self, md: Markdown) -> None:
        """Run after the inline patterns and the unescaping, on the finished tree."""
        md.treeprocessors.register(RuleRefTreeprocessor(md, self.getConfigs()), "kb_rule_refs", -1)


def makeExtension(**kwargs: Any) -> RuleRefExtension:
    """Python-Markdown's hook (its name) for ``extensions=["kb.markdown"]``."""
    return RuleRefExtension(**kwargs)
