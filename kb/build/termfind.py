"""Glossary terms of an archive's rule texts, found once per distinct text and the part of the
vocabulary that text could contain.

An archive prints each text in dozens of editions, each with a vocabulary of its own (its
glossary), and building the matcher of a whole vocabulary (one large regex) cost as much as the
matching. A term can only be found where each of its words' invariant part (the letters every
inflection of the word keeps, as :mod:`kb.text.termmatch` inflects it) begins a word of the text,
and a term that cannot be found changes nothing of what the others find: so the terms found in a
text depend only on the vocabulary's terms it could contain, in the vocabulary's order (which
decides a spelling two terms share). That sub-vocabulary keys the results; a text is matched
again only under a sub-vocabulary no earlier edition gave it, with a
:class:`~kb.text.termmatch.TermMatcher` of the terms the texts to match could contain
(``tests/test_build_link.py`` compares every edition with a matcher of its whole vocabulary).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: What a text's terms are: the spans ``[key, start, end]`` and the distinct keys in order.
Found = tuple[list[list[Any]], list[str]]

_WORD = re.compile(r"\w+")


class TermFinder:
    """Finds the glossary terms of texts in one language under successive vocabularies."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        #: form -> (its normalised form, the stems each of its words' spellings starts with)
        self._forms: dict[str, tuple[str, tuple[str, ...]]] = {}
        #: (key, normalised form) -> entry number, and each entry's (key, form as given)
        self._entry_ids: dict[tuple[str, str], int] = {}
        self._entries: list[tuple[str, str]] = []
        #: the entries of every vocabulary learnt by their first stem (with their other stems),
        #: and those without stems (candidates in every text)
        self._by_stem: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        self._anywhere: list[int] = []
        self._stems: set[str] = set()  # every stem, of any word
        #: text -> the entries it could contain (forgotten when an entry is learnt)
        self._candidates: dict[str, tuple[int, ...]] = {}
        self._memo: dict[tuple[str, tuple[int, ...]], Found] = {}
        self._order: tuple[Any, dict[int, int]] | None = None

    def _form(self, form: str) -> tuple[str, tuple[str, ...]]:
        info = self._forms.get(form)
        if info is None:
            from kb.text.termmatch import _common_prefix, _normalize_form, _slots

            norm = _normalize_form(form)
            stems: tuple[str, ...] = ()
            if self.lang != "ja" and any(c.isalnum() for c in norm):
                # Words are matched at word starts (after a boundary or whitespace); Japanese
                # is matched anywhere and keeps no stems (every term is a candidate).
                for slot in _slots(norm, self.lang):
                    word = _WORD.match(_common_prefix(slot))
                    if word:
                        stems += (word.group(),)
            info = self._forms[form] = (norm, stems)
        return info

    def learn(self, vocab: Mapping[str, list[str]]) -> None:
        """Know the terms of a vocabulary before matching with it (a caller passes every
        vocabulary it will use first, so that no text is looked at twice)."""
        for key, forms in vocab.items():
            for form in forms or [key]:
                norm, stems = self._form(form)
                if (key, norm) in self._entry_ids:
                    continue
                entry = self._entry_ids[(key, norm)] = len(self._entries)
                self._entries.append((key, form))
                self._stems.update(stems)
                if stems:
                    self._by_stem.setdefault(stems[0], []).append((entry, stems[1:]))
                else:
                    self._anywhere.append(entry)
                self._candidates.clear()  # a new entry: every text is looked at again

    def _order_of(self, vocab: Mapping[str, list[str]]) -> dict[int, int]:
        """Each entry of the vocabulary -> its place in it."""
        if self._order is not None and self._order[0] is vocab:
            return self._order[1]
        self.learn(vocab)
        order: dict[int, int] = {}
        for key, forms in vocab.items():
            for form in forms or [key]:
                order.setdefault(self._entry_ids[(key, self._form(form)[0])], len(order))
        self._order = (vocab, order)
        return order

    def find_all(
        self,
        vocab: Mapping[str, list[str]],
        texts: list[str],
        skip: Callable[[str], Sequence[tuple[int, int]]],
    ) -> list[Found]:
        """The terms of each text, as ``TermMatcher(vocab, lang).find(text, skip(text))`` gives
        them (``skip``: the spans of a text no term may overlap, its rule references)."""
        order = self._order_of(vocab)
        keys: list[tuple[str, tuple[int, ...]]] = []
        missing: dict[str, tuple[int, ...]] = {}
        for text in texts:
            sub = tuple(
                sorted([e for e in self._candidates_of(text) if e in order], key=order.__getitem__)
            )
            key = (text, sub)
            keys.append(key)
            if key not in self._memo:
                missing[text] = sub
        if missing:
            from kb.text.termmatch import TermMatcher

            restricted: dict[str, list[str]] = {}
            for entry in sorted(set().union(*missing.values()), key=order.__getitem__):
                name, form = self._entries[entry]
                restricted.setdefault(name, []).append(form)
            matcher = TermMatcher(restricted, self.lang)
            for text, sub in missing.items():
                spans = matcher.find(text, skip=skip(text))
                self._memo[(text, sub)] = (
                    [[name, start, end] for name, start, end in spans],
                    list(dict.fromkeys(name for name, _, _ in spans)),
                )
        return [self._memo[key] for key in keys]

    def _candidates_of(self, text: str) -> tuple[int, ...]:
        """The entries learnt that ``text`` could contain: each of their stems begins a word of
        it (folded as the matcher folds it)."""
        found = self._candidates.get(text)
        if found is None:
            from kb.text.termmatch import _match_form

            stems = self._stems
            prefixes = {
                word[:end]
                for word in set(_WORD.findall(_match_form(text)))
                for end in range(1, len(word) + 1)
                if word[:end] in stems
            }
            out = list(self._anywhere)
            for prefix in prefixes:
                for entry, rest in self._by_stem.get(prefix, ()):
                    if all(stem in prefixes for stem in rest):
                        out.append(entry)
            found = self._candidates[text] = tuple(out)
        return found
