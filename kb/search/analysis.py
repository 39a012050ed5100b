"""Per-language text analysis for the search index: English, French and Japanese.

Every function here turns a text into index terms, and the same functions analyse the queries, so
that a word typed by a player meets the word printed in the rules. Each analyser returns *spans*
``(term, start, end)`` over the caller's text, which the highlighter uses to mark matches.

All analysers first apply NFKC (full-width ``１１７．３ａ`` is ``117.3a``, ``ＭＴＧ`` is ``mtg``)
and lower-case. Then:

- English (:func:`analyze_en`): stop words out, possessive ``'s`` off, Snowball stemming.
- French (:func:`analyze_fr`): elision (``l'``, ``d'``, ``qu'`` ...) off, stop words out, accents
  folded (``é`` -> ``e``) *before* stemming so that ``déclenchée`` and ``declenchee`` meet.
- Japanese (:func:`analyze_ja`): a morphological analyser (SudachiPy, split mode A, by default;
  janome with ``KB_JA_ANALYZER=janome``, see :data:`JA_BACKENDS`) keeps content words in their
  dictionary form; :func:`bigrams_ja` adds overlapping character bigrams for recall where the
  analyser splits differently from the query.
- Unstemmed companions (:func:`plain_en`, :func:`plain_fr`) keep whole words: fuzzy matching and
  suggestions need real spellings, which a stemmed field does not have.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from whoosh.analysis import Token, Tokenizer

from kb.text import fold_accents as _fold_accents
from kb.text import stem_en, stem_fr

Span = tuple[str, int, int]

# Words of a Latin-script language; a rule number such as 117.3a stays one token.
_LATIN = re.compile(r"\d+(?:\.\d+[a-z]?)?|[^\W\d_]+(?:['’][^\W\d_]+)*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f々〆ー]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# Question words are stop words too: players ask "when can I ...", "what happens if ...".
EN_STOP = frozenset(
    [
        "a",
        "about",
        "after",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "she",
        "should",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "happen",
        "happens",
        "get",
    ]
)
FR_STOP = frozenset(
    [
        "a",
        "ai",
        "au",
        "aux",
        "avec",
        "c",
        "ce",
        "ces",
        "cet",
        "cette",
        "d",
        "de",
        "des",
        "du",
        "elle",
        "en",
        "est",
        "et",
        "etre",
        "il",
        "ils",
        "j",
        "je",
        "l",
        "la",
        "le",
        "les",
        "leur",
        "lui",
        "m",
        "ma",
        "me",
        "mes",
        "moi",
        "mon",
        "n",
        "ne",
        "nous",
        "on",
        "ou",
        "par",
        "pas",
        "pour",
        "qu",
        "que",
        "quel",
        "quelle",
        "quand",
        "qui",
        "s",
        "sa",
        "se",
        "ses",
        "son",
        "sont",
        "sur",
        "t",
        "ta",
        "te",
        "tes",
        "toi",
        "ton",
        "tu",
        "un",
        "une",
        "vous",
        "y",
        "est-ce",
        "estce",
        "comment",
        "peut",
        "peux",
        "puis-je",
        "dois",
        "doit",
        "faut",
        "lorsque",
        "lorsqu",
        "quoi",
        "cela",
        "ca",
        "ceci",
    ]
)
# Elided articles and pronouns: l'étape, d'éphémère, qu'un, jusqu'à, lorsqu'il.
_ELISION = re.compile(r"^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu|quoiqu)['’]")
JA_STOP = frozenset(
    [
        "の",  # the nominaliser of "得るのは": a noun to janome, a particle to a reader
        "ん",
        "する",
        "ある",
        "いる",
        "なる",
        "こと",
        "もの",
        "これ",
        "それ",
        "その",
        "この",
        "ため",
        "よう",
        "られる",
        "れる",
    ]
)
# janome (IPADIC) and Sudachi name parts of speech a little differently: both sets.
_JA_SKIP_POS = frozenset(["助詞", "助動詞", "記号", "補助記号", "空白"])


def normalize(text: str) -> str:
    """NFKC, skipped when the text is already normal (most rule texts are)."""
    if unicodedata.is_normalized("NFKC", text):
        return text
    return unicodedata.normalize("NFKC", text)


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
    """NFKC and control characters to spaces: what a query is before parsing."""
    return _CONTROL.sub(" ", normalize(text))


@lru_cache(maxsize=65536)
def fold_accents(word: str) -> str:
    """Drop diacritics (:func:`kb.text.fold_accents`, cached per word): ``déclenchée`` ->
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


def analyze_en(text: str) -> list[Span]:
    """English index terms: stop words out, stemmed.

    >>> [t for t, _, _ in analyze_en("The player's triggered abilities (see rule 117.3a)")]
    ['player', 'trigger', 'abil', 'see', 'rule', '117.3a']
    """
    out: list[Span] = []
    for word, start, end in _latin_words(normalize(text)):
        kept = _en_word(word)
        if kept is not None:
            out.append((stem_en(kept), start, end))
    return out


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


def plain_en(text: str) -> list[Span]:
    """English words as spelled (lower-case, no stemming): fuzzy matching and suggestions.

    >>> [t for t, _, _ in plain_en("The player's triggered abilities")]
    ['player', 'triggered', 'abilities']
    """
    out: list[Span] = []
    for word, start, end in _latin_words(normalize(text)):
        kept = _en_word(word)
        if kept is not None:
            out.append((kept, start, end))
    return out


def analyze_fr(text: str) -> list[Span]:
    """French index terms: elision, stop words, accent folding, then stemming.

    >>> [t for t, _, _ in analyze_fr("L'étape de nettoyage : qu'un joueur reçoive la priorité")]
    ['etap', 'nettoyag', 'joueur', 'recoiv', 'priorit']
    """
    out: list[Span] = []
    for word, start, end in _latin_words(normalize(text)):
        kept = _fr_word(word)
        if kept is not None:
            out.append((stem_fr(kept), start, end))
    return out


def plain_fr(text: str) -> list[Span]:
    """French words without stemming (elision off, accents folded).

    >>> [t for t, _, _ in plain_fr("d'éphémère à tout moment")]
    ['ephemere', 'tout', 'moment']
    """
    out: list[Span] = []
    for word, start, end in _latin_words(normalize(text)):
        kept = _fr_word(word)
        if kept is not None:
            out.append((kept, start, end))
    return out


# ---- Japanese -------------------------------------------------------------------------------

#: A Japanese backend maps a text to ``(dictionary form, part of speech, start, end)`` morphemes,
#: with character offsets into that text.
JaBackend = Callable[[str], list[tuple[str, str, int, int]]]
_backend_lock = threading.Lock()
_backends: dict[str, JaBackend] = {}

#: Sudachi's split mode, chosen by measurement on tests/search_eval.toml (Japanese MRR: A 1.000,
#: B and C 0.975, recall@5 1.0 for all; janome 0.975): A, the shortest units, meets a query's
#: words inside the compounds rules are full of (優先権 is 優先 + 権, so 優先 alone finds it),
#: where B and C keep 優先権 whole. ``KB_JA_ANALYZER=sudachi:C`` measures another mode.
SUDACHI_MODE = "A"
#: SudachiPy refuses inputs over 49,149 bytes; a piece of this many characters (at most four
#: UTF-8 bytes each) is always under it.
MAX_PIECE_CHARS = 49149 // 4
#: Where a long text may be cut, best first: line ends, sentence ends, then clause ends.
_CUTS = ("\n", "。", "．", "！", "？", "!", "?", "、", "，", " ")


class JaAnalyzerError(RuntimeError):
    """The Japanese analyser asked for (``$KB_JA_ANALYZER``) is unknown or not installed."""


def _janome() -> JaBackend:
    try:
        from janome.tokenizer import Tokenizer as JanomeTokenizer
    except ImportError as exc:
        raise JaAnalyzerError(
            "the Japanese analyser 'janome' needs the package janome, which is not installed "
            "(pip install 'janome>=0.5', or unset KB_JA_ANALYZER to use sudachi)"
        ) from exc
    tokenizer = JanomeTokenizer()

    def run(text: str) -> list[tuple[str, str, int, int]]:
        out = []
        pos = 0
        for tok in tokenizer.tokenize(text):
            surface = tok.surface
            # janome gives no offsets; its surfaces follow each other through the text.
            start = text.find(surface, pos)
            if start < 0:
                start = pos
            pos = start + len(surface)
            base = tok.base_form if tok.base_form != "*" else surface
            out.append((base, tok.part_of_speech.split(",", 1)[0], start, pos))
        return out

    return run


def _sudachi(mode: str = SUDACHI_MODE) -> JaBackend:
    try:
        from sudachipy import Dictionary
        from sudachipy.errors import SudachiError
    except ImportError as exc:
        raise JaAnalyzerError(
            "the Japanese analyser 'sudachi' needs the packages sudachipy and sudachidict-core, "
            "which are not installed (pip install sudachipy sudachidict-core)"
        ) from exc
    try:
        tok = Dictionary().tokenizer(mode=mode)
    except (SudachiError, ImportError, OSError) as exc:  # no or a broken dictionary package
        raise JaAnalyzerError(
            f"the Japanese analyser 'sudachi' could not load its dictionary ({exc}); "
            "pip install sudachidict-core"
        ) from exc

    def run(text: str) -> list[tuple[str, str, int, int]]:
        return [
            (m.dictionary_form(), m.part_of_speech()[0], m.begin(), m.end())
            for m in tok.tokenize(text)
        ]

    return run


#: Pluggable morphological analysers, by name; sudachi is the default (see the package README).
#: ``sudachi:A``/``sudachi:B``/``sudachi:C`` choose a split mode for measurements.
JA_BACKENDS: dict[str, Callable[[], JaBackend]] = {
    "janome": _janome,
    "sudachi": _sudachi,
    "sudachi:A": lambda: _sudachi("A"),
    "sudachi:B": lambda: _sudachi("B"),
    "sudachi:C": lambda: _sudachi("C"),
}
JA_DEFAULT = os.environ.get("KB_JA_ANALYZER", "").strip() or "sudachi"


def ja_backend(name: str | None = None) -> JaBackend:
    """The morphological analyser called ``name`` (default :data:`JA_DEFAULT`), created once per
    process (it loads a dictionary).

    Raises :class:`JaAnalyzerError` for an unknown name or a missing package.
    """
    name = name or JA_DEFAULT
    with _backend_lock:
        if name not in _backends:
            factory = JA_BACKENDS.get(name)
            if factory is None:
                raise JaAnalyzerError(
                    f"unknown Japanese analyser {name!r} (KB_JA_ANALYZER): "
                    f"choose one of {', '.join(sorted(JA_BACKENDS))}"
                )
            _backends[name] = factory()
        return _backends[name]


def ja_backend_id(name: str | None = None) -> str:
    """What the index records of its Japanese analyser: name, split mode, dictionary version.

    Another analyser, mode or dictionary splits words differently, so the index must be rebuilt.
    """
    from importlib import metadata

    name = name or JA_DEFAULT
    if name == "janome":
        packages = ["janome"]
    elif name.startswith("sudachi"):
        name = name if ":" in name else f"sudachi:{SUDACHI_MODE}"
        packages = ["sudachipy", "sudachidict-core"]
    else:
        return name
    versions = []
    for package in packages:
        try:
            versions.append(f"{package}-{metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package}-missing")
    return " ".join([name, *versions])


def split_long(text: str, limit: int = MAX_PIECE_CHARS) -> list[tuple[int, str]]:
    """``text`` in pieces of at most ``limit`` characters, each with its offset in ``text``.

    Pieces end at a line end where there is one, else at a sentence or clause end, else at the
    limit; joined, they are ``text`` again.

    >>> split_long("一。二。三", limit=4)
    [(0, '一。'), (2, '二。三')]
    """
    if len(text) <= limit:
        return [(0, text)]
    out: list[tuple[int, str]] = []
    start = 0
    while len(text) - start > limit:
        stop = start + limit
        cut = -1
        for mark in _CUTS:
            cut = text.rfind(mark, start, stop)
            if cut >= 0:
                break
        end = cut + 1 if cut >= 0 else stop
        out.append((start, text[start:end]))
        start = end
    out.append((start, text[start:]))
    return out


@lru_cache(maxsize=4096)
def _morphemes(text: str, backend: str) -> tuple[tuple[str, str, int, int], ...]:
    return tuple(ja_backend(backend)(text))


def analyze_ja(text: str, backend: str | None = None) -> list[Span]:
    """Japanese content words in dictionary form; particles, auxiliaries and symbols dropped.

    Texts of any length: a long one is analysed in pieces (:func:`split_long`).

    >>> [t for t, _, _ in analyze_ja("マナ能力はスタックを使うか")]
    ['マナ', '能力', 'スタック', '使う']
    """
    backend = backend or JA_DEFAULT
    norm = normalize(text).lower()
    out: list[Span] = []
    for offset, piece in split_long(norm):
        for base, part, start, end in _morphemes(piece, backend):
            if part in _JA_SKIP_POS or start == end or piece[start:end].isspace():
                continue
            base = base.lower()  # Sudachi's dictionary form of "mtg" is "MTG"
            if base in JA_STOP:
                continue
            out.append((base, offset + start, offset + end))
    return out


def bigrams_ja(text: str) -> list[Span]:
    """Overlapping character bigrams of each run of Japanese characters (one-character runs kept).

    >>> [t for t, _, _ in bigrams_ja("優先権を得る")]
    ['優先', '先権', '権を', 'を得', '得る']
    """
    norm = normalize(text).lower()
    out: list[Span] = []
    run_start = -1
    for i in range(len(norm) + 1):
        is_cjk = i < len(norm) and _CJK.match(norm[i]) is not None
        if is_cjk and run_start < 0:
            run_start = i
        elif not is_cjk and run_start >= 0:
            if i - run_start == 1:
                out.append((norm[run_start], run_start, i))
            for j in range(run_start, i - 1):
                out.append((norm[j : j + 2], j, j + 2))
            run_start = -1
    return out


def has_cjk(text: str) -> bool:
    """True if the text has Japanese (or other CJK) characters."""
    return _CJK.search(text) is not None


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
    return [t for t, _, _ in ANALYZERS[analyzer](text)]


def detect_lang(text: str) -> str | None:
    """Guess the language of a query: Japanese by script, French by accents or stop words.

    Returns None when nothing tells English from French (``priority`` could be either).
    """
    if has_cjk(text):
        return "ja"
    words = [w for w, _, _ in _latin_words(text)]
    if not words:
        return None
    if re.search(r"[éèêàçùœâîôû«»]", text.lower()):
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
