"""Word diffs and sanitising (the Markdown extension itself: tests/test_markdown.py)."""

from __future__ import annotations

from kb.model import Ref
from kb.web.render import markdown_html, rule_html, word_diff


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
