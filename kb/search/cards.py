"""Search that reads cards: card names recognised in a question, the card as a hit, what a card
does added to the question, and rulings as their own kind of hit.

Only a build with a card file has cards (:class:`kb.store.cards.CardStore`); a benchmark may
give cards in memory (:meth:`CardSearch.from_cards`). :class:`kb.search.Searcher` asks this
module first when it has cards:

* a query that is a card's name (any of the three languages, quoted or not, whole or in part,
  misspelt by one or two letters: :class:`kb.cards.names.NameIndex`; a name typed whole is one
  dictionary lookup) gives the card first (a hit of kind ``card``), then the rules it uses
  (:mod:`kb.cards.rules_used`), the most specific first, with no text search;
* a question naming cards is understood through what they do: each name leaves the query's
  words (the words of "Sphere of Resistance" are not about resistance) and is replaced by the
  card's keywords whose rules few cards use, and the rules the card uses
  (:mod:`kb.cards.rules_used`) are raised by how specific each is (:data:`WEIGHTS`; a rule two
  named cards use, their interaction, more: :data:`SHARED`); the cards named are listed after
  the rules (they take no rank from a rule);
* ``kind="card"`` lists cards only; ``kind="ruling"`` searches the rulings' texts (BM25 over
  their words, the cards named in the question first).
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kb.search.results import Hit, SearchResult

__all__ = ["CardSearch", "NamedCard"]

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_FIRST = re.compile(r"[\s¿¡\"'“«(]*([^\W\d_][\w'’-]*)")
_CAPS = re.compile(
    r"(?:(?<=^)|(?<=[\s(\"'“«]))([A-Z][\w'’,-]*(?:\s+(?:of|the|de|du|la|le|des|to|and|in|a)?\s*"
    r"[A-Z][\w'’,-]*)+)"
)
#: How much a named card raises the rules it uses, by why: a rule's factor is
#: ``1 + WEIGHTS[why] * specificity``, the specificity being how few cards use the rule
#: (``log(N / cards using it) / log(N)``, 0 for a rule every card uses, 1 for one card's): a
#: keyword ability's own rule (phasing: 86 cards of 23,711) counts, "creature" hardly. Chosen on
#: tune.toml's card kinds (keyword 2, 3, 4; actions and terms barely change anything): MRR en
#: 0.479 -> 0.511, fr 0.541 -> 0.526, ja 0.358 -> 0.371 against flat boosts of 2.5 for every
#: keyword.
WEIGHTS = {"keyword": 3.0, "action": 0.6, "layout": 0.8, "term": 0.3, "ability word": 0.2}
#: (Tried and left out: adding the rarest words of the named card's ruling that shares most
#: words with the question moved tune.toml's card and column kinds by under 0.01 MRR, for a
#: table of every ruling's words in memory.)
#: Extra weight of a rule two named cards or more use (their interaction is what is asked).
SHARED = 0.5
#: A keyword's name joins the query's words only when its rule is at least this specific
#: (a rare keyword names what the card does; "flying" on a card asked about for its trigger
#: only pulls the flying rules up).
KEYWORD_WORDS = 0.35
#: A keyword of a named card is about an English question only when the question shares a word
#: with the keyword's rules (protection's "target" in "can Swords to Plowshares target Blood
#: Knight"; nothing of first strike's): otherwise its boost keeps this share and its name
#: stays out of the query (Birds of Paradise's flying says nothing of split second). On
#: tune.toml: card-en 0.522 -> 0.547 MRR, column 0.423 -> 0.427, French and Japanese unchanged
#: (not judged); keeping 0.5 or all of the boost measured the same: the words are what counts.
UNRELATED = 0.0
#: Words in more than this share of the newest English rules say nothing of a family (0.02:
#: card-en 0.450, 0.04: 0.504, 0.1 to 0.25: 0.547).
COMMON_RULE_WORD = 0.1
#: A question is read as English when this share of its words are words of the English rules.
ENGLISH_SHARE = 0.6
#: (Tried and left out: raising the rules whose quoted wordings a named card's text follows,
#: 603.4's "When/Whenever/At [trigger event], if [condition], [effect].": no change on
#: tune.toml, those rules being seldom among a question's candidates to raise.)
#: How many of the rules a card uses a search for its name lists after the card.
NAME_RULES = 20
#: Share of a query's letters a card name must cover for the query to be "the card's name".
NAME_SHARE = 0.75


@dataclass(frozen=True, slots=True)
class NamedCard:
    """A card a query names: its id, the name as matched, language, how, span in the query."""

    card_id: int
    name: str
    lang: str
    how: str
    start: int
    end: int


class CardSearch:
    """Card names, texts, rules used and rulings of one build, for :class:`Searcher`."""

    def __init__(
        self,
        names: Callable[[], Any],
        info: Callable[[int], tuple[Any, list[Sequence[Any]], str] | None],
        rulings: Callable[[], list[tuple[int, int, str, str]]],
        counts: Callable[[], dict[str, int]] | None = None,
    ) -> None:
        self._names_of = names
        self._counts_of = counts or dict
        self._rule_counts: dict[str, int] | None = None
        self._info = info
        self._rulings_of = rulings
        self._names: Any = None
        self._rulings: Any = None
        self.families: _Families | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, kb: Any) -> CardSearch | None:
        """The card search of a stored knowledge base (None without cards)."""
        from kb.store.cards import CardStore

        store = CardStore.of(kb)
        if store is None:
            return None

        def info(card_id: int) -> tuple[Any, list[Sequence[Any]], str] | None:
            row = store.by_id(card_id)
            return (row.card, row.uses, row.slug) if row is not None else None

        return cls(store.name_index, info, store.rulings, store.rule_counts)

    @classmethod
    def from_cards(
        cls, cards: Sequence[Any], uses: Sequence[Sequence[Sequence[Any]]]
    ) -> CardSearch:
        """Cards in memory (``uses[i]``: ``cards[i]``'s rule links), ids being positions."""
        from kb.cards.names import NameIndex
        from kb.store.cards import card_slug

        for i, card in enumerate(cards):
            card.index = i
        index = NameIndex(cards)

        def info(card_id: int) -> tuple[Any, list[Sequence[Any]], str] | None:
            card = cards[card_id]
            return card, list(uses[card_id]), card_slug(card.name)

        def rulings() -> list[tuple[int, int, str, str]]:
            return [
                (i, j, r.date, r.text) for i, c in enumerate(cards) for j, r in enumerate(c.rulings)
            ]

        def counts() -> dict[str, int]:
            found: Counter[str] = Counter({"": len(cards)})
            for links in uses:
                found.update({link[0] for link in links})
            return dict(found)

        return cls(lambda: index, info, rulings, counts)

    @property
    def names(self) -> Any:
        """The name index (built on first use)."""
        if self._names is None:
            with self._lock:
                if self._names is None:
                    self._names = self._names_of()
        return self._names

    # ---- understanding a query -----------------------------------------------------------
    def named(self, text: str) -> list[NamedCard]:
        """The cards a query names, left to right: quoted or exact names anywhere, else runs of
        capitalised words resolved to one name (misspelt by up to two letters), else the whole
        query when it is short and resolves to a card."""
        index = self.names
        found = [
            NamedCard(
                m.matches[0].card.index,
                m.matches[0].name,
                m.matches[0].lang,
                m.matches[0].how,
                m.start,
                m.end,
            )
            for m in index.mentions(text)
        ]
        first = self._first_word(text, found)
        if first is not None:
            found.insert(0, first)
        if found:
            return found
        for run in _CAPS.finditer(text):
            phrase = run[1].rstrip(",")
            if len(phrase.split()) < 2:
                continue
            key = _fold(phrase)
            matches = index.lookup(key, 1) or index.fuzzy(key, 1)
            if matches:
                m = matches[0]
                found.append(
                    NamedCard(
                        m.card.index,
                        m.name,
                        m.lang,
                        m.how,
                        run.start(1),
                        run.start(1) + len(phrase),
                    )
                )
        if found:
            return found
        words = text.split()
        if 1 <= len(words) <= 6:
            matches = index.resolve(text, 1)
            if matches:
                m = matches[0]
                share = len(_letters(text)) / max(len(_letters(m.name)), 1)
                if m.how != "partial" or share >= 0.5:
                    return [NamedCard(m.card.index, m.name, m.lang, m.how, 0, len(text))]
        return []

    def _first_word(self, text: str, found: list[NamedCard]) -> NamedCard | None:
        """A card named by the question's first word alone ("Armistice when my opponent has
        Erebos"): a capitalised word of four letters or more that is exactly a card's name and
        no word of the English rules (which "Exile", "Does" or "Flying" are). Names found
        elsewhere leave a first word alone (a sentence's first word is capitalised anyway)."""
        match = _FIRST.match(text)
        families = self.families
        if match is None or families is None or not match[1][:1].isupper():
            return None
        word = match[1]
        if len(word) < 4 or any(f.start <= match.start(1) < f.end for f in found):
            return None
        if word.casefold() in families.words:
            return None
        matches = self.names.lookup(_fold(word), 1)
        if not matches:
            return None
        m = matches[0]
        return NamedCard(m.card.index, m.name, m.lang, m.how, match.start(1), match.end(1))

    def is_name(self, text: str, named: list[NamedCard]) -> bool:
        """Whether the query is (mostly) one card's name rather than a question about it."""
        if len(named) != 1:
            return False
        covered = len(_letters(text[named[0].start : named[0].end]))
        return covered >= NAME_SHARE * max(len(_letters(text)), 1)

    def expansion(self, text: str, named: list[NamedCard]) -> tuple[str, dict[str, float]]:
        """The question with each card's name replaced by what the card does (its specific
        keywords), and the boosts of the rules the cards use, by how specific each is."""
        parts: list[str] = []
        at = 0
        weights: dict[str, float] = {}
        users: Counter[str] = Counter()
        seen: set[int] = set()
        related = self._relatedness(text, named)
        for card in named:
            parts.append(text[at : card.start])
            at = card.end
            found = self._info(card.card_id)
            if found is None:
                continue
            label_specificity: dict[str, float] = {}
            for number, why, label, _face in found[1]:
                specific = self.specificity(number)
                weight = WEIGHTS.get(why, 0.0) * specific
                if why in ("keyword", "action") and not related(number):
                    weight *= UNRELATED
                    specific = 0.0  # nor is its name a word of the query
                key = label.casefold()
                label_specificity[key] = max(label_specificity.get(key, 0.0), specific)
                if card.card_id not in seen:
                    users[number] += 1
                weights[number] = max(weights.get(number, 0.0), weight)
            # the source's keywords (abilities and actions) whose rule few cards use
            words = [
                k
                for k in found[0].keywords
                if label_specificity.get(k.casefold(), 1.0) >= KEYWORD_WORDS
            ]
            seen.add(card.card_id)
            parts.append(" " + " ".join(dict.fromkeys(words)) + " ")
        parts.append(text[at:])
        boosts = {}
        for number, weight in weights.items():
            if users[number] > 1:
                weight += SHARED * self.specificity(number)
            if weight > 0.01:
                boosts[number] = 1.0 + weight
        return " ".join("".join(parts).split()), boosts

    def _relatedness(self, text: str, named: list[NamedCard]) -> Callable[[str], bool]:
        """Whether a rule family is about the question (see :data:`UNRELATED`): always true for
        a question not in English or before the rules are known."""
        families = self.families
        if families is None:
            return lambda number: True
        at = 0
        rest = []
        for card in named:
            rest.append(text[at : card.start])
            at = card.end
        rest.append(text[at:])
        stems = families.stems(" ".join(rest))
        if not stems or families.english_share(stems) < ENGLISH_SHARE:
            return lambda number: True
        useful = {s for s in stems if not families.common(s)}
        return lambda number: bool(useful & families.words_of(number))

    def whole_name(self, text: str) -> list[NamedCard]:
        """The card a query is the exact name of (quoted or not, any language): one dictionary
        lookup, the common case of a name typed whole; [] otherwise."""
        from kb.cards.names import fold, unquote

        if len(text) > 200:
            return []
        matches = self.names.lookup(fold(unquote(text)), 1)
        if not matches:
            return []
        m = matches[0]
        return [NamedCard(m.card.index, m.name, m.lang, m.how, 0, len(text))]

    def name_rules(self, card_id: int) -> list[str]:
        """The rules a search for a card's name lists after the card: those it uses, the most
        specific first (a keyword's rule before its card type's), at most :data:`NAME_RULES`."""
        found = self._info(card_id)
        if found is None:
            return []
        numbers = dict.fromkeys(str(link[0]) for link in found[1])
        return sorted(numbers, key=lambda n: -self.specificity(n))[:NAME_RULES]

    def _name_result(self, searcher: Any, text: str, card: NamedCard, **kw: Any) -> SearchResult:
        """A query that is a card's name: the card, then the rules it uses, most specific
        first. One name lookup and a list of rules, no text search: the name's own words are
        no rules words (searching "Llanowar" only asks the speller), and it is as fast as a
        search for a rule number."""
        lang, limit, page = kw.get("lang"), kw.get("limit", 10), kw.get("page", 1)
        numbers = self.name_rules(card.card_id)
        rules = searcher.rule_list(text, numbers, lang, max(len(numbers), 1), 1)
        hit = self.card_hit(card, 2.0)
        hits = ([hit] if hit is not None else []) + rules.hits
        result = SearchResult(query=text, lang=lang, page=page)
        result.total = len(hits)
        result.pages = math.ceil(len(hits) / limit) if hits else 0
        result.hits = hits[(page - 1) * limit : page * limit]
        return result

    def specificity(self, number: str) -> float:
        """How few of the cards use a rule: 1 for one card, 0 for every card."""
        counts = self._counts()
        total = counts.get("", 1)
        return math.log(total / max(counts.get(number, 1), 1)) / math.log(max(total, 2))

    def _counts(self) -> dict[str, int]:
        if self._rule_counts is None:
            with self._lock:
                if self._rule_counts is None:
                    self._rule_counts = self._counts_of()
        return self._rule_counts

    # ---- hits ------------------------------------------------------------------------------
    def card_hit(self, card: NamedCard, score: float) -> Hit | None:
        """A card as a search hit (``key`` is its URL name)."""
        found = self._info(card.card_id)
        if found is None:
            return None
        oracle, _uses, slug = found
        title = (
            oracle.name
            if card.lang == "en" or card.name == oracle.name
            else (f"{oracle.name} ({card.name})")
        )
        snippet = " ".join(f"{f.type_line} — {f.text}" for f in oracle.faces)[:280]
        return Hit("card", None, card.lang, None, [], None, title, snippet, score, key=slug)

    def search(
        self, searcher: Any, text: str, run: Callable[..., SearchResult], **kw: Any
    ) -> SearchResult | None:
        """The search with cards (None: the query names no card; the plain search answers)."""
        kind = kw.get("kind")
        if kind == "ruling":
            return self.search_rulings(text, kw.get("limit", 10), kw.get("page", 1))
        if self.families is None and getattr(searcher, "kb", None) is not None:
            with self._lock:
                self.families = self.families or _Families(searcher.kb)
        named = self.whole_name(text) or (self.named(text) if len(text) <= 300 else [])
        if kind == "card":
            result = SearchResult(query=text, lang=kw.get("lang"), page=kw.get("page", 1))
            for card in named[: kw.get("limit", 10)]:
                hit = self.card_hit(card, 1.0)
                if hit is not None:
                    result.hits.append(hit)
            result.total = len(result.hits)
            result.pages = 1 if result.hits else 0
            return result
        if not named:
            return None
        if self.is_name(text, named):
            return self._name_result(searcher, text, named[0], **kw)
        rewritten, boosts = self.expansion(text, named)
        result = run(rewritten, boosts=boosts, **kw)
        if kw.get("page", 1) == 1 and result.hits:
            seen: set[int] = set()
            for card in named:
                if card.card_id in seen:
                    continue
                seen.add(card.card_id)
                hit = self.card_hit(card, result.hits[-1].score * 0.99)
                if hit is not None:
                    result.hits.append(hit)
        return result

    def search_rulings(self, text: str, limit: int, page: int) -> SearchResult:
        """Rulings by BM25 over their words; those of the cards the query names first."""
        result = SearchResult(query=text, lang="en", page=page)
        table = self._ruling_table()
        named = {c.card_id for c in self.named(text)}
        words = [w for w in _WORD.findall(text.casefold()) if w in table.df]
        scores: Counter[int] = Counter()
        for word in set(words):
            idf = math.log(1 + (len(table.rows) - table.df[word] + 0.5) / (table.df[word] + 0.5))
            for row, tf in table.postings[word]:
                length = table.lengths[row] / table.average
                scores[row] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length))
        for row, (card_id, *_rest) in enumerate(table.rows):
            if card_id in named:
                scores[row] += 100.0
        ranked = scores.most_common()
        result.total = len(ranked)
        result.pages = math.ceil(len(ranked) / limit) if ranked else 0
        for row, score in ranked[(page - 1) * limit : page * limit]:
            card_id, _pos, date, ruling = table.rows[row]
            found = self._info(card_id)
            if found is None:
                continue
            title = f"{found[0].name} · {date}"
            result.hits.append(
                Hit("ruling", None, "en", None, [], None, title, ruling[:280], score, key=found[2])
            )
        return result

    def _ruling_table(self) -> _Rulings:
        if self._rulings is None:
            with self._lock:
                if self._rulings is None:
                    self._rulings = _Rulings(self._rulings_of())
        return self._rulings  # type: ignore[no-any-return]


class _Families:
    """The words of each rule family (a rule and its subrules) of the newest English rules,
    as stems, for telling which of a card's keywords a question is about."""

    def __init__(self, kb: Any) -> None:
        self._kb = kb
        self._words: dict[str, frozenset[str]] = {}
        newest = kb.newest("en")
        rules = list(kb.rules.get(newest.id, {}).values()) if newest is not None else []
        df: Counter[str] = Counter()
        words: set[str] = set()
        for rule in rules:
            text = f"{rule.title or ''} {rule.text}"
            df.update(self.stems(text))
            words.update(_WORD.findall(text.casefold()))
        #: every word of the rules, whole (is a question's first word a rules word?)
        self.words = frozenset(words)
        self.vocabulary = frozenset(df)
        self._common = frozenset(w for w, n in df.items() if n > COMMON_RULE_WORD * len(rules))

    @staticmethod
    def stems(text: str) -> set[str]:
        """The words of a text, cut to their first five letters (phases, phasing: "phasi")."""
        return {w[:5] for w in _WORD.findall(text.casefold()) if len(w) > 2}

    def english_share(self, stems: set[str]) -> float:
        """The share of ``stems`` the English rules use."""
        return len(stems & self.vocabulary) / len(stems)

    def common(self, stem: str) -> bool:
        """A word in too many rules to say what a family is about."""
        return stem in self._common

    def words_of(self, number: str) -> frozenset[str]:
        """The stems of rule ``number``'s family (cached)."""
        found = self._words.get(number)
        if found is None:
            rule = self._kb.current(number, "en")
            nodes = self._kb.subtree(rule) if rule is not None else []
            found = frozenset(
                w
                for node in nodes
                for w in self.stems(f"{node.title or ''} {node.text}")
                if w not in self._common
            )
            self._words[number] = found
        return found


class _Rulings:
    """The rulings' words: postings (row, count), document frequencies and lengths."""

    def __init__(self, rows: list[tuple[int, int, str, str]]) -> None:
        self.rows = rows
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self.lengths: list[int] = []
        for i, (_card, _pos, _date, text) in enumerate(rows):
            counts = Counter(_WORD.findall(text.casefold()))
            self.lengths.append(sum(counts.values()))
            for word, n in counts.items():
                self.postings.setdefault(word, []).append((i, n))
        self.df = {w: len(p) for w, p in self.postings.items()}
        self.average = sum(self.lengths) / max(len(self.lengths), 1)


def _fold(text: str) -> str:
    from kb.cards.names import fold

    return fold(text)


def _letters(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())
