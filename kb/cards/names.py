"""Card names in English, French and Japanese resolved to cards, and found inside free text.

One :class:`NameIndex` is built once from the cards (every card's Oracle name, its faces' names,
and the printed French and Japanese names) and then answers in this order:

1. exact: the name folded (case, accents, full/half width, apostrophes; for Japanese also spaces
   and middle dots) is a key of a dictionary, so a lookup is one hash; a name several cards
   share gives them all, English Oracle names first, whole names before faces' names;
2. partial: every word of the query is a word of the name ("Sphere", "the Elves"; then, for
   more candidates after those, with small words such as "the", "de", "of" dropped); for
   Japanese the query is a substring of the name. Candidates are ordered: names holding the query with its very
   accents ("Sphere", not "Sphère"), then names that start with it, then by how often the card
   is played (EDHREC rank), then by length;
3. fuzzy: names at most one (short queries) or two edits away (Damerau/OSA distance, rapidfuzz),
   searched first among the names sharing a word with the query, else among all the names of
   about its length; ties go to the closer spelling (normalised similarity), then to the more
   played card.

A query may be quoted as 《…》, « … », [[…]], “…”, 「…」 or "…". :meth:`NameIndex.mentions` finds
card names inside a question and returns each with its span in the question.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from kb.sources.card_model import Card

__all__ = ["Match", "Mention", "NameIndex", "fold", "unquote"]

LANGS = ("en", "fr", "ja")
_QUOTES = (("《", "》"), ("«", "»"), ("[[", "]]"), ("“", "”"), ("「", "」"), ('"', '"'), ("‘", "’"))
_QUOTED = re.compile(
    r"《([^《》]+)》|«\s*([^«»]+?)\s*»|\[\[([^\[\]]+)\]\]|“([^“”]+)”|「([^「」]+)」"
)
_CJK_CLASS = r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f]"


@functools.cache
def _cjk() -> re.Pattern[str]:
    """Kana and CJK ideographs, compiled on first use: ranges this wide take the regular
    expression compiler 30 ms, which `kb card` with an English name need not spend."""
    return re.compile(_CJK_CLASS)


_JA_SKIP = re.compile(r"[\s・･]+")
_PUNCT = str.maketrans({"’": "'", "‘": "'", "‐": "-", "‑": "-", "–": "-", "—": "-", "´": "'"})
_WORD = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*")
_TOKEN = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*")
_SMALL = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "and",
        "or",
        "de",
        "du",
        "des",
        "la",
        "le",
        "les",
        "l",
        "d",
        "un",
        "une",
        "et",
        "à",
        "au",
        "aux",
        "en",
        "の",
    ]
)
_MAX_WORDS = 16
_ELISION = re.compile(r"(?:[ldjmnst]|qu|jusqu|lorsqu|puisqu)['’](?=[^\W_])", re.I)


def _elided(token: re.Match[str]) -> tuple[int, int]:
    """A word's span without a French elided article or pronoun ("l'" of "l'Engin")."""
    elided = _ELISION.match(token[0])
    return (token.start() + (elided.end() if elided else 0), token.end())


def fold(text: str) -> str:
    """The key a name is found by: width, case and Latin accents folded, spaces collapsed."""
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT).casefold()
    if not text.isascii():
        decomposed = unicodedata.normalize("NFD", text)
        # drop accents on Latin letters only: a kana's voicing mark is part of the letter
        kept = [
            ch
            for i, ch in enumerate(decomposed)
            if not (unicodedata.combining(ch) and i and decomposed[i - 1] < "\u0250")
        ]
        text = unicodedata.normalize("NFC", "".join(kept))
        if _cjk().search(text):
            text = _JA_SKIP.sub("", text)
    return " ".join(text.split())


def unquote(query: str) -> str:
    """The query without one pair of surrounding quotes or brackets."""
    query = query.strip()
    for left, right in _QUOTES:
        if query.startswith(left) and query.endswith(right) and len(query) > len(left + right):
            return query[len(left) : -len(right)].strip()
    return query


@dataclass(frozen=True, slots=True)
class Match:
    """A card a name resolved to: the name as indexed, its language, how it matched, a score
    (1.0 exact; partial and fuzzy below) and, for fuzzy, the edit distance."""

    card: Card
    name: str
    lang: str
    how: str  # "exact" | "partial" | "fuzzy"
    score: float = 1.0
    distance: int = 0


@dataclass(frozen=True, slots=True)
class Mention:
    """A card name found in a text: ``text[start:end]`` and the cards it names."""

    start: int
    end: int
    text: str
    matches: tuple[Match, ...]


class NameIndex:
    """Every name of every card in three languages, folded, for lookups (see module docstring)."""

    def __init__(self, cards: Iterable[Card]) -> None:
        self.cards: list[Card] = list(cards)
        #: entry id -> (card position, language, name as printed, folded key)
        self.entries: list[tuple[int, str, str, str]] = []
        self.exact: dict[str, list[int]] = {}
        self.words: dict[str, list[int]] = {}
        self._ja: list[int] = []
        self._by_length: dict[int, tuple[list[str], list[int]]] = {}
        self.longest_words = 1
        self.longest_ja = 1
        for position, card in enumerate(self.cards):
            for lang in LANGS:
                for name in card.names(lang):
                    self._add(position, lang, name)
        for ids in self.exact.values():
            ids.sort(key=self._exact_order)
        for ids in self.words.values():
            ids.sort(key=self._order)
        by_length: dict[int, dict[str, int]] = {}
        for entry_id, (_, _, _, key) in enumerate(self.entries):
            by_length.setdefault(len(key), {}).setdefault(key, entry_id)
        self._by_length = {n: (list(d), list(d.values())) for n, d in by_length.items()}

    def _add(self, position: int, lang: str, name: str) -> None:
        key = fold(name)
        if not key:
            return
        ids = self.exact.setdefault(key, [])
        if any(self.entries[i][0] == position for i in ids):
            return
        entry_id = len(self.entries)
        self.entries.append((position, lang, name, key))
        ids.append(entry_id)
        if _cjk().search(key):
            self._ja.append(entry_id)
            self.longest_ja = max(self.longest_ja, len(key))
        words = _WORD.findall(key)
        self.longest_words = max(self.longest_words, len(words))
        for word in set(words):
            self.words.setdefault(word, []).append(entry_id)

    def _exact_order(self, entry_id: int) -> tuple[int, bool, tuple[int, int, int]]:
        """A name shared by cards: the Oracle (English) name first, a whole card's name before
        a face's ("Bind" before "Bind // Liberate"), then the more played card."""
        position, lang, name, _ = self.entries[entry_id]
        whole = name == self.cards[position].printed_name(lang)
        return (LANGS.index(lang), not whole, self._order(entry_id))

    def _order(self, entry_id: int) -> tuple[int, int, int]:
        position, lang, _, key = self.entries[entry_id]
        rank = self.cards[position].rank
        return (rank if rank is not None else 10**7, LANGS.index(lang), len(key))

    def _match(self, entry_id: int, how: str, score: float = 1.0, distance: int = 0) -> Match:
        position, lang, name, _ = self.entries[entry_id]
        return Match(self.cards[position], name, lang, how, score, distance)

    # ---- lookups -----------------------------------------------------------------------------
    def resolve(self, query: str, limit: int = 10) -> list[Match]:
        """Cards a name (in any of the three languages) names: exact, else partial, else fuzzy."""
        raw = unquote(query)
        key = fold(raw)
        if not key:
            return []
        return self.lookup(key, limit) or self.partial(key, limit, raw) or self.fuzzy(key, limit)

    def lookup(self, key: str, limit: int = 10) -> list[Match]:
        """Exact matches of a folded key (one card per name; a name shared by cards gives all)."""
        return [self._match(i, "exact") for i in self.exact.get(key, [])[:limit]]

    def partial(self, key: str, limit: int = 10, raw: str | None = None) -> list[Match]:
        """Names holding every word of ``key`` (Japanese: holding ``key``), most played first;
        names that hold ``raw`` (the query as typed) with its very accents come first."""
        typed = (raw or "").casefold()
        if _cjk().search(key):
            found = [i for i in self._ja if key in self.entries[i][3]]
            found.sort(key=lambda i: (not self.entries[i][3].startswith(key), self._order(i)))
            typed = ""
        else:
            words = _WORD.findall(key)
            every = set(self._all_words(words))
            content = [w for w in words if w not in _SMALL]
            found = list(every)
            if content != words:  # then the names holding the words that matter
                found += [i for i in self._all_words(content) if i not in every]
            found.sort(
                key=lambda i: (
                    i not in every,
                    bool(typed) and typed not in self.entries[i][2].casefold(),
                    not self.entries[i][3].startswith(key),
                    self._order(i),
                )
            )
        out: list[Match] = []
        seen: set[int] = set()
        for entry_id in found:
            position = self.entries[entry_id][0]
            if position not in seen:
                seen.add(position)
                score = len(key) / max(len(self.entries[entry_id][3]), 1)
                out.append(self._match(entry_id, "partial", round(score, 3)))
                if len(out) >= limit:
                    break
        return out

    def _all_words(self, words: list[str]) -> list[int]:
        if not words:
            return []
        postings = sorted((self.words.get(w, []) for w in set(words)), key=len)
        if not postings[0]:
            return []
        common = set(postings[0])
        for other in postings[1:]:
            common.intersection_update(other)
            if not common:
                return []
        return list(common)

    def fuzzy(self, key: str, limit: int = 10) -> list[Match]:
        """Names one or two edits away (one for names under six characters): first among the
        names sharing a word with ``key`` (a name one edit away from a query of several words
        shares the others), else among all the names of about its length."""
        from rapidfuzz import process  # here: an exact name (`kb card`) needs no fuzzy matcher
        from rapidfuzz.distance import OSA, Indel

        cutoff = 1 if len(key) < 6 else 2
        hits: list[tuple[int, float, tuple[int, int, int], int]] = []
        for entry_id in self._sharing_words(key, cutoff):
            other = self.entries[entry_id][3]
            distance = OSA.distance(key, other, score_cutoff=cutoff)
            if distance <= cutoff:
                similarity = Indel.normalized_similarity(key, other)
                hits.append((distance, -similarity, self._order(entry_id), entry_id))
        for length in range(len(key) - cutoff, len(key) + cutoff + 1) if not hits else ():
            keys, ids = self._by_length.get(length, ((), ()))
            if not keys:
                continue
            for _, distance, at in process.extract(
                key, keys, scorer=OSA.distance, score_cutoff=cutoff, limit=None
            ):
                entry_id = ids[at]
                similarity = Indel.normalized_similarity(key, keys[at])
                hits.append((int(distance), -similarity, self._order(entry_id), entry_id))
        hits.sort()
        out: list[Match] = []
        seen: set[int] = set()
        for distance, similarity, _, entry_id in hits:
            position = self.entries[entry_id][0]
            if position not in seen:
                seen.add(position)
                out.append(self._match(entry_id, "fuzzy", round(-similarity, 3), distance))
                if len(out) >= limit:
                    break
        return out

    def _sharing_words(self, key: str, cutoff: int) -> set[int]:
        """Names of about the length of ``key`` sharing one of its words (not a small word,
        nor one so common that its names are too many to be a filter)."""
        found: set[int] = set()
        for word in _WORD.findall(key):
            postings = self.words.get(word)
            if word not in _SMALL and postings and len(postings) <= 3000:
                found.update(postings)
        return {i for i in found if abs(len(self.entries[i][3]) - len(key)) <= cutoff}

    # ---- names inside a text -----------------------------------------------------------------
    def mentions(self, text: str) -> list[Mention]:
        """Card names a free-text question mentions, with their spans, left to right.

        Quoted names (《…》, « … », [[…]], “…”, 「…」) are resolved even if misspelt. Unquoted,
        the longest run of words that is exactly a name counts if it has two words or more (one
        of them capitalised, unless the text is all lower case) or is one capitalised word that
        does not start the text; in Japanese, the longest name of three characters or more.
        """
        found: list[Mention] = []
        taken = [False] * len(text)
        for match in _QUOTED.finditer(text):
            group = next(g for g in range(1, 6) if match[g] is not None)
            matches = self.resolve(match[group], limit=5)
            if matches:
                found.append(Mention(match.start(), match.end(), match[0], tuple(matches)))
                for i in range(match.start(), match.end()):
                    taken[i] = True
        found.extend(self._word_mentions(text, taken))
        found.extend(self._ja_mentions(text, taken))
        return sorted(found, key=lambda m: m.start)

    def _word_mentions(self, text: str, taken: list[bool]) -> list[Mention]:
        """Unquoted names of whole words: at each word the longest run that is a name, then
        the longest of overlapping runs wins ("Colère de Dieu" over "La Colère" in "La Colère
        de Dieu"); a French elided article is not part of a name ("l'Engin de sorcière")."""
        matched = [m for m in _TOKEN.finditer(text) if not taken[m.start()]]
        tokens = [_elided(m) for m in matched]
        lower = text == text.lower()
        # a run can be a name only while each of its words (elided or not: "l'Engin", "d'essai")
        # is a word of some name: one fold per word, not one per run
        known = [
            self._known(m[0]) or self._known(text[a:b])
            for m, (a, b) in zip(matched, tokens, strict=True)
        ]
        runs: list[tuple[int, int]] = []
        for i in range(len(tokens)):
            reach = i
            while reach < len(tokens) and known[reach] and reach - i < _MAX_WORDS:
                reach += 1
            for j in range(min(reach, i + self.longest_words) - 1, i - 1, -1):
                start, end = tokens[i][0], tokens[j][1]
                if any(taken[start:end]):
                    continue
                if self.exact.get(fold(text[start:end])) and self._plausible(
                    [text[a:b] for a, b in tokens[i : j + 1]], text[:start], lower
                ):
                    runs.append((i, j))
                    break
        chosen: list[tuple[int, int]] = []
        for i, j in sorted(runs, key=lambda r: (r[0] - r[1], r[0])):
            if all(j < a or i > b for a, b in chosen):
                chosen.append((i, j))
        out: list[Mention] = []
        for i, j in sorted(chosen):
            start, end = tokens[i][0], tokens[j][1]
            ids = self.exact[fold(text[start:end])]
            matches = tuple(self._match(k, "exact") for k in ids[:5])
            out.append(Mention(start, end, text[start:end], matches))
        return out

    def _known(self, token: str) -> bool:
        """Whether every word of ``token`` is a word of some card's name."""
        return all(w in self.words for w in _WORD.findall(fold(token)))

    @staticmethod
    def _plausible(tokens: list[str], before: str, lower: bool) -> bool:
        if _cjk().search(tokens[0]):
            return False  # Japanese runs are scanned by character
        capitals = [t for t in tokens if t[:1].isupper() and t.casefold() not in _SMALL]
        if len(tokens) >= 2:
            return bool(capitals) or lower
        first = not before.strip(" ¿¡\"'“«(")
        return bool(capitals) and not first and len(tokens[0]) > 2

    def _ja_mentions(self, text: str, taken: list[bool]) -> list[Mention]:
        out: list[Mention] = []
        i = 0
        while i < len(text):
            if taken[i] or not _cjk().match(text[i]):
                i += 1
                continue
            for n in range(min(self.longest_ja, len(text) - i), 2, -1):
                if any(taken[i : i + n]):
                    continue
                ids = self.exact.get(fold(text[i : i + n]))
                if ids:
                    matches = tuple(self._match(k, "exact") for k in ids[:5])
                    out.append(Mention(i, i + n, text[i : i + n], matches))
                    i += n - 1
                    break
            i += 1
        return out
