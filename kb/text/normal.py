"""Text normalisation, in one place: every module that compares or matches text folds it here.

Each function does one thing and says whether it keeps the text's length (so that offsets found in
the folded text still index the original). Word analysis lives here too, one way for the whole
package: :func:`stem_en` / :func:`stem_fr` (Snowball, the search index's stems, also the term
base's comparison keys through :func:`word_stems`) and :func:`word_forms` (the inflections the
term linker generates to find a term in running text). Callers compose them; for example the concordance
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
from functools import lru_cache
from typing import Any

#: The languages of the rules texts, in the order pages list them.
LANGS = ("en", "fr", "ja")
#: The name of each of them in each of them (``LANGUAGE_IN["fr"]["ja"]`` is "japonais").
LANGUAGE_IN = {
    "en": {"en": "English", "fr": "French", "ja": "Japanese"},
    "fr": {"en": "anglais", "fr": "français", "ja": "japonais"},
    "ja": {"en": "英語", "fr": "フランス語", "ja": "日本語"},
}

#: The months as the English and French texts write them (the rules' effective dates, the web
#: pages' dates): one list for the readers and the pages.
MONTH_NAMES: dict[str, tuple[str, ...]] = {
    "en": (
        *("January", "February", "March", "April", "May", "June", "July", "August"),
        *("September", "October", "November", "December"),
    ),
    "fr": (
        *("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août"),
        *("septembre", "octobre", "novembre", "décembre"),
    ),
}

__all__ = [
    "collapse_spaces",
    "fold_accents",
    "fold_width",
    "lower_same_length",
    "nfkc",
    "normalize_newlines",
    "stem_en",
    "stem_fr",
    "straight_quotes",
    "word_forms",
    "word_stems",
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


# ---- word analysis -----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _stemmers() -> tuple[Any, Any]:
    """The Snowball stemmers (English, French), imported on first use: finding rule
    references (kb.text.references, the Markdown extension) needs no stemming and stays light.

    English is PyStemmer's (C: 0.5 µs a word against 12 µs for Whoosh's pure-Python port,
    which a query's new words and their inflections paid) when it is Snowball 2's, whose
    stems are Whoosh's (equal on the 24,000 words and inflections of the shared editions and
    on random strings, see tests/search/test_compiler_stems.py); Snowball 3 stems "added" as
    "add", not "ad". French is PyStemmer's too (1.5 µs a word against 40 µs) except on the
    words where Whoosh's port, which the index was always built with, stems otherwise (see
    :class:`_FrenchStems`)."""
    from whoosh.lang.snowball.english import EnglishStemmer
    from whoosh.lang.snowball.french import FrenchStemmer

    try:
        import Stemmer

        english = Stemmer.Stemmer("english", 0)
        if english.stemWord("added") == "ad" and english.stemWord("organized") == "organ":
            return _Stems(english.stemWord), _FrenchStems(
                Stemmer.Stemmer("french", 0), FrenchStemmer()
            )
    except ImportError:
        pass
    return EnglishStemmer(), FrenchStemmer()


class _Stems:
    """A stemmer's one method as Whoosh's stemmers name it."""

    def __init__(self, stem: Any) -> None:
        self.stem = stem


class _FrenchStems:
    """French stems as Whoosh's port gives them, most made by PyStemmer's C Snowball 2.

    The two differ only on words with a "y" (Whoosh's marking of it between vowels), on
    "-emment" (Whoosh does not go on to step 2a after it) and on "-trice(s)" after "ic": those,
    and any word not in ASCII, go to Whoosh's port (equal on the words of the French editions
    and their inflections and on millions of random words, see
    tests/search/test_compiler_stems.py). A C stemmer whose stems of known words differ from
    Whoosh's (another Snowball version) is not used at all."""

    def __init__(self, fast: Any, reference: Any) -> None:
        self._reference = reference.stem
        canaries = ("continuellement", "capacités", "déclenchée", "joueurs", "nation", "éveiller")
        same = all(fast.stemWord(w) == reference.stem(w) for w in canaries)
        self._fast = fast.stemWord if same else reference.stem

    def stem(self, word: str) -> str:
        """The stem of a lower-case, accent-folded word."""
        if not word.isascii() or "y" in word or word.endswith(_FR_SLOW_ENDINGS):
            return self._reference(word)
        return self._fast(word)


#: French endings whose stems Whoosh's port and the C stemmer make otherwise (see above).
_FR_SLOW_ENDINGS = ("emment", "trice", "trices")


@lru_cache(maxsize=65536)
def stem_en(word: str) -> str:
    """Snowball English stem of a lower-case word (cached: the vocabulary is small).

    >>> stem_en("priorities"), stem_en("resolving")
    ('prioriti', 'resolv')
    """
    return _stemmers()[0].stem(word) if word.isalpha() else word


@lru_cache(maxsize=65536)
def stem_fr(word: str) -> str:
    """Snowball French stem of an accent-folded word.

    Without its accent, the participle ending ``-ée`` keeps an ``e`` the stemmer would have
    removed from ``-é``: it goes too, so ``declenchee`` meets ``déclencher``.
    """
    if not word.isalpha():
        return word
    stem = _stemmers()[1].stem(word)
    return stem[:-1] if len(stem) > 4 and stem.endswith("e") else stem


_STEM_WORD = re.compile(r"[a-z0-9]+")


def word_stems(text: str, lang: str) -> list[str]:
    """The stems of an English or French text's words, case and accents ignored (the term
    base's comparison key; no stop words are dropped: a name's every word counts).

    >>> word_stems("Capacités déclenchées", "fr"), word_stems("Triggered abilities", "en")
    (['capacit', 'declench'], ['trigger', 'abil'])
    """
    stem = stem_fr if lang == "fr" else stem_en
    return [stem(w) for w in _STEM_WORD.findall(fold_accents(nfkc(text).lower()))]


_VOWELS = frozenset("aeiou")
_FR_FUNCTION_WORDS = frozenset(
    {"de", "du", "des", "la", "le", "les", "à", "au", "aux", "en", "et", "ou", "un", "une"}
    | {"sur", "par", "pour", "avec", "sans", "dans"}
)


def word_forms(word: str, lang: str) -> set[str]:
    """The inflected spellings of one lower-case English or French word (itself included).

    >>> sorted(word_forms("untap", "en"))
    ['untap', 'untaped', 'untaping', 'untapped', 'untapping', 'untaps']
    """
    return _en_word_forms(word) if lang == "en" else _fr_word_forms(word)


def _en_word_forms(word: str) -> set[str]:
    """English inflections of one word: plural and 3rd person -s/-es, -ed, -ing (e-drop, y->ies)."""
    forms = {word}
    if not word.isalpha() or len(word) < 2:
        return forms
    bases = {word}
    # A term printed in the plural or 3rd person ("Attacks", "Dies") also inflects its base.
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        if word.endswith("ies") and len(word) > 4:
            bases.add(word[:-3] + "y")
        elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
            bases.add(word[:-2])
        else:
            bases.add(word[:-1])
    for b in bases:
        forms.add(b)
        if b.endswith("y") and len(b) > 2 and b[-2] not in _VOWELS:
            forms |= {b[:-1] + "ies", b[:-1] + "ied", b + "ing"}
        elif b.endswith("ie"):
            forms |= {b + "s", b + "d", b[:-2] + "ying"}
        elif b.endswith("ee"):
            forms |= {b + "s", b + "d", b + "ing"}
        elif b.endswith("e"):
            forms |= {b + "s", b + "d", b[:-1] + "ing"}
        elif b.endswith(("s", "x", "z", "ch", "sh")):
            forms |= {b + "es", b + "ed", b + "ing"}
        else:
            forms |= {b + "s", b + "ed", b + "ing"}
            # "untap" -> "untapped": we cannot tell stress, so both spellings are accepted.
            cvc = len(b) >= 3 and b[-3] not in _VOWELS and b[-2] in _VOWELS
            if cvc and b[-1] not in _VOWELS and b[-1] not in "wxy":
                forms |= {b + b[-1] + "ed", b + b[-1] + "ing"}
    return forms


def _fr_word_forms(word: str) -> set[str]:
    """French plural (-s, -x, -al -> -aux) and feminine (-e, -es, -if -> -ive, -er -> -ère) forms."""
    forms = {word}
    if not word.isalpha() or word in _FR_FUNCTION_WORDS or word.endswith(("s", "x", "z")):
        return forms
    forms.add(word + "s")
    if word.endswith(("au", "eu")):
        forms.add(word + "x")
    if word.endswith("al"):
        forms.add(word[:-2] + "aux")
    if not word.endswith("e"):
        forms |= {word + "e", word + "es"}
    if word.endswith("if"):
        forms |= {word[:-1] + "ve", word[:-1] + "ves"}
    if word.endswith("er"):
        forms |= {word[:-2] + "ère", word[:-2] + "ères"}
    if word.endswith(("el", "en", "on")):
        forms |= {word + word[-1] + "e", word + word[-1] + "es"}
    return forms
