"""Rule numbers of the Comprehensive Rules: parsing, ordering and ancestry.

A rule number is one of: a section (``1.``-``9.``), a rule (``117.``), a subrule (``117.1.``) or a
lettered subrule (``117.1a``). Numbers sort numerically (``702.2`` before ``702.19``) and subrule
letters skip ``l`` and ``o`` in the published texts, although we still accept them.

:func:`parse` reads one number in the spellings a reader types or a text prints, the ones the
reference finder (:func:`kb.text.references.find_refs`) reads: ``117.3a``, ``rule 117.3a``, ``CR 117.3a``,
``règle 117.3a``, ``ルール117.3a``, ``第117条``, ``117.3a参照``, in brackets (``「ルール117.3b」``) and
full-width digits. :func:`parse_numbers` also reads a range (``117.3a-d``, ``117.3a..117.3d``,
``601.2f–h``), expanded by :func:`expand_range`, the one range reader the finder uses too;
:func:`parse_number_query` is the form search calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering

from kb.text.normal import fold_width, nfkc

__all__ = [
    "LETTERS",
    "MAX_RANGE",
    "RangeError",
    "RuleNumber",
    "RuleNumberError",
    "expand_range",
    "parse",
    "parse_number_query",
    "parse_numbers",
    "try_parse",
]

#: Subrule letters in the order the rules use them (no "l", no "o").
LETTERS = "abcdefghijkmnpqrstuvwxyz"

_NUMBER = re.compile(
    r"""^\s*(?:(?:rules?|r[eè]gles?|r)\s*\.?\s*)?   # optional "rule", "règle" or "r" prefix
        (?P<major>\d{1,3})
        (?:\.\s*(?P<minor>\d{1,3})?)?            # ".1" or a bare trailing "."
        \s*(?P<letter>[a-z])?                     # "a" (also "117.3 b")
        \.?\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_ANCHOR = re.compile(r"^#?R(?P<major>\d{3})(?P<minor>\d{0,3})(?P<letter>[a-z]?)$", re.IGNORECASE)


# The words and marks around a number that do not change it, as kb.text.references.find_refs reads them
# in a text: brackets and quotes around the whole, "参照" after it, "第…条" / "第…項" around it,
# and a prefix word ("CR", "rule", "règle", "section", "ルール").
_BRACKETS = {
    "「": "」",
    "『": "』",
    "〔": "〕",
    "【": "】",
    "“": "”",
    '"': '"',
    "«": "»",
    "(": ")",
    "[": "]",
}
_SANSHO = re.compile(r"\s*参照\s*$")
_DAI = re.compile(r"^第\s*(.+?)\s*[条項]$")
_PREFIX = re.compile(r"^(?:cr|rules?|r[eè]gles?|sections?|ルール)\s*\.?\s*(?=\d)", re.IGNORECASE)
# A range: "117.3a-d", "117.3a..117.3d", "601.2f–h", "509.1 à 3", "117.3a～d" (～ folds to ~).
_RANGE = re.compile(
    r"^(?P<first>\d{1,3}(?:\.\d{1,3}[a-z]?)?)\s*(?:\.\.|[-–—‐‑~〜]|\s(?:à|to)\s)\s*"
    r"(?P<last>\d{1,3}(?:\.\d{1,3}[a-z]?)?|[a-z])\.?$",
    re.IGNORECASE,
)
#: The longest range :func:`expand_range` expands; a longer one is a typo or hostile text.
MAX_RANGE = 60
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


class RuleNumberError(ValueError):
    """A text that is not a rule number."""


class RangeError(RuleNumberError):
    """Two rule numbers that do not make a range ("117.3b"–"a", "117.3"–"205.1")."""


@total_ordering
@dataclass(frozen=True, slots=True)
class RuleNumber:
    """A parsed rule number: ``major`` (1-9 or 100-999), optional ``minor`` and ``letter``."""

    major: int
    minor: int | None = None
    letter: str | None = None

    @property
    def is_section(self) -> bool:
        """True for the nine section headings ``1.``-``9.``."""
        return self.major < 10

    @property
    def depth(self) -> int:
        """0 for a section, 1 for a rule, 2 for a subrule, 3 for a lettered subrule."""
        if self.is_section:
            return 0
        if self.minor is None:
            return 1
        return 2 if self.letter is None else 3

    @property
    def section(self) -> int:
        """The section (1-9) the number belongs to."""
        return self.major if self.is_section else self.major // 100

    @property
    def parent(self) -> RuleNumber | None:
        """The number one level up (``117.1a`` -> ``117.1`` -> ``117`` -> ``1``)."""
        if self.letter is not None:
            return RuleNumber(self.major, self.minor)
        if self.minor is not None:
            return RuleNumber(self.major)
        if not self.is_section:
            return RuleNumber(self.major // 100)
        return None

    def ancestors(self) -> list[RuleNumber]:
        """Every number above this one, nearest first."""
        out: list[RuleNumber] = []
        node = self.parent
        while node is not None:
            out.append(node)
            node = node.parent
        return out

    def sort_key(self) -> tuple[int, int, int]:
        """Numeric ordering key: sections sort before their own rules."""
        major = self.major * 100 if self.is_section else self.major
        minor = -1 if self.minor is None else self.minor
        # Alphabetical order is the rules' order: skipping "l" and "o" changes no comparison.
        letter = -1 if self.letter is None else ord(self.letter) - ord("a")
        return (major, minor, letter)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, RuleNumber):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        """The short form used as a key: ``1``, ``117``, ``117.1``, ``117.1a``."""
        text = str(self.major)
        if self.minor is not None:
            text += f".{self.minor}"
            if self.letter:
                text += self.letter
        return text

    @property
    def display(self) -> str:
        """The form the rules print: ``1.``, ``117.``, ``117.1.``, ``117.1a``."""
        return str(self) if self.letter else f"{self}."

    @property
    def anchor(self) -> str:
        """An HTML id without dots, as Yawgatog's pages use: ``R1173a``."""
        return "R" + str(self).replace(".", "")

    def is_ancestor_of(self, other: RuleNumber) -> bool:
        """True if ``other`` lies in this number's subtree (and is not this number)."""
        return self in other.ancestors()


def normalize(text: str) -> str:
    """NFKC-fold a user-typed number (full-width ``１１７．３ａ`` becomes ``117.3a``)."""
    return nfkc(text).strip().lower()


def _core(raw: str) -> str:
    """A normalised text without the brackets, "参照", "第…条" and prefix word around its number."""
    for _ in range(3):  # 「ルール117.3b」参照, “rule 117.3b”: a few layers at most
        before = raw
        if raw and raw[0] in _BRACKETS and raw.endswith(_BRACKETS[raw[0]]) and len(raw) > 1:
            raw = raw[1:-1].strip()
        raw = _SANSHO.sub("", raw)
        dai = _DAI.match(raw)
        if dai:
            raw = dai.group(1)
        raw = _PREFIX.sub("", raw, count=1).strip()
        if raw == before:
            break
    return raw


def parse(text: str) -> RuleNumber:
    """Parse a rule number in any common spelling (see the module's docstring), or raise
    :class:`RuleNumberError`."""
    raw = normalize(text)
    match = _NUMBER.match(raw) or _ANCHOR.match(raw)
    if not match and len(raw) <= 80:
        core = _core(raw)
        match = _NUMBER.match(core) or _ANCHOR.match(core)
    if not match:
        raise RuleNumberError(f"not a rule number: {text!r}")
    major = int(match["major"])
    minor = int(match["minor"]) if match["minor"] else None
    letter = match["letter"] or None
    if not (1 <= major <= 9 or 100 <= major <= 999):
        raise RuleNumberError(f"not a rule number: {text!r} (sections are 1-9, rules 100-999)")
    if major < 10 and (minor is not None or letter):
        raise RuleNumberError(f"not a rule number: {text!r} (a section has no subrules)")
    if letter and minor is None:
        raise RuleNumberError(f"not a rule number: {text!r} (a letter needs a subrule number)")
    return RuleNumber(major, minor, letter)


def try_parse(text: str) -> RuleNumber | None:
    """Like :func:`parse` but returns None for a text that is not a rule number."""
    try:
        return parse(text)
    except RuleNumberError:
        return None


def expand_range(first: str, last: str) -> list[str]:
    """Every number from ``first`` to ``last``: ``("603.7d", "f")`` -> 603.7d, 603.7e, 603.7f.

    ``last`` is a full number or the part that changes: a letter ("f"), a subrule ("3" after
    "509.1") or a rule ("119" after "117"). Letters skip ``l`` and ``o`` as the rules do.
    Raises :class:`RangeError` when the two do not make an ascending range of siblings.
    """
    try:
        a = parse(first)
    except RuleNumberError as exc:
        raise RangeError(f"bad range start: {exc}") from None
    tail = fold_width(last).strip().lower()
    try:
        if re.fullmatch(r"[a-z]", tail):
            if a.letter is None:
                raise RangeError(f"bad range {first!r}–{last!r}: a letter follows a number")
            b = RuleNumber(a.major, a.minor, tail)
        elif re.fullmatch(r"\d{1,3}", tail):
            if a.letter is not None:
                raise RangeError(f"bad range {first!r}–{last!r}: a number follows a letter")
            b = RuleNumber(a.major, int(tail)) if a.minor is not None else parse(tail)
        else:
            b = parse(tail)
    except RangeError:
        raise
    except RuleNumberError as exc:
        raise RangeError(f"bad range end: {exc}") from None
    if a.depth != b.depth or a.parent != b.parent:
        raise RangeError(f"bad range {first!r}–{last!r}: the ends are not siblings")
    if not a < b:
        raise RangeError(f"bad range {first!r}–{last!r}: the end is not after the start")
    if a.letter is not None and b.letter is not None:
        lo, hi = _ALPHABET.index(a.letter), _ALPHABET.index(b.letter)
        # The texts never use l or o, but a range that names one as an end keeps it.
        letters = [c for c in _ALPHABET[lo : hi + 1] if c in LETTERS or c in (a.letter, b.letter)]
        out = [RuleNumber(a.major, a.minor, c) for c in letters]
    elif a.minor is not None and b.minor is not None:
        out = [RuleNumber(a.major, m) for m in range(a.minor, b.minor + 1)]
    else:
        out = [RuleNumber(m) for m in range(a.major, b.major + 1)]
    if len(out) > MAX_RANGE:
        raise RangeError(
            f"range {first!r}–{last!r} covers {len(out)} numbers (at most {MAX_RANGE})"
        )
    return [str(n) for n in out]


def parse_numbers(text: str) -> list[RuleNumber]:
    """The numbers a text names: one number (any spelling :func:`parse` reads) or a range of
    siblings (``117.3a-d``, ``117.3a..117.3d``, ``117.3a–117.3d``, ``601.2f–h``, with the same
    prefixes and brackets). Raises :class:`RuleNumberError` (a :class:`RangeError` for a range
    whose ends do not fit) naming the text."""
    try:
        return [parse(text)]
    except RuleNumberError as err:
        raw = normalize(text)
        rng = _RANGE.match(_core(raw)) if len(raw) <= 80 else None
        if rng is None:
            raise err from None
    return [parse(n) for n in expand_range(rng.group("first"), rng.group("last"))]


def parse_number_query(text: str) -> list[str] | None:
    """The rule numbers a search query is, when the whole query is a number or a range in any
    spelling :func:`parse_numbers` reads (``ルール117.3b`` -> ``["117.3b"]``, ``117.3a-c`` ->
    ``["117.3a", "117.3b", "117.3c"]``); None for any other query (words, a bad range)."""
    try:
        return [str(n) for n in parse_numbers(text)]
    except RuleNumberError:
        return None
