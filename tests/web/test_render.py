"""Word diffs and sanitising (the Markdown extension itself: tests/test_markdown.py)."""

from __future__ import annotations

import random
import re

import pytest

from kb.knowledge.model import Ref
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


def test_word_diff_reads_a_phrase_replaced_as_one_change() -> None:
    # The words match, not the spaces between them: "Game" stays, whole.
    assert str(word_diff("The Game", "Game Concepts")) == "<del>The </del>Game<ins> Concepts</ins>"
    assert str(word_diff("it is treated as a land", "it has the intrinsic land")) == (
        "it <del>is treated as a</del><ins>has the intrinsic</ins> land"
    )


def _rebuilt(html: str, dropped: str) -> str:
    """One side of a word diff: its text without the other side's changes, unescaped."""
    import html as html_lib

    kept = re.sub(rf"<{dropped}>.*?</{dropped}>", "", html, flags=re.S)
    return html_lib.unescape(re.sub(r"</?(?:del|ins)>", "", kept))


def test_word_diffs_rebuild_both_texts_and_never_alternate_around_spaces() -> None:
    rng = random.Random(9)
    words = ["the", "The", "Game", "a", "player", "116.3b", "“", "”", '"', ",", ".", "<b>", "&",
             "d’un", "呪", "文", "を"]  # fmt: skip
    spaces = [" ", " ", " ", "  ", "\n", ""]
    for _ in range(2000):
        old = "".join(rng.choice(words) + rng.choice(spaces) for _ in range(rng.randint(0, 12)))
        tokens = old.split(" ")
        for _ in range(rng.randint(0, 4)):
            at = rng.randint(0, len(tokens))
            choice = rng.random()
            if choice < 0.4:
                tokens.insert(at, rng.choice(words))
            elif tokens and choice < 0.8:
                tokens.pop(min(at, len(tokens) - 1))
            elif tokens:
                tokens[min(at, len(tokens) - 1)] = rng.choice(words)
        new = rng.choice([" ", "  "]).join(tokens)
        html = str(word_diff(old, new))
        assert _rebuilt(html, "ins") == old and _rebuilt(html, "del") == new, (old, new, html)
        # a run of changes is one <del> then one <ins>, never pieces around a kept space
        assert not re.search(r"</(?:del|ins)>\s+<(?:del|ins)>|</ins><del>", html), html
