"""Rule references, ranges, glossary-term matching and HTML linking (kb.text.references)."""

from __future__ import annotations

import html
import itertools
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.knowledge.model import Ref
from kb.text.references import RangeError, expand_range, find_refs, fold, link_html
from kb.text.termmatch import TermMatcher

# ---- references -------------------------------------------------------------------------------

#: The shared table of references (also run through the JavaScript finder of kb-embed.js).
REF_CASES = Path(__file__).resolve().parent / "fixtures" / "ref_cases.json"
REFS = [tuple(c) for c in json.loads(REF_CASES.read_text(encoding="utf-8"))["cases"]]


@pytest.mark.parametrize(("text", "lang", "expected"), REFS)
def test_find_refs(text: str, lang: str, expected: list[str]) -> None:
    refs = find_refs(text, lang)
    assert [r.number for r in refs] == expected
    for ref in refs:
        assert text[ref.start : ref.end] == ref.label
        assert ref.label.strip() == ref.label and ref.label


def test_trailing_period_is_not_part_of_the_label() -> None:
    (ref,) = find_refs("See rule 117.5.", "en")
    assert (ref.number, ref.label) == ("117.5", "117.5")


def test_a_range_shares_one_label_span() -> None:
    text = "See rules 601.2b and 601.2f–h."
    refs = find_refs(text, "en")
    spans = {(r.start, r.end) for r in refs[1:]}
    assert len(spans) == 1
    ((start, end),) = spans
    assert text[start:end] == "601.2f–h"
    assert refs[0].label == "601.2b"


def test_letter_continuation_labels_the_letter() -> None:
    text = "The instructions in rules 608.3a and b are always performed first."
    second = find_refs(text, "en")[1]
    assert (second.number, second.label, text[second.start : second.end]) == ("608.3b", "b", "b")


def test_full_width_offsets_index_the_original_text() -> None:
    text = "ルール（rule １１７．３ａ参照）"
    (ref,) = find_refs(text, "ja")
    assert ref.number == "117.3a"
    assert ref.label == "１１７．３ａ"


def test_fold_keeps_the_length() -> None:
    text = "１１７．３ａ　ｶｰﾄﾞ and İstanbul"
    assert len(fold(text)) == len(text)
    assert fold("１１７．３ａ") == "117.3a"


def test_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown language 'de'"):
        find_refs("rule 117", "de")
    with pytest.raises(ValueError, match="unknown language"):
        TermMatcher({}, "xx")


# ---- ranges -----------------------------------------------------------------------------------

RANGES = [
    ("603.7d", "f", ["603.7d", "603.7e", "603.7f"]),
    ("509.1", "3", ["509.1", "509.2", "509.3"]),
    ("601.2f", "601.2h", ["601.2f", "601.2g", "601.2h"]),
    ("111.10j", "r", ["111.10j", "111.10k", "111.10m", "111.10n", "111.10p", "111.10q", "111.10r"]),
    ("903.6", "903.11", ["903.6", "903.7", "903.8", "903.9", "903.10", "903.11"]),
    ("614", "616", ["614", "615", "616"]),
    ("117.3k", "m", ["117.3k", "117.3m"]),
    ("117.3l", "m", ["117.3l", "117.3m"]),
    ("601.2f", "ｈ", ["601.2f", "601.2g", "601.2h"]),
]


@pytest.mark.parametrize(("first", "last", "expected"), RANGES)
def test_expand_range(first: str, last: str, expected: list[str]) -> None:
    assert expand_range(first, last) == expected


@pytest.mark.parametrize(
    ("first", "last", "message"),
    [
        ("117.3b", "a", "not after the start"),
        ("117.3", "205.1", "not siblings"),
        ("117", "117.3", "not siblings"),
        ("117.3", "b", "a letter follows a number"),
        ("117.3a", "4", "a number follows a letter"),
        ("100", "199", "covers 100 numbers"),
        ("banana", "c", "bad range start"),
        ("117.3a", "zz", "bad range end"),
    ],
)
def test_expand_range_rejects(first: str, last: str, message: str) -> None:
    with pytest.raises(RangeError, match=message):
        expand_range(first, last)


def test_a_bad_range_in_text_keeps_the_first_number() -> None:
    assert [r.number for r in find_refs("See rule 117.3b-a.", "en")] == ["117.3b"]


# ---- glossary terms ---------------------------------------------------------------------------

EN_TERMS = {
    "pass": ["Pass"],
    "pass in succession": ["Pass in Succession"],
    "active player": ["Active Player"],
    "nonactive player": ["Nonactive Player"],
    "target": ["Target"],
    "activate": ["Activate"],
    "activated ability": ["Activated Ability"],
    "ability": ["Ability"],
    "untap": ["Untap"],
    "attacks": ["Attacks"],
    "attacking creature": ["Attacking Creature"],
    "dies": ["Dies"],
    "bands with other": ["“Bands with Other”"],
    "player": ["Player"],
    "two-headed giant": ["Two-Headed Giant", "2HG"],
}

EN_CASES = [
    ("All players pass in succession.", ["player", "pass in succession"]),
    ("If all players pass, the top object resolves.", ["player", "pass"]),
    ("The player passes priority.", ["player", "pass"]),
    ("A passenger holds a compass; trespass.", []),
    ("The ACTIVE PLAYER acts first.", ["active player"]),
    ("Active players and nonactive players", ["active player", "nonactive player"]),
    ("It targets a creature; a targeted creature; targeting.", ["target"]),
    ("Activating an activated ability: activates, activated.", ["activate", "activated ability"]),
    ("two activated abilities", ["activated ability"]),
    ("It untapped, then untaps, while untapping.", ["untap"]),
    ("It attacked; an attacking creature; it attacks.", ["attacks", "attacking creature"]),
    ("When it dies or died, or is dying", ["dies"]),
    ("A creature with bands with other can band.", ["bands with other"]),
    ("the player’s ability", ["player", "ability"]),
    ("In a Two-Headed Giant game (2HG)", ["two-headed giant"]),
    ("Nothing here.", []),
]


@pytest.fixture(scope="module")
def en_matcher() -> TermMatcher:
    return TermMatcher(EN_TERMS, "en")


@pytest.mark.parametrize(("text", "expected"), EN_CASES)
def test_term_matcher_en(en_matcher: TermMatcher, text: str, expected: list[str]) -> None:
    assert en_matcher.keys_in(text) == expected


def test_longest_match_wins(en_matcher: TermMatcher) -> None:
    text = "Players pass in succession."
    found = en_matcher.find(text)
    assert [(k, text[s:e]) for k, s, e in found] == [
        ("player", "Players"),
        ("pass in succession", "pass in succession"),
    ]


def test_term_spans_do_not_overlap_and_follow_the_text(en_matcher: TermMatcher) -> None:
    text = "The active player passes; the nonactive player attacks with an attacking creature."
    found = en_matcher.find(text)
    assert [k for k, _, _ in found] == [
        "active player",
        "pass",
        "nonactive player",
        "attacks",
        "attacking creature",
    ]
    for (_, _, end), (_, start, _) in itertools.pairwise(found):
        assert end <= start


def test_whitespace_inside_a_term_may_vary(en_matcher: TermMatcher) -> None:
    assert en_matcher.keys_in("the active\n  player") == ["active player"]


@pytest.mark.parametrize(
    ("term", "text"),
    [
        ("Intervening “If” Clause", 'an Intervening "If" Clause here'),
        ('Intervening "If" Clause', "an intervening “if” clause here"),
        ("Intervening “If” Clause", "an intervening «if» clause here"),
        ("player’s turn", "on that player's turn"),
    ],
)
def test_quotes_of_either_kind_match(term: str, text: str) -> None:
    [(key, start, end)] = TermMatcher({"key": [term]}, "en").find(text)
    assert key == "key" and len(text[start:end]) == len(term)


def test_skip_keeps_terms_out_of_reference_labels() -> None:
    matcher = TermMatcher({"rule": ["Rule"], "six": ["6"]}, "en")
    text = "See section 6."
    refs = find_refs(text, "en")
    assert matcher.find(text) == [("six", 12, 13)]
    assert matcher.find(text, skip=[(r.start, r.end) for r in refs]) == []


def test_exact_spelling_beats_an_inflection() -> None:
    matcher = TermMatcher({"attack": ["Attack"], "attacks": ["Attacks"]}, "en")
    assert matcher.keys_in("it attacks") == ["attacks"]
    assert matcher.keys_in("an attack") == ["attack"]


FR_TERMS = {
    "capacité déclenchée": ["capacité déclenchée"],
    "joueur actif": ["joueur actif"],
    "priorité": ["priorité"],
    "jeton": ["jeton"],
    "rituel": ["rituel"],
    "attaquant": ["attaquant"],
}

FR_CASES = [
    ("Les capacités déclenchées sont mises sur la pile.", ["capacité déclenchée"]),
    ("Le joueur actif reçoit la priorité.", ["joueur actif", "priorité"]),
    ("Les joueurs actifs et la joueuse active", ["joueur actif"]),
    ("Deux jetons, un sort de rituel, les rituels.", ["jeton", "rituel"]),
    ("la créature attaquante et l'attaquant", ["attaquant"]),
    ("PRIORITÉ", ["priorité"]),
    ("prioritaire, jetonnage", []),
]


@pytest.mark.parametrize(("text", "expected"), FR_CASES)
def test_term_matcher_fr(text: str, expected: list[str]) -> None:
    assert TermMatcher(FR_TERMS, "fr").keys_in(text) == expected


JA_TERMS = {
    "priority": ["優先権"],
    "pass": ["パス"],
    "pass in succession": ["連続してパス"],
    "active player": ["アクティブ・プレイヤー"],
    "player": ["プレイヤー"],
    "mana ability": ["マナ能力"],
}

JA_CASES = [
    (
        "すべてのプレイヤーが優先権を連続してパスした。",
        ["player", "priority", "pass in succession"],
    ),
    ("アクティブ・プレイヤーはパスする。", ["active player", "pass"]),
    ("マナ能力はスタックを使わない。", ["mana ability"]),
    ("ﾏﾅ能力", ["mana ability"]),
    ("ＡＢＣ優先権", ["priority"]),
    ("なにもない。", []),
]


@pytest.mark.parametrize(("text", "expected"), JA_CASES)
def test_term_matcher_ja(text: str, expected: list[str]) -> None:
    assert TermMatcher(JA_TERMS, "ja").keys_in(text) == expected


def test_ja_full_width_latin_terms_match_nfkc() -> None:
    matcher = TermMatcher({"pt": ["Ｐ／Ｔ"]}, "ja")
    text = "そのP/Tを見る"
    assert [(k, text[s:e]) for k, s, e in matcher.find(text)] == [("pt", "P/T")]


def test_empty_or_punctuation_terms_are_ignored() -> None:
    matcher = TermMatcher({"dot": ["."], "empty": [""], "pass": ["Pass"]}, "en")
    assert matcher.keys_in("Pass. ...") == ["pass"]
    assert TermMatcher({}, "en").find("anything") == []


def test_terms_with_regex_characters_are_literal() -> None:
    matcher = TermMatcher({"plus": ["+1/+1 Counter"], "star": ["*"]}, "en")
    assert matcher.keys_in("put a +1/+1 counter on it; 1 1 counter") == ["plus"]


# ---- HTML -------------------------------------------------------------------------------------


def _href(ref: Ref) -> str | None:
    return None if ref.number.startswith("9") else f"/en/rule/{ref.number}"


def test_link_html_links_refs_and_terms(en_matcher: TermMatcher) -> None:
    text = "The active player passes (see rule 117.3a)."
    refs = find_refs(text, "en")
    terms = en_matcher.find(text, skip=[(r.start, r.end) for r in refs])
    out = link_html(text, refs, _href, terms, lambda key: f"/en/glossary/{key.replace(' ', '-')}")
    assert out == (
        'The <a class="term" href="/en/glossary/active-player" data-term="active player">'
        'active player</a> <a class="term" href="/en/glossary/pass" data-term="pass">passes</a>'
        ' (see rule <a class="ref" href="/en/rule/117.3a" data-rule="117.3a">117.3a</a>).'
    )


def test_link_html_unresolved_ref_is_not_a_link() -> None:
    text = "See rule 903.11a."
    out = link_html(text, find_refs(text, "en"), _href)
    assert out == 'See rule <span class="ref unresolved" data-rule="903.11a">903.11a</span>.'
    assert "<a" not in out


def test_link_html_range_is_one_link_listing_every_number() -> None:
    text = "See rules 601.2f–h."
    out = link_html(text, find_refs(text, "en"), _href)
    assert out == (
        'See rules <a class="ref" href="/en/rule/601.2f" data-rule="601.2f"'
        ' data-rules="601.2f 601.2g 601.2h">601.2f–h</a>.'
    )


def test_link_html_escapes_hostile_text() -> None:
    text = '<script>alert("x")</script> & rule 117.3a <img src=x onerror=alert(1)>'
    refs = find_refs(text, "en")
    out = link_html(text, refs, _href)
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; rule " in out
    assert re.findall(r"<(\w+)", out) == ["a"]


def test_link_html_escapes_hostile_keys_and_refuses_unsafe_urls() -> None:
    text = "pass"
    terms = [('"><script>', 0, 4)]
    out = link_html(text, [], _href, terms, lambda key: "/g/x")
    assert "<script" not in out and 'data-term="&quot;&gt;&lt;script&gt;"' in out
    for url in [
        "javascript:alert(1)",
        "JAVASCRIPT:x",
        " javascript:x",
        "data:text/html,x",
        "/ok\nx",
        "",
    ]:
        assert link_html(text, [], _href, [("k", 0, 4)], lambda key, u=url: u) == "pass"
    spaced = link_html(text, [], _href, [("active player", 0, 4)], lambda key: f"/g/{key}")
    assert 'href="/g/active%20player"' in spaced
    refs = [Ref("117", "pass", 0, 4)]
    assert "unresolved" in link_html(text, refs, lambda ref: "javascript:alert(1)")
    assert 'href="https://x.test/r?a=1&amp;b=2"' in link_html(
        text, refs, lambda ref: "https://x.test/r?a=1&b=2"
    )


def test_link_html_ignores_bad_and_overlapping_spans() -> None:
    text = "rule 117 and more"
    refs = [
        Ref("117", "117", 5, 8),
        Ref("117", "x", 6, 9),
        Ref("1", "x", -1, 2),
        Ref("2", "x", 10, 99),
    ]
    terms = [("more", 13, 17), ("over", 7, 12), ("bad", 15, 40)]
    out = link_html(text, refs, _href, terms, lambda key: f"/g/{key}")
    assert out == (
        'rule <a class="ref" href="/en/rule/117" data-rule="117">117</a> and '
        '<a class="term" href="/g/more" data-term="more">more</a>'
    )


def test_link_html_without_anything_only_escapes() -> None:
    assert link_html("a < b", [], _href) == "a &lt; b"


def test_link_html_escapes_every_piece_of_a_text_that_needs_it() -> None:
    # A text with one character to escape anywhere has every piece escaped (the text before,
    # between and after links, and a term's own words); one without any is written as is.
    for char, escaped in (("'", "&#x27;"), ('"', "&quot;"), ("&", "&amp;"), ("<", "&lt;")):
        text = f"a{char} mana pool{char}s rule 117 end{char}"
        out = link_html(text, find_refs(text, "en"), _href, [("mana", 3, 7)], lambda k: f"/g/{k}")
        assert out == (
            f'a{escaped} <a class="term" href="/g/mana" data-term="mana">mana</a> pool{escaped}s '
            f'rule <a class="ref" href="/en/rule/117" data-rule="117">117</a> end{escaped}'
        )
    text = "a’ mana pool’s rule 117"
    out = link_html(text, find_refs(text, "en"), _href, [("mana", 3, 7)], lambda k: f"/g/{k}")
    assert out.startswith("a’ <a class") and " pool’s rule <a" in out


FRAGMENTS = st.sampled_from(
    [
        "rule ",
        "rules ",
        "règle ",
        "section ",
        "See ",
        "117.3a",
        "601.2f",
        "–h",
        "-",
        "〔待機〕",
        "参照",
        "第",
        "603",
        "5",
        ", ",
        " and ",
        "、",
        "“Dash,” ",
        "<script>",
        "&amp;",
        '"',
        "'",
        "pass",
        "active player",
        "パス",
        "ｱ",
        "１１７．３",
        "İ",
        "\n",
        " ",
    ]
)
TEXTS = st.lists(st.one_of(FRAGMENTS, st.text(max_size=4)), max_size=25).map("".join)
TAG = re.compile(r'</?(?:a|span)(?: [a-z-]+="[^"<>]*")*>')


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, lang=st.sampled_from(["en", "fr", "ja"]))
def test_any_text_links_safely_and_round_trips(text: str, lang: str) -> None:
    refs = find_refs(text, lang)
    for ref in refs:
        assert text[ref.start : ref.end] == ref.label
    matcher = TermMatcher(
        {"pass": ["Pass"], "active player": ["Active Player"], "p": ["パス"]}, lang
    )
    terms = matcher.find(text, skip=[(r.start, r.end) for r in refs])
    out = link_html(text, refs, _href, terms, lambda key: f"/g/{key}")
    bare = TAG.sub("", out)
    assert "<" not in bare and ">" not in bare
    assert html.unescape(bare) == text


# ---- the official text ------------------------------------------------------------------------


@pytest.mark.slow
def test_every_rule_reference_of_the_2025_edition_is_found(cr_en_dir) -> None:
    path = cr_en_dir / "MagicCompRules-2025-11-14.txt"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    simple = re.compile(r"\b[Rr]ules? (\d{3}(?:\.\d+[a-z]?)?)(?![\w])")
    checked = 0
    for number, line in enumerate(lines, 1):
        refs = find_refs(line, "en")
        found = {(r.start, r.number) for r in refs}
        for m in simple.finditer(line):
            assert (m.start(1), m.group(1)) in found, f"line {number}: {line!r}"
            checked += 1
        for ref in refs:
            assert line[ref.start : ref.end] == ref.label, f"line {number}"
    assert checked > 1000
