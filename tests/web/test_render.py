"""Rule-reference links in Markdown prose, word diffs and sanitising."""

from __future__ import annotations

import markdown
import pytest

from kb.model import Ref
from kb.web.mdext import RuleRefExtension
from kb.web.render import markdown_html, rule_html, word_diff


def convert(text: str, **config: object) -> str:
    return markdown.markdown(text, extensions=[RuleRefExtension(**config)])


@pytest.mark.parametrize(
    ("text", "links"),
    [
        ("See rule 117.3a.", [("rule 117.3a", "117.3a")]),
        ("See rules 117.3a and 702.19b", [("rules 117.3a", "117.3a"), ("702.19b", "702.19b")]),
        ("Voir la règle 116 ici", [("règle 116", "116")]),
        ("規則117.3aに従う", [("規則117.3a", "117.3a")]),
        ("総合ルール 605.3b を参照", [("総合ルール 605.3b", "605.3b")]),
        ("Bob has 100 life and 20 cards", []),
        ("Version 1.5 and 117.3and", []),
        ("rule 1000.1 is no rule", []),
        ("`117.4` in code", []),
        ("[a link](http://x/117.3)", []),
    ],
)
def test_rule_references_become_links(text: str, links: list[tuple[str, str]]) -> None:
    html = convert(text, base_url="/fr/rules/")
    found = [
        (label, number)
        for number, label in __import__("re").findall(
            r'<a class="ref" data-rule="([^"]+)" href="[^"]+">([^<]+)</a>', html
        )
    ]
    assert found == links
    for _label, number in links:
        assert f'href="/fr/rules/{number}"' in html


def test_extension_config_table() -> None:
    html = convert(
        "rule 117.1",
        build_url=lambda n, base, end: f"{base}{n.replace('.', '-')}{end}",
        base_url="/x/",
        end_url=".html",
        html_class="rule",
    )
    assert html == '<p><a class="rule" data-rule="117.1" href="/x/117-1.html">rule 117.1</a></p>'


def test_markdown_is_sanitised() -> None:
    html = str(
        markdown_html(
            "**ok** <script>alert(1)</script> <img src=x onerror=alert(1)> "
            "[x](javascript:alert(1)) see rule 117.3b",
            lambda n: f"/en/rules/{n}",
        )
    )
    assert "<strong>ok</strong>" in html
    assert "<script" not in html and "onerror" not in html and "javascript:" not in html
    assert "<img" not in html
    assert 'href="/en/rules/117.3b"' in html


def test_word_diff() -> None:
    assert str(word_diff("the player receives priority", "the player gets priority")) == (
        "the player <del>receives</del><ins>gets</ins> priority"
    )
    assert str(word_diff("rule 116.3b <x>", "rule 117.3b <x>")) == (
        "rule <del>116.3b</del><ins>117.3b</ins> &lt;x&gt;"
    )
    assert (
        str(word_diff("呪文を唱える", "呪文を唱えない")) == "呪文を唱え<del>る</del><ins>ない</ins>"
    )


def test_rule_html_escapes_and_links() -> None:
    text = "See rule 117.3b <b> & rule 999."
    refs = [Ref("117.3b", "117.3b", 9, 15, True, "117.3b"), Ref("999", "999", 30, 33, False)]
    html = str(rule_html(text, refs, lambda r: f"/en/rules/{r.canonical}" if r.resolved else None))
    assert '<a class="ref" href="/en/rules/117.3b" data-rule="117.3b">117.3b</a>' in html
    assert "&lt;b&gt; &amp;" in html
    assert 'href="/en/rules/None"' not in html


@pytest.mark.parametrize(
    ("old", "new", "html"),
    [
        ("same text", "same text", "same text"),
        ("", "new <b>", "<ins>new &lt;b&gt;</ins>"),
        ("old <b>", "", "<del>old &lt;b&gt;</del>"),
        ("x y", "x z y", "x <ins>z </ins>y"),
        ("a a a a", "a a b a a", "a a <ins>b </ins>a a"),
        ("Players pass.", "Players pass in turn.", "Players pass<ins> in turn</ins>."),
    ],
)
def test_word_diff_ends_and_edges(old: str, new: str, html: str) -> None:
    # the shared ends are set aside before matching: what is left must still read right
    assert str(word_diff(old, new)) == html
