"""A Python-Markdown extension that turns rule references in prose into links.

``rule 117.3a``, ``règle 116.3``, ``規則117.3a`` or a bare dotted ``117.3a`` become
``<a class="ref" href="/en/rules/117.3a" data-rule="117.3a">``. Built like the wikilinks extension:
a config table, one inline processor, the URL made by a replaceable function.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor

from kb.rulenum import try_parse

#: A reference: an optional "rule" word in one of our languages, then a dotted rule number; a bare
#: three-digit number only counts after the word (a lone "100" in prose is a life total, not a rule).
RULE_REF_PATTERN = (
    r"(?P<word>\b(?:[Rr]ules?|[Rr]ègles?|[Rr]egles?)\s+|(?:総合ルール|ルール|規則)\s*)?"
    r"(?P<number>(?<![0-9A-Za-z.])[1-9]\d{2}(?:\.\d{1,3}[a-z]?)?(?![0-9A-Za-z]))"
)


def default_url(number: str, base_url: str, end_url: str) -> str:
    """The link of a rule number: base, number, end."""
    return f"{base_url}{number}{end_url}"


class RuleRefInlineProcessor(InlineProcessor):
    """Replaces one rule reference by a link (or leaves the text alone when it is no rule)."""

    def __init__(self, pattern: str, config: dict[str, Any]) -> None:
        super().__init__(pattern)
        self.config = config

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[Any, int | None, int | None]:
        """Build the ``<a>`` for a match; a number that is not a rule stays text."""
        word, raw = m.group("word"), m.group("number")
        number = try_parse(raw)
        if number is None or (word is None and number.minor is None):
            return None, None, None
        key = str(number)
        el = etree.Element("a")
        el.text = m.group(0)
        el.set(
            "href", self.config["build_url"](key, self.config["base_url"], self.config["end_url"])
        )
        el.set("class", self.config["html_class"])
        el.set("data-rule", key)
        return el, m.start(0), m.end(0)


class RuleRefExtension(Extension):
    """Link rule references in Markdown prose (``md.convert("see rule 117.3a")``)."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "base_url": ["/en/rules/", "String prepended to the rule number."],
            "end_url": ["", "String appended to the rule number."],
            "html_class": ["ref", "CSS class of the links."],
            "build_url": [default_url, "Callable (number, base_url, end_url) -> URL."],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        """Register the processor before links so that numbers inside a link stay untouched."""
        processor = RuleRefInlineProcessor(RULE_REF_PATTERN, self.getConfigs())
        processor.md = md
        md.inlinePatterns.register(processor, "rule_ref", 75)


def make_extension(**kwargs: Any) -> RuleRefExtension:
    """Entry point in Python-Markdown's naming convention."""
    return RuleRefExtension(**kwargs)


BuildUrl = Callable[[str, str, str], str]
