"""Japanese text analysis for the search: pluggable morphological analysers (SudachiPy by
default, janome), long texts cut under Sudachi's input limit, content words in dictionary form
and character bigrams. :mod:`kb.search.analysis` re-exports all of it beside English and French.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from functools import lru_cache

from kb.search.stopwords import JA_STOP
from kb.text.normal import nfkc as normalize

Span = tuple[str, int, int]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f々〆ー]")
# janome (IPADIC) and Sudachi name parts of speech a little differently: both sets.
_JA_SKIP_POS = frozenset(["助詞", "助動詞", "記号", "補助記号", "空白"])


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
#: Sudachi's dictionary package, chosen by measurement: small (115 MB) splits the corpus's
#: Japanese like core (202 MB) but for 21 of 556 lines, mostly card names (灰色熊 is 灰 + 色 +
#: 熊), with the same search quality per kind (bench_search_eval.py); memory-mapped, it leaves a
#: warmed-up server process at 188 MB RSS, core at 253 MB (bench_search_memory.py, target 200).
#: ``KB_JA_ANALYZER=sudachi-core`` measures core.
SUDACHI_DICT = "small"
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


def _sudachi(mode: str = SUDACHI_MODE, dictionary: str = SUDACHI_DICT) -> JaBackend:
    package = f"sudachidict-{dictionary}"
    try:
        from sudachipy import Dictionary
        from sudachipy.errors import SudachiError
    except ImportError as exc:
        raise JaAnalyzerError(
            f"the Japanese analyser 'sudachi' needs the packages sudachipy and {package}, "
            f"which are not installed (pip install sudachipy {package})"
        ) from exc
    try:
        loaded = Dictionary(dict=dictionary)
        tok = loaded.tokenizer(mode=mode)
    except (SudachiError, ImportError, OSError) as exc:  # no or a broken dictionary package
        raise JaAnalyzerError(
            f"the Japanese analyser 'sudachi' could not load its dictionary {package} "
            f"({exc}); pip install {package}"
        ) from exc

    # A part of speech by its number, read from the dictionary once: a morpheme's own
    # part_of_speech() makes a tuple of six strings each time (a third of a query's analysis).
    pos_of: dict[int, str] = {}

    def part_of_speech(pos_id: int) -> str:
        found = pos_of.get(pos_id)
        if found is None:
            found = pos_of[pos_id] = loaded.pos_of(pos_id)[0]
        return found

    def run(text: str) -> list[tuple[str, str, int, int]]:
        return [
            (m.dictionary_form(), part_of_speech(m.part_of_speech_id()), m.begin(), m.end())
            for m in tok.tokenize(text)
        ]

    return run


#: Pluggable morphological analysers, by name; sudachi is the default (see the package README).
#: ``sudachi:A``/``sudachi:B``/``sudachi:C`` choose a split mode, ``sudachi-small``/``sudachi-core``
#: a dictionary, for measurements.
JA_BACKENDS: dict[str, Callable[[], JaBackend]] = {
    "janome": _janome,
    "sudachi": _sudachi,
    "sudachi:A": lambda: _sudachi("A"),
    "sudachi:B": lambda: _sudachi("B"),
    "sudachi:C": lambda: _sudachi("C"),
    "sudachi-small": lambda: _sudachi(SUDACHI_MODE, "small"),
    "sudachi-core": lambda: _sudachi(SUDACHI_MODE, "core"),
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
        base = name.split(":", 1)[0]
        dictionary = base.split("-", 1)[1] if "-" in base else SUDACHI_DICT
        mode = name.split(":", 1)[1] if ":" in name else SUDACHI_MODE
        name = f"sudachi:{mode}"
        packages = ["sudachipy", f"sudachidict-{dictionary}"]
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
