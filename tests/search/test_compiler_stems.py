"""The stemmers in use (PyStemmer's C Snowball 2, see kb.text) give the stems of Whoosh's
pure-Python ports, which the index was always built with: on every word of the shared English
editions (and of the French texts) with the inflections a query's variants stem, and on random
words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.lang.snowball.english import EnglishStemmer
from whoosh.lang.snowball.french import FrenchStemmer

from kb.search.analysis import fold_accents
from kb.text.normal import _FrenchStems, _stemmers, stem_en, word_forms

_WHOOSH = EnglishStemmer()
_WHOOSH_FR = FrenchStemmer()


def test_the_c_stemmer_is_in_use() -> None:
    """PyStemmer 2 is a dependency: the English stemmer is not Whoosh's slow port."""
    assert not isinstance(_stemmers()[0], EnglishStemmer)


def test_every_word_of_the_editions_and_its_inflections_stems_alike(cr_en_dir: Path) -> None:
    words: set[str] = set()
    for path in sorted(cr_en_dir.glob("*.txt"))[-2:]:
        words |= set(
            re.findall(r"[a-z]+", path.read_text(encoding="utf-8", errors="replace").lower())
        )
    forms = set(words)
    for word in words:
        forms |= word_forms(word, "en")
    assert len(forms) > 10_000
    stem = _stemmers()[0].stem
    differ = [w for w in sorted(forms) if stem(w) != _WHOOSH.stem(w)]
    assert differ == []


@pytest.mark.parametrize("word", ["added", "organized", "pasted", "evening", "archaeologist"])
def test_the_words_snowball_3_stems_otherwise(word: str) -> None:
    stem_en.cache_clear()
    assert stem_en(word) == _WHOOSH.stem(word)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="abcdeilnorstuyzéèüñß優ー", min_size=1, max_size=14))
def test_random_words_stem_alike(word: str) -> None:
    if word.isalpha():
        assert _stemmers()[0].stem(word) == _WHOOSH.stem(word)


def test_the_c_french_stemmer_is_in_use() -> None:
    """PyStemmer's French makes most stems (the canaries agree with Whoosh's port)."""
    french = _stemmers()[1]
    assert isinstance(french, _FrenchStems)
    assert french._fast is not french._reference


def test_every_french_word_and_its_inflections_stems_alike(embedded_kb) -> None:
    words: set[str] = set()
    for ed, rules in embedded_kb.rules.items():
        if embedded_kb.editions[ed].lang == "fr":
            for rule in rules.values():
                words |= set(re.findall(r"[^\W\d_]+", f"{rule.title or ''} {rule.text}".lower()))
    for entries in embedded_kb.glossary.values():
        for entry in entries.values():
            words |= set(re.findall(r"[^\W\d_]+", f"{entry.term} {entry.definition}".lower()))
    forms = {fold_accents(f) for word in words for f in word_forms(word, "fr")}
    assert len(forms) > 500
    stem = _stemmers()[1].stem
    assert [w for w in sorted(forms) if stem(w) != _WHOOSH_FR.stem(w)] == []


@pytest.mark.parametrize(
    "word", ["nibaiemment", "souremment", "ebzpicatrice", "okkticatrices", "yoe", "syui", "ayons"]
)
def test_the_words_the_c_french_stemmer_stems_otherwise(word: str) -> None:
    """Whoosh's port and Snowball 2's C French differ on these: Whoosh's stem is kept."""
    assert _stemmers()[1].stem(word) == _WHOOSH_FR.stem(word)


#: Snowball French suffixes (and a few inflections), to end random words with.
_FR_ENDINGS = (
    *("", "ement", "emment", "amment", "ments", "atrice", "atrices", "ateur", "ation", "euse"),
    *("issement", "ique", "ites", "ives", "eaux", "ier", "iere", "aient", "erait", "ions"),
    *("ee", "ees", "es", "ance", "logie", "usion", "ition", "able", "iste", "if"),
)


@settings(max_examples=3000, deadline=None)
@given(
    st.text(alphabet="abcdefgilmnoqrstuvyzéèü", min_size=1, max_size=10),
    st.sampled_from(_FR_ENDINGS),
)
def test_random_french_words_stem_alike(head: str, ending: str) -> None:
    word = fold_accents(head + ending)
    if word.isalpha():
        assert _stemmers()[1].stem(word) == _WHOOSH_FR.stem(word)
