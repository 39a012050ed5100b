"""Glossary-term matching in rule text ("Pass in Succession", "targeted", "capacités déclenchées").

:class:`TermMatcher` finds the terms a glossary defines, with their simple inflections, as spans
of the text as given; :func:`kb.text.references.link_html` turns those spans into links.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence

from kb.text.normal import (
    collapse_spaces,
    fold_width,
    lower_same_length,
    nfkc,
    straight_quotes,
    word_forms,
)
from kb.text.references import check_lang

__all__ = ["TermMatcher"]

# ---- inflections ---------------------------------------------------------------------------------

_MAX_VARIANTS = 256


def _match_form(text: str) -> str:
    """Text as terms are matched: width, quotes and case folded, the length kept."""
    return lower_same_length(straight_quotes(fold_width(text)))


def _en_word_forms(word: str) -> set[str]:
    """English inflections of one word (:func:`kb.text.normal.word_forms`)."""
    return word_forms(word, "en")


def _fr_word_forms(word: str) -> set[str]:
    """French plural and feminine forms of one word (:func:`kb.text.normal.word_forms`)."""
    return word_forms(word, "fr")


def _slots(form: str, lang: str) -> list[set[str]]:
    """The spellings each word of a normalised term may take (words separated by single spaces)."""
    words = form.split(" ")
    if lang == "ja":
        return [{form}]
    forms_of = _en_word_forms if lang == "en" else _fr_word_forms
    slots = [forms_of(w) for w in words]
    if len(words) > 2 and lang == "en":
        # English inflects the head noun at the end or the verb in front ("players pass in
        # succession"); the middle words stay put.
        slots = [slots[0], *({w} for w in words[1:-1]), slots[-1]]
    elif lang == "fr" and math.prod(len(s) for s in slots) > _MAX_VARIANTS:
        slots = [slots[0], *({w} for w in words[1:-1]), slots[-1]]
    return slots


def _variants(form: str, lang: str) -> set[str]:
    """Every inflected spelling of a normalised term."""
    return {" ".join(p) for p in itertools.product(*_slots(form, lang))}


def _common_prefix(words: set[str]) -> str:
    """The longest prefix all the words share."""
    low, high = min(words), max(words)
    size = 0
    while size < len(low) and low[size] == high[size]:
        size += 1
    return low[:size]


def _tokens(form: str, lang: str) -> list[str | tuple[str, ...]]:
    """A term as trie tokens: characters, " " for whitespace, a tuple for a word's endings.

    "pass in succession" -> p, a, s, s, ("ing", "es", "ed", ""), " ", i, n, ... so the regex
    lists each word's endings once instead of once per spelling of the whole term.
    """
    out: list[str | tuple[str, ...]] = []
    for i, slot in enumerate(_slots(form, lang)):
        if i:
            out.append(" ")
        stem = _common_prefix(slot)
        out.extend(stem)
        if len(slot) > 1:
            out.append(tuple(sorted({f[len(stem) :] for f in slot}, key=lambda e: (-len(e), e))))
    return out


def _normalize_form(form: str) -> str:
    """A surface form as matched: NFKC, straight quotes, lower case, single spaces, no surrounding
    quotes."""
    return collapse_spaces(_match_form(nfkc(form)).strip().strip('"'))


def _trie_regex(sequences: Iterable[Sequence[str | tuple[str, ...]]]) -> str:
    """One regex matching any of the token sequences, factored by common prefixes for speed.

    A " " token matches any run of whitespace; a tuple token matches one of its endings. At each
    node letters are tried before endings and stopping comes last, so the regex prefers the
    longest term at a given position ("attacking creature" over "attack" + "ing").
    """
    trie: dict = {}
    for seq in sequences:
        node = trie
        for tok in seq:
            node = node.setdefault(tok, {})
        node[None] = {}

    def piece(tok: str | tuple[str, ...]) -> str:
        if isinstance(tok, tuple):
            alts = "|".join(re.escape(e) for e in tok if e)
            return f"(?:{alts})?" if "" in tok else f"(?:{alts})"
        return r"\s+" if tok == " " else re.escape(tok)

    def render(node: dict) -> str:
        alternatives: list[str] = []
        leaves: list[str] = []
        keys = [k for k in node if k is not None]
        keys.sort(key=lambda k: (isinstance(k, tuple), k if isinstance(k, str) else "\x00".join(k)))
        for tok in keys:
            child = node[tok]
            if list(child) == [None] and isinstance(tok, str) and tok != " ":
                leaves.append(re.escape(tok))
            else:
                alternatives.append(piece(tok) + render(child))
        if len(leaves) == 1:
            alternatives.insert(0, leaves[0])
        elif leaves:
            alternatives.insert(0, "[" + "".join(leaves) + "]")
        if not alternatives:
            return ""
        body = "|".join(alternatives)
        if len(alternatives) > 1 or None in node:
            body = f"(?:{body})"
        return body + "?" if None in node else body

    return render(trie)


class TermMatcher:
    """Finds glossary terms in rule text: longest match, word boundaries, simple inflections.

    ``terms`` maps a glossary key to its surface forms (the term and its aliases). English matches
    plural/3rd person, -ed and -ing forms; French plural and feminine forms; Japanese matches the
    NFKC text without word boundaries. A spelling that two keys share goes to the key that prints
    it exactly, else to the first key given.
    """

    def __init__(self, terms: dict[str, list[str]], lang: str) -> None:
        check_lang(lang)
        self.lang = lang
        lookup: dict[str, tuple[int, str]] = {}
        sequences: list[list[str | tuple[str, ...]]] = []
        for key, forms in terms.items():
            for form in forms or [key]:
                norm = _normalize_form(form)
                if not any(c.isalnum() for c in norm):
                    continue
                sequences.append(_tokens(norm, lang))
                for variant in _variants(norm, lang):
                    rank = 0 if variant == norm else 1
                    if variant not in lookup or rank < lookup[variant][0]:
                        lookup[variant] = (rank, key)
        self._lookup = {v: key for v, (_, key) in lookup.items()}
        body = _trie_regex(sequences) if sequences else None
        if body is None:
            self._regex = None
        elif lang == "ja":
            self._regex = re.compile(body)
        else:
            self._regex = re.compile(rf"(?<!\w)(?:{body})(?!\w)")

    def find(self, text: str, skip: Sequence[tuple[int, int]] = ()) -> list[tuple[str, int, int]]:
        """``(key, start, end)`` of each term, leftmost-longest and non-overlapping.

        ``skip`` lists spans (such as rule reference labels) no term may overlap.
        """
        if self._regex is None:
            return []
        low = _match_form(text)
        out: list[tuple[str, int, int]] = []
        for m in self._regex.finditer(low):
            start, end = m.span()
            if any(s < end and start < e for s, e in skip):
                continue
            key = self._lookup.get(collapse_spaces(m.group()))
            if key is not None:
                out.append((key, start, end))
        return out

    def keys_in(self, text: str) -> list[str]:
        """The distinct keys of the terms a text uses, in order of first use."""
        return list(dict.fromkeys(key for key, _, _ in self.find(text)))
