"""The term base as the query compiler asks it: the concepts a query names in one language and
their names in another (cross-language expansion, glossary pins), the names as the index
analyses them, and the phrases they make (:func:`name_phrases`, which the index build
evaluates: :mod:`kb.search.prepared`)."""

from __future__ import annotations

import re

from kb.knowledge.model import LANGS, KnowledgeBase, Term
from kb.knowledge.terms import TermIndex
from kb.search.analysis import bigrams_ja, fold_accents, has_cjk, normalize, terms

__all__ = ["TermNames", "analysed", "grams", "name_phrases", "names_analysed", "phrases_of"]


class TermNames:
    """The term base for cross-language expansion: :class:`kb.knowledge.terms.TermIndex` finds the
    concepts a query names; a whole-query match compares the query with a name as analysed.

    A query is looked up in each of its languages once however many ways it is translated:
    :meth:`forget` drops what the last query found."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.terms = kb.terms
        self._index = TermIndex(kb.terms)
        self._found: dict[tuple[str, str], list[Term]] = {}
        self._wholes: dict[tuple[str, str], list[Term]] = {}
        # The words of each language's names, accents folded (:meth:`name_word`).
        self._words_of: dict[str, frozenset[str]] = {
            lang: frozenset(
                fold_accents(part)
                for term in kb.terms
                for name in term.names(lang)
                for part in re.findall(r"[^\W\d_]+", name.lower())
            )
            for lang in LANGS
        }
        # Each concept's names per language as analysed, made once (a thousand names, 10 ms):
        # a query compared with them names the concept whole.
        self._keys: dict[tuple[int, str], set[tuple[str, ...]]] = {
            (id(term), lang): {analysed(name, lang) for name in term.names(lang)}
            for term in kb.terms
            for lang in LANGS
        }

    def forget(self) -> None:
        """Drop the concepts found for the previous query."""
        self._found.clear()
        self._wholes.clear()

    def _find(self, text: str, src: str) -> list[Term]:
        key = (text, src)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._index.find(text, src)
        return found

    def _whole(self, text: str, src: str) -> list[Term]:
        """The concepts one of whose ``src`` names is the whole of ``text``."""
        got = self._wholes.get((text, src))
        if got is None:
            found = self._find(text, src)
            got = []
            if found:  # the text is analysed only when it names a concept at all
                key = analysed(text, src)
                keys = self._keys
                got = [
                    term
                    for term in found
                    if key in (keys.get((id(term), src)) or names_analysed(term, src))
                ]
            self._wholes[(text, src)] = got
        return got

    def translate(self, text: str, src: str, dst: str, whole: bool = False) -> list[str]:
        """Names in ``dst`` of the concepts named in ``text`` in ``src`` (``whole``: the text
        is one name, and each concept gives its first two names)."""
        if (src == "ja") != has_cjk(text):
            return []
        if not whole:
            # kb.terms.TermIndex.translate's answer: each concept's first name, once.
            out: list[str] = []
            for term in self._find(text, src):
                names = term.names(dst)
                if names and names[0] not in out:
                    out.append(names[0])
            return out
        names = [name for term in self._whole(text, src) for name in term.names(dst)[:2]]
        return list(dict.fromkeys(names))

    def names(self, word: str, lang: str) -> bool:
        """True if ``word`` is a whole name of a concept of the term base in ``lang``."""
        if (lang == "ja") != has_cjk(word):
            return False
        return any(term.names(lang) for term in self._whole(word, lang))

    def name_word(self, word: str, lang: str) -> bool:
        """True if ``word`` is a word of some concept's name in ``lang`` ("lien" of "lien de
        vie"), accents or none: the rules' own vocabulary, so no typo even alone."""
        return fold_accents(word.lower()) in self._words_of[lang]

    def language_of(self, text: str) -> str | None:
        """The one language whose term names occur in ``text``, if exactly one does."""
        cjk = has_cjk(text)
        found = [code for code in LANGS if (code == "ja") == cjk and self._find(text, code)]
        return found[0] if len(found) == 1 else None


def name_phrases(kb: KnowledgeBase) -> list[tuple[str, list[str]]]:
    """The ``(field, words)`` phrases the term base's names make, as
    :meth:`kb.search.compiler.QueryCompiler.name_phrases` gives them, without a compiler (the index build
    evaluates them: :mod:`kb.search.prepared`)."""
    name_terms = {
        (name, lang): terms(name, lang)
        for term in kb.terms
        for lang in LANGS
        for name in term.names(lang)
    }
    name_grams = {name: grams(name) for term in kb.terms for name in term.names("ja")}
    return phrases_of(name_terms, name_grams)


def phrases_of(
    name_terms: dict[tuple[str, str], list[str]], name_grams: dict[str, list[str]]
) -> list[tuple[str, list[str]]]:
    """The phrases of names analysed per language (``name_terms``) and of the Japanese names'
    bigrams (``name_grams``): a name in its body and title fields, a Japanese one in its body
    and bigram fields; only those of several words."""
    out: list[tuple[str, list[str]]] = []
    for (name, lang), toks in name_terms.items():
        if lang == "ja":
            out.append(("body_ja", toks))
            out.append(("gram_ja", name_grams.get(name, [])))
        else:
            out.extend(((f"body_{lang}", toks), (f"title_{lang}", toks)))
    return [(field_name, words) for field_name, words in out if len(words) > 1]


def analysed(text: str, lang: str) -> tuple[str, ...]:
    """A name or a query as the index sees it: stems in English and French, NFKC in Japanese."""
    return (normalize(text),) if lang == "ja" else tuple(terms(text, lang))


def grams(text: str) -> list[str]:
    """The bigrams of :func:`kb.search.analysis.bigrams_ja`; none, without walking the text, in
    a text with no Japanese character (most words a Latin query has in the Japanese fields)."""
    return [g for g, _, _ in bigrams_ja(text)] if has_cjk(normalize(text)) else []


def names_analysed(term: Term, lang: str) -> set[tuple[str, ...]]:
    """The names of ``term`` in ``lang`` as analysed (a concept not made at start-up)."""
    return {analysed(name, lang) for name in term.names(lang)}
