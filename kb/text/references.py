"""Cross-references and glossary-term linking inside rule text.

:func:`find_refs` finds the rule references a text prints ("See rule 117.3a", "rules 601.2f–h",
"CR 704.5j", "Cf. règle 603", "rule 702.62〔待機〕参照", "ルール117「タイミングと優先権」参照");
:func:`link_html` turns them, and the glossary terms :class:`kb.text.termmatch.TermMatcher` finds,
into safe HTML links.

The reference finder is the project's only one: the build, the site's pages, ``/api/linkify``
and the Markdown extension (:mod:`kb.markdown`) call it, and the embeddable hover script
(``kb/web/static/kb-embed.js``) carries a line-by-line JavaScript port of it, tested against it.

Offsets always index the text as given: the folding applied before matching (full-width digits to
ASCII, other spaces to " "; see :mod:`kb.text.normal`) never
changes a text's length, so ``text[ref.start:ref.end] == ref.label``.

A range ("601.2f–h", "509.1–3") gives one :class:`~kb.knowledge.model.Ref` per number it covers, all sharing
the label, start and end of the whole printed span; :func:`ref_groups` gathers them again, and
:func:`link_html` renders such a group as one link to its first number, listing every number in
``data-rules``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kb.text.normal import (
    LANGS,
    fold_width,
)
from kb.text.rulenum import MAX_RANGE, RangeError, RuleNumber, expand_range

__all__ = [
    "MAX_RANGE",
    "RangeError",
    "check_lang",
    "expand_range",
    "find_refs",
    "fold",
    "link_html",
    "ref_groups",
    "scan_form",
]

# The range reader lives in kb.text.rulenum (lookup and search read the same ranges); re-exported here.


@dataclass(slots=True)
class Ref:
    """A cross-reference found in a text: the span as printed and the number it points to."""

    number: str
    label: str
    start: int
    end: int
    resolved: bool = True
    canonical: str | None = None


# ---- folding ----------------------------------------------------------------------------------


#: A length-keeping NFKC subset (``１１７．３ａ`` -> ``117.3a``), so offsets stay valid; the name
#: this module has always exported for :func:`kb.text.normal.fold_width`.
fold = fold_width


def check_lang(lang: str) -> None:
    """Raise ValueError naming the language when ``lang`` is not one of the knowledge base's."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} (expected one of {', '.join(LANGS)})")


# ---- references -------------------------------------------------------------------------------

# The patterns below are ASCII-only in what \d, \s and \b mean (re.ASCII), and the text they scan
# has every other space folded to " " (:func:`scan_form`): that way they read the same in Python
# and in JavaScript, where kb/web/static/kb-embed.js carries a copy (tests/test_embed_js.py runs
# both over one table of cases). Change one, change the other.
_A = re.ASCII
# A number as printed after "rule": the lookahead keeps "1170" and "117.3ab" out.
_NUM = re.compile(r"(\d{1,3})(?:\.(\d{1,3})([a-zA-Z])?)?(?![0-9A-Za-z])", _A)
# "–f", "-h", "–3", "–903.11", "~h" (Japanese ～ folds to ~), "à 119.8" in French.
_RANGE = re.compile(r"(?:[-–‐‑~〜]|\s+à\s+)(\d{1,3}(?:\.\d{1,3}[a-z]?)?|[a-z])(?![0-9A-Za-z])", _A)
# A title after the number: ', “Dash,”', ', « Actions spéciales »', '〔待機〕', '「キッカー」'.
_TITLE = re.compile(
    r",?\s*(?:[“\"«]\s*([^”\"»\n]{1,120}?)\s*[”\"»]|〔([^〕\n]{0,80})〕|「([^」\n]{0,80})」)", _A
)
_SEP = re.compile(
    r"\s*,\s*(?:(?:and|or|et|ou)\s+)?|\s+(?:and|or|et|ou)\s+|\s*(?:、|・|と|および|及び|または|又は)\s*",
    _A,
)
_SEP_AFTER_COMMA = re.compile(r"\s+(?:(?:and|or|et|ou)\s+)?", _A)
# After a number that ends a list item, a bare rule number must be followed by one of these to
# count: "rules 614 and 615." is a list, "rule 120.3 and 100 damage" is not.
_LIST_END = re.compile(r"\s*(?:[,.;:)\]）」〕〔”\"»、・参と]|\Z|(?:and|or|et|ou)\b)", _A)
_LETTER = re.compile(r"([a-z])(?![0-9A-Za-z'’\-])", _A)
# A dotted number ("in 101.4a", "exception to 608.2h") is a rule number wherever it stands;
# a bare "100" needs a word in front ("rule 100", "CR 100"). The leading lookahead lets the
# regex engine skip quickly over characters that cannot start an anchor.
_ANCHOR_WORDS = r"""
        \b(?P<rule>rules?|r[èÈe]gles?)\s+
      | \bCR\s*(?P<cr>)(?=\d{3}(?!\d))
      | \b(?P<section>sections?)\s+
      | \b(?:see|cf\.|voir)\s+(?P<see>)(?=\d{3}(?!\d))
      | (?<![0-9A-Za-z.,$€£/])(?=\d{3}\.\d{1,3}[a-z]?(?![0-9A-Za-z])(?!\.\d))"""
_ANCHOR = re.compile(rf"(?=[rscv0-9])(?:{_ANCHOR_WORDS})", re.IGNORECASE | re.VERBOSE | _A)
# Japanese also writes "ルール603", "603.2参照" and "第603項" without "rule".
_ANCHOR_JA = re.compile(
    rf"""(?=[rscv0-9第ル])(?:{_ANCHOR_WORDS}
      | ルール\s*(?=\d{{3}}(?!\d))
      | (?P<dai>第)(?=\d{{3}}(?!\d))
      | (?<![0-9A-Za-z.])(?P<bare>)(?=\d{{3}}(?!\d)))""",
    re.IGNORECASE | re.VERBOSE | _A,
)
_DIGIT = re.compile(r"\d", _A)
_SANSHO = re.compile(r"\s*参照", _A)
_DAI_END = re.compile(r"\s*[項条]", _A)
#: The spaces that Unicode knows and ASCII does not (str.isspace), folded to " " before a scan.
UNICODE_SPACES = "\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_SPACES = str.maketrans(dict.fromkeys(UNICODE_SPACES, " "))
_NEEDS_SPACES = re.compile(f"[{UNICODE_SPACES}]")


def scan_form(text: str) -> str:
    """Text as the reference finder scans it: :func:`fold` (widths), then every non-ASCII space
    to " "; one character for one, so offsets index the original."""
    folded = fold(text)
    return folded.translate(_SPACES) if _NEEDS_SPACES.search(folded) else folded


def _valid(m: re.Match[str], section: bool) -> RuleNumber | None:
    """The number a match spells if it fits its anchor: sections 1-9, rules 100-999."""
    major = m.group(1)
    if section:
        if len(major) != 1 or major == "0" or m.group(2) is not None:
            return None
        return RuleNumber(int(major))
    if len(major) != 3 or major[0] == "0":
        return None
    minor = int(m.group(2)) if m.group(2) is not None else None
    letter = m.group(3)
    return RuleNumber(int(major), minor, letter.lower() if letter else None)


def _item(text: str, folded: str, num: RuleNumber, start: int, end: int) -> tuple[list[Ref], int]:
    """The refs of one list item: a number, or a range starting at that number."""
    rng = _RANGE.match(folded, end)
    if rng:
        try:
            numbers = expand_range(str(num), rng.group(1))
        except RangeError:
            numbers = []
        if numbers:
            label = text[start : rng.end()]
            return [Ref(n, label, start, rng.end()) for n in numbers], rng.end()
    return [Ref(str(num), text[start:end], start, end)], end


def _scan(text: str, folded: str, pos: int, section: bool) -> tuple[list[Ref], int, int]:
    """Read a list of numbers at ``pos``: the refs, the end of the last ref, the end of its title."""
    m = _NUM.match(folded, pos)
    num = _valid(m, section) if m else None
    if m is None or num is None:
        return [], pos, pos
    refs: list[Ref] = []
    item, end = _item(text, folded, num, m.start(), m.end())
    while True:
        refs.extend(item)
        tail = end
        title = _TITLE.match(folded, end)
        if title:
            tail = title.end()
            inner = title.group(1)
            # 'rule 116, "Special Actions."' ends the list; 'rules 702.109, "Dash," 702.152' not.
            if inner is not None and not inner.endswith(",") and not folded.startswith(",", tail):
                return refs, end, tail
        sep = _SEP.match(folded, tail)
        if not sep and title and title.group(1) is not None:
            # The comma inside '“Dash,”' already separates the items.
            sep = _SEP_AFTER_COMMA.match(folded, tail)
        if not sep:
            return refs, end, tail
        nxt = _NUM.match(folded, sep.end())
        cand = _valid(nxt, section) if nxt else None
        if nxt and cand is not None:
            if not section and cand.minor is None and num.minor is not None:
                rng = _RANGE.match(folded, nxt.end())
                if not _LIST_END.match(folded, rng.end() if rng else nxt.end()):
                    return refs, end, tail
            num = cand
            item, end = _item(text, folded, cand, nxt.start(), nxt.end())
            continue
        # "rules 608.3a and b": a lone later letter continues the previous subrule.
        let = _LETTER.match(folded, sep.end())
        if let and num.letter is not None and let.group(1) > num.letter:
            num = RuleNumber(num.major, num.minor, let.group(1))
            item, end = [Ref(str(num), text[let.start() : let.end()], *let.span())], let.end()
            continue
        return refs, end, tail


def find_refs(text: str, lang: str) -> list[Ref]:
    """Every rule reference in ``text``, in order; a range gives one Ref per number it covers.

    Numbers count as references after "rule(s)", "règle(s)", "CR", "section(s)" (sections 1-9),
    after "See"/"Cf."/"Voir" (bare rule numbers), dotted numbers anywhere ("608.2h"), in lists continuing those ("rules 613.2, 707.2, and
    707.3") and, in Japanese, before "参照" or inside "第…項". Other numbers ("100 damage") are not.
    """
    check_lang(lang)
    folded = scan_form(text)
    if not _DIGIT.search(folded):
        return []
    anchors = _ANCHOR_JA if lang == "ja" else _ANCHOR
    refs: list[Ref] = []
    consumed = 0
    for a in anchors.finditer(folded):
        if a.start() < consumed:
            continue
        found, end, tail = _scan(text, folded, a.end(), a.group("section") is not None)
        if not found:
            continue
        first = found[0]
        # "See 718, “Prototype Cards.”" is a reference, "you see 100 cards" is not.
        bare_see = a.group("see") is not None and "." not in first.number
        if bare_see and not _LIST_END.match(folded, first.end):
            continue
        if lang == "ja":
            if a.group("bare") is not None and not _SANSHO.match(folded, tail):
                continue
            if a.group("dai") is not None and not _DAI_END.match(folded, end):
                continue
        refs.extend(found)
        consumed = end
    return refs


# ---- HTML -------------------------------------------------------------------------------------

# Relative URLs and http(s) only: a link must never carry a "javascript:" or "data:" scheme,
# nor whitespace or control characters.
_SAFE_HREF = re.compile(
    r"(?:https?://|[/#?.]|[^:/?#\s\x00-\x1f\x7f]*(?=[/?#]|\Z))[^\s\x00-\x1f\x7f]*\Z", re.IGNORECASE
)


def _safe_href(url: object) -> str | None:
    """The URL if it is safe to put in an ``href`` (spaces percent-encoded), else None."""
    if not isinstance(url, str) or not url or url[0] == " ":
        return None
    url = url.replace(" ", "%20")
    return url if _SAFE_HREF.match(url) else None


def _no_href(_key: str) -> str | None:
    return None


_esc = html.escape
#: What :func:`html.escape` changes: a text without any is its own escape (nearly every rule
#: text, whose apostrophes are typographic), so its pieces are not escaped one by one.
_ESCAPED_CHARS = re.compile("[&<>\"']")


def ref_groups(refs: Iterable[Ref], size: int) -> list[tuple[int, int, list[Ref]]]:
    """References grouped by printed span, in text order: ``(start, end, refs)``, one group per
    number or range ("601.2f–h" gives one group of three). Spans outside a text of ``size``
    characters or overlapping an earlier group are dropped. Every renderer links these groups,
    so the site, the Markdown extension and ``/api/linkify`` agree on what one link covers."""
    groups: dict[tuple[int, int], list[Ref]] = {}
    for ref in refs:
        if 0 <= ref.start < ref.end <= size:
            groups.setdefault((ref.start, ref.end), []).append(ref)
    out: list[tuple[int, int, list[Ref]]] = []
    last = 0
    for (start, end), group in sorted(groups.items()):
        if start >= last:
            out.append((start, end, group))
            last = end
    return out


def link_html(
    text: str,
    refs: Sequence[Ref],
    href: Callable[[Ref], str | None],
    terms: Sequence[tuple[str, int, int]] = (),
    term_href: Callable[[str], str | None] = _no_href,
) -> str:
    """HTML-escaped ``text`` with a link around each reference and each glossary term.

    A reference becomes ``<a class="ref" data-rule="117.3a">``; a range group (refs sharing a span)
    links to its first number with every number in ``data-rules``. When ``href`` gives no URL the
    reference is a ``<span class="ref unresolved">``. A term becomes ``<a class="term"
    data-term="key">`` when ``term_href`` gives a URL, else stays plain text. Spans that overlap
    an earlier one or fall outside the text are ignored; terms never overlap references.
    """
    size = len(text)
    plain = _ESCAPED_CHARS.search(text) is None
    spans: list[tuple[int, int, str]] = [
        (start, end, _ref_html(text[start:end], group, href))
        for start, end, group in ref_groups(refs, size)
    ]
    if terms:
        ref_spans = [(s, e) for s, e, _ in spans]
        openings: dict[str, str | None] = {}
        last = 0
        for key, start, end in sorted(terms, key=lambda t: (t[1], -t[2])):
            if not 0 <= start < end <= size or start < last:
                continue
            if ref_spans and any(s < end and start < e for s, e in ref_spans):
                continue
            last = end
            if key not in openings:
                url = _safe_href(term_href(key))
                openings[key] = (
                    None
                    if url is None
                    else f'<a class="term" href="{_esc(url)}" data-term="{_esc(str(key))}">'
                )
            opening = openings[key]
            if opening is not None:
                label = text[start:end]
                spans.append((start, end, f"{opening}{label if plain else _esc(label)}</a>"))
        spans.sort()
    out: list[str] = []
    pos = 0
    for start, end, piece in spans:
        out.append(text[pos:start] if plain else _esc(text[pos:start]))
        out.append(piece)
        pos = end
    out.append(text[pos:] if plain else _esc(text[pos:]))
    return "".join(out)


def _ref_html(label: str, group: list[Ref], href: Callable[[Ref], str | None]) -> str:
    """One reference (or range group) as a link, or as an unresolved span."""
    url = None
    for ref in group:
        url = _safe_href(href(ref))
        if url is not None:
            break
    first = group[0].number
    extra = ""
    if len(group) > 1:
        extra = f' data-rules="{_esc(" ".join(r.number for r in group))}"'
    if url is None:
        return f'<span class="ref unresolved" data-rule="{_esc(first)}"{extra}>{_esc(label)}</span>'
    return f'<a class="ref" href="{_esc(url)}" data-rule="{_esc(first)}"{extra}>{_esc(label)}</a>'
