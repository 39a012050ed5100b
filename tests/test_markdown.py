"""The Python-Markdown extension (kb.markdown): real documents, code left alone, one finder."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from kb.markdown import RuleRefExtension
from kb.text.references import find_refs
from kb.web.render import markdown_html

REF_CASES = Path(__file__).resolve().parent / "fixtures" / "ref_cases.json"

ARTICLE = """\
# Casting a spell, step by step

When you cast a spell you follow rules 601.2a–h in order (CR 601.2). Announcing it moves
the card to the stack (rule 601.2a); choosing modes comes next, see 601.2b.

> Judges often quote **rule 117.3b**: the player who cast a spell receives priority.

1. Pay costs (rules 601.2g and 601.2h).
2. Then the spell becomes cast; see [the official rule 601.2i](https://example.org/cr).

Inline code stays as typed: `rule 117.3a` and ``CR 704.5j``.

    # an indented code block
    rule 704.5a

```text
See rules 613.2, 707.2, and 707.3 -- a fenced block is not prose.
```

<pre>rule 500.1 in raw HTML</pre>

Raw inline <a href="https://example.org">rule 502.1</a> and <code>rule 503.1</code>, then 504.1.
A form field <textarea>rule 505.1</textarea> is not prose either.

The age of a player (100) and a 200-card deck are no rules.
"""


class _Links(HTMLParser):
    """Collects (attributes, text) of each <a class="ref"> and every text inside pre/code."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[dict[str, str | None], str]] = []
        self.code: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        is_ref = tag == "a" and dict(attrs).get("class") == "ref"
        self._in.append("ref" if is_ref else tag)
        if is_ref:
            self.links.append((dict(attrs), ""))

    def handle_endtag(self, tag: str) -> None:
        while self._in and self._in.pop() not in (tag, "ref" if tag == "a" else tag):
            pass

    def handle_data(self, data: str) -> None:
        if self._in and self._in[-1] == "ref":
            attrs, text = self.links[-1]
            self.links[-1] = (attrs, text + data)
        if {"pre", "code", "textarea"} & set(self._in):
            self.code.append(data)


def _parse(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def _numbers(html: str) -> list[str]:
    out: list[str] = []
    for attrs, _text in _parse(html).links:
        out.extend((attrs.get("data-rules") or attrs["data-rule"] or "").split())
    return out


def test_an_article_links_its_prose_and_leaves_code_alone() -> None:
    html = markdown.markdown(
        ARTICLE,
        extensions=["kb.markdown", "fenced_code"],
        extension_configs={"kb.markdown": {"base_url": "https://rules.example.org/"}},
    )
    parsed = _parse(html)
    found = [(attrs["href"], attrs.get("data-rules"), text) for attrs, text in parsed.links]
    base = "https://rules.example.org/en/rules/"
    assert found == [
        (base + "601.2a", " ".join(f"601.2{c}" for c in "abcdefgh"), "601.2a–h"),
        (base + "601.2", None, "601.2"),
        (base + "601.2a", None, "601.2a"),
        (base + "601.2b", None, "601.2b"),
        (base + "117.3b", None, "117.3b"),
        (base + "601.2g", None, "601.2g"),
        (base + "601.2h", None, "601.2h"),
        (base + "504.1", None, "504.1"),
    ]
    # code spans, code blocks, fenced blocks and raw HTML keep their text exactly
    code = "".join(parsed.code)
    for typed in ("rule 117.3a", "CR 704.5j", "rule 704.5a", "rules 613.2, 707.2, and 707.3"):
        assert typed in code
    assert "<pre>rule 500.1 in raw HTML</pre>" in html
    assert '<a href="https://example.org">rule 502.1</a>' in html
    assert "<code>rule 503.1</code>" in html
    assert "<textarea>rule 505.1</textarea>" in html
    assert '<a href="https://example.org/cr">the official rule 601.2i</a>' in html


def test_entry_point_name_and_languages() -> None:
    html = markdown.markdown(
        "« règle 116.3b » et les règles 601.2f à 601.2h",
        extensions=["kb"],
        extension_configs={"kb": {"lang": "fr", "base_url": "http://127.0.0.1:8000"}},
    )
    assert _numbers(html) == ["116.3b", "601.2f", "601.2g", "601.2h"]
    assert 'href="http://127.0.0.1:8000/fr/rules/116.3b"' in html
    ja = markdown.markdown(
        "詳しくはルール117.3b「優先権」参照、603.2参照。", extensions=[RuleRefExtension(lang="ja")]
    )
    assert _numbers(ja) == ["117.3b", "603.2"]
    assert 'href="/ja/rules/117.3b"' in ja


def test_config_table() -> None:
    html = markdown.markdown(
        "rule 117.1",
        extensions=[
            RuleRefExtension(
                build_url=lambda n, base, lang: f"{base}{lang}-{n.replace('.', '-')}.html",
                base_url="/x/",
                html_class="rule",
            )
        ],
    )
    assert html == '<p>rule <a class="rule" data-rule="117.1" href="/x/en-117-1.html">117.1</a></p>'
    with pytest.raises(ValueError, match="unknown lang 'de'"):
        RuleRefExtension(lang="de")


_PLAIN = re.compile(r"[*_`<>\[\]\\#!&|]|^\s*[-+\d]")


# The cases whose text Markdown reads as plain prose (no emphasis, code, HTML or list marker).
PLAIN_CASES = [
    tuple(c)
    for c in json.loads(REF_CASES.read_text(encoding="utf-8"))["cases"]
    if not _PLAIN.search(c[0])
]


@pytest.mark.parametrize(("text", "lang", "expected"), PLAIN_CASES)
def test_markdown_reads_references_as_the_site_does(
    text: str, lang: str, expected: list[str]
) -> None:
    """The shared table of cases: the extension links exactly what kb.text.references.find_refs finds."""
    html = markdown.markdown(text, extensions=[RuleRefExtension(lang=lang)])
    assert _numbers(html) == [r.number for r in find_refs(text, lang)] == expected


def test_site_rendering_keeps_range_groups() -> None:
    html = str(markdown_html("rules 601.2f–h", lambda n: f"/en/rules/{n}"))
    assert html == (
        '<p>rules <a class="ref" data-rule="601.2f" data-rules="601.2f 601.2g 601.2h" '
        'href="/en/rules/601.2f" rel="noopener noreferrer">601.2f–h</a></p>'
    )


def test_the_extension_needs_neither_flask_nor_the_search() -> None:
    """Other projects install kb for the extension: importing it loads no web or search code."""
    import subprocess
    import sys

    code = (
        "import sys, markdown; markdown.markdown('rule 117', extensions=['kb']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'whoosh', 'sudachipy')"
        " or m.startswith(('kb.web', 'kb.search'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_url_builder_may_leave_a_reference_unlinked() -> None:
    # An instance without a page for 103.8a answers None: the reference stays, as a span.
    ext = RuleRefExtension(build_url=lambda n, _b, _l: None if n == "103.8a" else f"/r/{n}")
    html = markdown.markdown("See rules 103.8a and 117.3b.", extensions=[ext])
    assert '<span class="ref">103.8a</span>' in html
    assert '<a class="ref" data-rule="117.3b" href="/r/117.3b">117.3b</a>' in html
