"""Text normalisation, in one place: every module that compares or matches text folds it here.

Each function does one thing and says whether it keeps the text's length (so that offsets found in
the folded text still index the original). Callers compose them; for example the concordance
compares ``collapse_spaces(straight_quotes(nfkc(text))).lower()``, the term base compares
``fold_accents(nfkc(text).lower())``, and the reference finder scans ``fold_width(text)``.

>>> fold_width("１１７．３ａ")
'117.3a'
>>> fold_accents("cœur déclenché")
'coeur declenche'
>>> straight_quotes("l’attaquant « fort »")
'l\\'attaquant " fort "'
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "collapse_spaces",
    "fold_accents",
    "fold_width",
    "lower_same_length",
    "nfkc",
    "normalize_newlines",
    "straight_quotes",
]


def nfkc(text: str) -> str:
    """Unicode NFKC (full-width forms, ligatures, compatibility characters), skipped when the text
    is already normal, as most rule texts are."""
    if unicodedata.is_normalized("NFKC", text):
        return text
    return unicodedata.normalize("NFKC", text)


def _width_table() -> dict[int, str]:
    """NFKC for the characters whose NFKC is one character: full-width ASCII, half-width kana."""
    table: dict[int, str] = {0x3000: " "}
    for cp in range(0xFF01, 0xFFEF):
        norm = unicodedata.normalize("NFKC", chr(cp))
        if len(norm) == 1 and norm != chr(cp):
            table[cp] = norm
    return table


_WIDTH = _width_table()
_NEEDS_WIDTH = re.compile("[\u3000\uff01-\uffee]")


def fold_width(text: str) -> str:
    """Full-width ASCII and half-width kana to their usual forms (``１１７．３ａ`` -> ``117.3a``),
    one character for one: the length-keeping part of NFKC, for finding spans in the original."""
    return text.translate(_WIDTH) if _NEEDS_WIDTH.search(text) else text


# One character for one, so the folding keeps offsets; the non-breaking hyphen goes with them
# because the official texts use it where a later edition prints "-".
_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "«": '"', "»": '"', "‑": "-"})
_NEEDS_QUOTES = re.compile("[‘’“”«»‑]")


def straight_quotes(text: str) -> str:
    """Typographic quotes to ASCII (‘’ -> ', “”«» -> "), and the non-breaking hyphen to "-";
    keeps the length. The editions and translations print either kind."""
    return text.translate(_QUOTES) if _NEEDS_QUOTES.search(text) else text


def lower_same_length(text: str) -> str:
    """Lower case without changing the length: a character whose lower case is longer (``İ``)
    stays as it is, so offsets in the result index the original."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(lc if len(lc := c.lower()) == 1 else c for c in text)


# Ligatures are letters of their own for Unicode, not a letter plus a mark: spell them out first.
_LIGATURES = str.maketrans({"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE"})


def fold_accents(text: str) -> str:
    """Spell out œ and æ, then drop combining marks: ``cœur`` -> ``coeur``, ``reçoit`` ->
    ``recoit``, ``règle`` -> ``regle``. Changes the length. Meant for Latin text: it drops the
    voicing marks of kana too (``が`` -> ``か``)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text.translate(_LIGATURES))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def collapse_spaces(text: str) -> str:
    """Every run of whitespace (line breaks included) to one space, none at either end."""
    return " ".join(text.split())


# CRLF first, so that it gives one line break, not two.
_NEWLINES = (("\r\n", "\n"), ("\r", "\n"), ("\u2028", "\n"), ("\u2029", "\n"), ("\u00a0", " "))


def normalize_newlines(text: str) -> str:
    """Every line-break convention (CRLF, CR, U+2028, U+2029) to ``"\\n"``, and the no-break
    space to a space, so that readers split lines and match words one way only."""
    # Chained replace calls: each is a fast scan, where str.translate is ten times slower.
    for old, new in _NEWLINES:
        if old in text:
            text = text.replace(old, new)
    return text
