"""Per-language text analysis for the search index: English, French and Japanese.

Every function here turns a text into index terms, and the same functions analyse the queries, so
that a word typed by a player meets the word printed in the rules. Each analyser returns *spans*
``(term, start, end)`` over the caller's text, which the highlighter uses to mark matches.

All analysers first apply NFKC (full-width ``１１７．３ａ`` is ``117.3a``, ``ＭＴＧ`` is ``mtg``)
and lower-case. Then:

- English (:func:`analyze_en`): stop words out, possessive ``'s`` off, Snowball stemming.
- French (:func:`analyze_fr`): elision (``l'``, ``d'``, ``qu'`` ...) off, stop words out, accents
  folded (``é`` -> ``e``) *before* stemming so that ``déclenchée`` and ``declenchee`` meet.
- Japanese (:func:`analyze_ja`, in :mod:`kb.search.japanese`, re-exported here): a morphological analyser (SudachiPy, split mode A, by default;
  janome with ``KB_JA_ANALYZER=janome``, see :data:`JA_BACKENDS`) keeps content words in their
  dictionary form; :func:`bigrams_ja` adds overlapping character bigrams for recall where the
  analyser splits differently from the query.
- Unstemmed companions (:func:`plain_en`, :func:`plain_fr`) keep whole words: fuzzy matching and
  suggestions need real spellings, which a stemmed field does not have.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from whoosh.analysis import Token, Tokenizer

from kb.search import japanese as _japanese
from kb.search.japanese import (
    JA_BACKENDS,
    JA_DEFAULT,
    MAX_PIECE_CHARS,
    SUDACHI_MODE,
    JaAnalyzerError,
    JaBackend,
    _morphemes,
    bigrams_ja,
    has_cjk,
    split_long,
)
from kb.search.stopwords import ELISION as _ELISION
from kb.search.stopwords import EN_STOP, FR_STOP, JA_STOP
from kb.text.normal import fold_accents as _fold_accents
from kb.text.normal import nfkc as normalize
from kb.text.normal import stem_en, stem_fr

Span = tuple[str, int, int]

# Words of a Latin-script language; a rule number such as 117.3a stays one token.
_LATIN = re.compile(r"\d+(?:\.\d+[a-z]?)?|[^\W\d_]+(?:['’][^\W\d_]+)*")
# Control characters, and lone surrogates (not text: no analyser can encode them).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def normalize_mapped(text: str) -> tuple[str, list[int]]:
    """NFKC character by character, with the offset in ``text`` of every output character.

    The highlighter analyses the normalised text but marks the original one.

    >>> normalize_mapped("ﬁ１")
    ('fi1', [0, 0, 1])
    """
    if unicodedata.is_normalized("NFKC", text):
        return text, list(range(len(text)))
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        norm = unicodedata.normalize("NFKC", ch)
        out.append(norm)
        offsets.extend([i] * len(norm))
    return "".join(out), offsets


def clean_query(text: str) -> str:
    """NFKC, control characters and lone surrogates to spaces: what a query is before parsing."""
    return _CONTROL.sub(" ", normalize(text))


@lru_cache(maxsize=65536)
def fold_accents(word: str) -> str:
    """Drop diacritics (:func:`kb.text.normal.fold_accents`, cached per word): ``déclenchée`` ->
    ``declenchee``, ``reçoit`` -> ``recoit``."""
    return word if word.isascii() else _fold_accents(word)


def _latin_words(text: str) -> list[tuple[str, int, int]]:
    low = text.lower()
    if len(low) != len(text):  # a few letters lower-case to two characters: keep offsets right
        return [(m.group().lower(), m.start(), m.end()) for m in _LATIN.finditer(text)]
    if "’" in low:
        low = low.replace("’", "'")
    return [(m.group(), m.start(), m.end()) for m in _LATIN.finditer(low)]


def _en_word(word: str) -> str | None:
    if word.endswith("'s"):
        word = word[:-2]
    if not word or word in EN_STOP:
        return None
    return word


def _fr_word(word: str) -> str | None:
    word = _ELISION.sub("", word)
    if not word or word in FR_STOP:
        return None
    word = fold_accents(word)
    return None if word in FR_STOP else word


def _latin_analyser(
    keep: Callable[[str], str | None], stem: Callable[[str], str] | None, doc: str
) -> Callable[[str], list[Span]]:
    """A Latin analyser: the words ``keep`` keeps (as it gives them), stemmed by ``stem`` if
    given, with their offsets (:func:`_short_terms` is the same without offsets)."""
    if stem is None:

        def analyse(text: str) -> list[Span]:
            return [(k, a, b) for w, a, b in _latin_words(normalize(text)) if (k := keep(w))]

    else:

        def analyse(text: str) -> list[Span]:
            return [(stem(k), a, b) for w, a, b in _latin_words(normalize(text)) if (k := keep(w))]

    analyse.__doc__ = doc
    return analyse


analyze_en = _latin_analyser(
    _en_word,
    stem_en,
    """English index terms: stop words out, stemmed.

    >>> [t for t, _, _ in analyze_en("The player's triggered abilities (see rule 117.3a)")]
    ['player', 'trigger', 'abil', 'see', 'rule', '117.3a']
    """,
)
plain_en = _latin_analyser(
    _en_word,
    None,
    """English words as spelled (lower-case, no stemming): fuzzy matching and suggestions.

    >>> [t for t, _, _ in plain_en("The player's triggered abilities")]
    ['player', 'triggered', 'abilities']
    """,
)
analyze_fr = _latin_analyser(
    _fr_word,
    stem_fr,
    """French index terms: elision, stop words, accent folding, then stemming.

    >>> [t for t, _, _ in analyze_fr("L'étape de nettoyage : qu'un joueur reçoive la priorité")]
    ['etap', 'nettoyag', 'joueur', 'recoiv', 'priorit']
    """,
)
plain_fr = _latin_analyser(
    _fr_word,
    None,
    """French words without stemming (elision off, accents folded).

    >>> [t for t, _, _ in plain_fr("d'éphémère à tout moment")]
    ['ephemere', 'tout', 'moment']
    """,
)


def marker(lang: str, wanted: set[str]) -> Callable[[str], list[Span]]:
    """An analyser for highlighting in ``lang`` ("en" or "fr") that only returns the spans of
    ``wanted`` stems: words whose first letters no wanted stem has are skipped before stemming
    (a snippet's text is mostly other words; stemming them all cost half a query's time)."""
    heads = {w[:3] for w in wanted}
    keep = _en_word if lang == "en" else _fr_word
    stem = stem_en if lang == "en" else stem_fr

    if lang == "en" and heads and all(h.isalpha() for h in heads):
        # Only the words that start like a wanted stem are even looked at.
        found = re.compile(
            r"(?<![^\W\d_])(?:"
            + "|".join(sorted(map(re.escape, heads), key=len, reverse=True))
            + r")[^\W\d_]*(?:['’][^\W\d_]+)*",
            re.IGNORECASE,
        )

        def analyze_en_fast(text: str) -> list[Span]:
            out: list[Span] = []
            for m in found.finditer(normalize(text)):
                kept = _en_word(m.group().lower().replace("’", "'"))
                if kept is not None:
                    term = stem_en(kept)
                    if term in wanted:
                        out.append((term, m.start(), m.end()))
            return out

        return analyze_en_fast

    def analyze(text: str) -> list[Span]:
        out: list[Span] = []
        for word, start, end in _latin_words(normalize(text)):
            head = word[:3] if lang == "en" else fold_accents(_ELISION.sub("", word)[:3])
            if head not in heads:
                continue
            kept = keep(word)
            if kept is not None:
                term = stem(kept)
                if term in wanted:
                    out.append((term, start, end))
        return out

    return analyze


# The Japanese analyser of this process is :data:`JA_DEFAULT` here (tests set it).


def ja_backend(name: str | None = None) -> JaBackend:
    """:func:`kb.search.japanese.ja_backend`, by default :data:`JA_DEFAULT`."""
    return _japanese.ja_backend(name or JA_DEFAULT)


def ja_backend_id(name: str | None = None) -> str:
    """:func:`kb.search.japanese.ja_backend_id`, by default :data:`JA_DEFAULT`."""
    return _japanese.ja_backend_id(name or JA_DEFAULT)


def analyze_ja(text: str, backend: str | None = None) -> list[Span]:
    """:func:`kb.search.japanese.analyze_ja`, by default with :data:`JA_DEFAULT`.

    >>> [t for t, _, _ in analyze_ja("マナ能力はスタックを使うか")]
    ['マナ', '能力', 'スタック', '使う']
    """
    return _japanese.analyze_ja(text, backend or JA_DEFAULT)


#: The analysers by name, as the schema and the query compiler refer to them.
ANALYZERS: dict[str, Callable[[str], list[Span]]] = {
    "en": analyze_en,
    "en_plain": plain_en,
    "fr": analyze_fr,
    "fr_plain": plain_fr,
    "ja": analyze_ja,
    "ja_gram": bigrams_ja,
}


def terms(text: str, analyzer: str) -> list[str]:
    """Just the terms of :func:`analyze` (for queries and tests)."""
    short = _TERMS.get(analyzer)
    if short is not None:
        # The English and French analysers' terms without their offsets: the words found by
        # ``findall`` (strings made in C, no match objects), kept and stemmed alike.
        return short(_latin_word_texts(normalize(text)))
    return [t for t, _, _ in ANALYZERS[analyzer](text)]


def _latin_word_texts(text: str) -> list[str]:
    """The words of :func:`_latin_words`, without their offsets."""
    low = text.lower()
    if len(low) != len(text):
        return [w.lower() for w in _LATIN.findall(text)]
    if "’" in low:
        low = low.replace("’", "'")
    return _LATIN.findall(low)


def _short_terms(
    keep: Callable[[str], str | None], stem: Callable[[str], str] | None
) -> Callable[[list[str]], list[str]]:
    """An analyser's terms of a text's words: those ``keep`` keeps (as it gives them), stemmed."""
    if stem is None:
        return lambda words: [k for w in words if (k := keep(w)) is not None]
    return lambda words: [stem(k) for w in words if (k := keep(w)) is not None]


#: :func:`terms`' short way for each Latin analyser: its words filtered and stemmed alike.
_TERMS: dict[str, Callable[[list[str]], list[str]]] = {
    "en": _short_terms(_en_word, stem_en),
    "en_plain": _short_terms(_en_word, None),
    "fr": _short_terms(_fr_word, stem_fr),
    "fr_plain": _short_terms(_fr_word, None),
}


#: Letters and quotes of French, not of English.
_FRENCH_MARKS = re.compile(r"[éèêàçùœâîôû«»]")


def detect_lang(text: str) -> str | None:
    """Guess the language of a query: Japanese by script, French by accents or stop words.

    Returns None when nothing tells English from French (``priority`` could be either).
    """
    if has_cjk(text):
        return "ja"
    words = _latin_word_texts(text)
    if not words:
        return None
    if _FRENCH_MARKS.search(text.lower()):
        return "fr"
    fr = sum(1 for w in words if w in FR_STOP or _ELISION.match(w))
    en = sum(1 for w in words if w in EN_STOP)
    if fr > en:
        return "fr"
    if en > fr:
        return "en"
    return None


#: Spans already computed by the index build, by ``(analyser, text)``: the build analyses each
#: text once for its own postings and Whoosh reuses the result (see :func:`remember`).
_MEMO: dict[tuple[str, str], list[Span]] = {}


def remember(analyzer: str, text: str) -> list[Span]:
    """Analyse ``text`` and keep the spans for the Whoosh writer; :func:`forget` when done."""
    spans = ANALYZERS[analyzer](text)
    _MEMO[(analyzer, text)] = spans
    return spans


def forget() -> None:
    """Drop the spans kept by :func:`remember`."""
    _MEMO.clear()


class SpanTokenizer(Tokenizer):
    """A Whoosh tokenizer running one of :data:`ANALYZERS` (positions and character offsets)."""

    def __init__(self, analyzer: str) -> None:
        self.analyzer = analyzer

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpanTokenizer) and other.analyzer == self.analyzer

    def __hash__(self) -> int:
        return hash(self.analyzer)

    def __call__(  # type: ignore[override]
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        tokenize: bool = True,
        mode: str = "",
        **kwargs: Any,
    ) -> Iterator[Token]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        spans = _MEMO.get((self.analyzer, value)) if _MEMO else None
        if spans is None:
            spans = ANALYZERS[self.analyzer](value)
        for pos, (text, start, end) in enumerate(spans, start_pos):
            token.text = text
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = text
            if positions:
                token.pos = pos
            if chars:
                token.startchar = start_char + start
                token.endchar = start_char + end
            yield token


__all__ = [
    "ANALYZERS",
    "EN_STOP",
    "FR_STOP",
    "JA_BACKENDS",
    "JA_DEFAULT",
    "JA_STOP",
    "MAX_PIECE_CHARS",
    "SUDACHI_MODE",
    "JaAnalyzerError",
    "JaBackend",
    "Span",
    "SpanTokenizer",
    "_morphemes",
    "analyze_en",
    "analyze_fr",
    "analyze_ja",
    "bigrams_ja",
    "clean_query",
    "detect_lang",
    "fold_accents",
    "forget",
    "has_cjk",
    "ja_backend",
    "ja_backend_id",
    "marker",
    "normalize",
    "normalize_mapped",
    "plain_en",
    "plain_fr",
    "remember",
    "split_long",
    "terms",
]
