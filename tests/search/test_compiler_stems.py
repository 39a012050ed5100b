"""The English stemmer in use (PyStemmer's C Snowball 2, see kb.text) gives the stems of
Whoosh's pure-Python port, which the index was always built with: on every word of the
shared English editions with the inflections a query's variants stem, and on random words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.lang.snowball.english import EnglishStemmer

from kb.text import _stemmers, stem_en, word_forms

_WHOOSH = EnglishStemmer()


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
