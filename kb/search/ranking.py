"""Ranking: BM25F scores of the postings reweighed by what the query means (concepts, its
language, examples asked for or not, the reader's language) and the best of them reranked by
coverage of the question's words and their proximity. Priors that hold for any question come
last (:meth:`Ranker._question_priors`): a rule matched in several languages adds its texts' scores
up, commentary yields to the rules it comments on, and a withdrawn text (history: see
:func:`kb.search.votes.withdrawn_docs`) to the current ones. The executable examples, told in
players' words, lend their scores to the rules they cite (:meth:`Ranker._cited`), and so do the
questions players ask (:meth:`Ranker._asked`, :mod:`kb.search.votes`),
and an English question's French and Japanese texts, met only through translated names, cover
none of its words. Within a named concept's family the concept's words weigh alike and earlier
subrules lead later ones (:meth:`Ranker._level`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from kb.knowledge.model import LANGS
from kb.search.compiled import Compiled
from kb.search.learned import LearnedOrder
from kb.search.postings import Evaluation, Postings
from kb.search.scored import _among, _below, _best_first, _scale, _top
from kb.search.understand import Concepts
from kb.search.votes import ASK_DEPTH, ask_votes

#: How many of the best-scored documents are reranked (coverage, glossary expansion), whatever
#: the page and its size: the first page is the same for 10 hits a page as for 50. Deeper pages
#: continue in the postings' order, below the reranked documents (see :func:`_below`).
RERANK = 40
#: A document having one of a question's many words keeps this share of its score (squared).
COVERAGE_FLOOR = 0.3
#: An English question's French and Japanese texts cover none of its words (see Ranker._rank).
FOREIGN_COVERAGE = True
#: Weight of proximity: a document gets up to this much more when every pair of successive
#: query words stands together in its text (within :data:`WINDOW` words; adjacent bigrams in
#: Japanese, i.e. a shared three-character run).
PROXIMITY = 0.5
WINDOW = 3
#: Share of a pair found in the other order within the window ("damage dealt by a source with
#: lifelink" for "lifelink damage"): word order is not the same in a question and a rule.
#: Tuning half MRR 0.710 -> 0.716 (typo 0.811 -> 0.846); cross-validated inside it (5 folds,
#: tests/bench/fit_search_weights.py) 1.0 was chosen in 4 folds of 5, held-out 0.710 -> 0.716.
REVERSED = 1.0
#: Weight of a rule defining a concept when the question names nothing else ("what is scry").
DEFINITION_ASKED = 1.5
#: ... and this much when it names more than concepts ("does lifelink work with noncombat
#: damage"): the rules applying the concept answer it, not the one defining it (undoing most of
#: the build's definition prior).
DEFINITION_UNASKED = 0.7
#: An English rule defines a concept the question names only when the concept's words are among
#: its first this many words (its subject); 0: any defining rule of the concept's rules counts.
#: Chosen 2 in 5 folds of 5; tuning half MRR 0.708 -> 0.710 (603.6a before 603.6d for "when does
#: an enters the battlefield ability trigger").
SUBJECT_WORDS = 2
#: Weight of a text in the question's own language (French or Japanese) against the others.
SAME_LANG = 2.0
#: A search from a locale without a language filter (``prefer_lang``) puts that language's best
#: text this much above the best text of the others, its other texts in proportion: a Japanese
#: reader wants the Japanese quotes first. Raw scores of two languages are not comparable (a
#: word in nearly every French quote weighs little there), so the preference is relative.
PREFER_LEAD = 1.15
#: At most this much: a text matching a query far worse than the others stays below them.
PREFER_MAX = 60.0
#: Tournament rules weigh this much more when the question asks about tournaments.
TOURNAMENT_WANTED = 3.0
#: ... and this much less when it does not: a game question's answer is in the game's rules,
#: and the long French tournament paragraphs (MTR 4.2) matched French questions' common words.
TOURNAMENT_UNWANTED = 0.5
#: Executable examples weigh this much less than their build-time prior unless the query asks
#: for an example: they illustrate rules and should not crowd the rules out of the first page.
EXAMPLE_DEMOTION = 0.2
#: ... and this much more when it does (rules' own "Example:" lines also have the word).
EXAMPLE_WANTED = 3.0

#: The executable examples (``corpus/examples``) tell a game in players' words and name the rules
#: deciding it: each of the :data:`EXAMPLE_VOTERS` best-matching examples adds this share of
#: its (undemoted) score to the current English text of every rule it cites (see
#: Ranker._cited). "Do tokens go to the graveyard when destroyed?" matches the example of a
#: token ceasing to exist, which cites 111.7 though the question shares few words with it.
EXAMPLE_VOTE = 0.4
EXAMPLE_VOTERS = 3

#: Commentary (wiki paragraphs about a rule) weighs this much against the rules for a question:
#: the rules are the answer, the commentary a reading of them.
COMMENTARY_DEMOTION = 0.5
#: Share of the scores of a rule's other-language texts added to its best text's.
LANG_FUSION = 0.5

#: A withdrawn text (a glossary entry or rule its language's newest full edition no longer has;
#: default searches still see it, as the newest version of itself) weighs this much: it is
#: history, and ranks below what the rules say today.
WITHDRAWN = 0.2

#: The rules of the multiplayer and casual variants (chapters 8 and 9: Two-Headed Giant, Team vs.
#: Team, Commander, draft variants) weigh this much unless the question names a concept of
#: those chapters ("commander", "two-headed giant", "multiplayer"): a question about the game
#: is a question about the two-player game, and a variant rule answering the same words ("goes
#: first" in Team vs. Team, "passing" cards in a draft) needs the question's word for it, not
#: only the votes of the variant's own questions. Tuning half MRR unchanged at 1.0, 0.7, 0.5
#: and 0.3 (0.747 without cards); the questions as queries held out by rule, English 0.510 ->
#: 0.506 at 0.5 (tests/search/test_full_corpus.py has the two cases, 103.1 and 117.4).
VARIANT = 0.5
#: The first digit of the chapters whose rules are variants (808.4, 903.3, 905.1a).
VARIANT_CHAPTERS = ("8", "9")

#: A question naming one concept only ("who goes first", "what is scry") is answered by its
#: rules: the votes of the questions players ask for other rules weigh this much. Tuning half
#: unchanged (0.747 without cards), held-out questions unchanged; for every question whose words
#: the concepts cover (several concepts) it lost 0.747 -> 0.744, so one concept only.
OFF_CONCEPT_VOTE = 0.5

#: The rule opening a concept the question names weighs this much more (see Ranker._open),
#: when the question names only concepts, and when it names more.
OPENING_DEFINED = 1.3
OPENING = 1.1
#: Level the concept words' weight across a concept's family (see Ranker._level).
LEVEL = True
#: A subrule weighs this much less than its previous sibling, in a named concept's family.
SIBLING_DECAY = 0.97
#: ... for concepts raised at least this much (specific ones: not "creature").
OPENING_MIN_BOOST = 1.5


class Ranker:
    """Orders the documents of one index for a compiled query."""

    def __init__(
        self,
        index: Postings,
        langs: list[str],
        kinds: list[str],
        concepts: Concepts,
        definitions: frozenset[int],
        withdrawn: frozenset[int] = frozenset(),
        cites: dict[int, tuple[int, ...]] | None = None,
        ask_cites: dict[int, tuple[int, ...]] | None = None,
    ) -> None:
        self._withdrawn = withdrawn
        self._cites = cites or {}
        self._ask_cites = ask_cites or {}
        #: questions that may not vote (an evaluation holding some out), see :meth:`_asked`
        self.hidden_asks: frozenset[int] = frozenset()
        #: the learned reordering of the best documents (a no-op without its model)
        self.learned = LearnedOrder()
        #: what the votes of one search added, by voter kind (the learned order's features)
        self._votes: dict[str, dict[int, float]] = {}
        self._index = index
        self._langs = langs
        self._concepts = concepts
        self._kinds = kinds
        self._definitions = definitions
        # Document sets by language and of examples, for preferences and demotions.
        self._lang_docs: dict[str, frozenset[int]] = {
            code: frozenset(d for d, x in enumerate(langs) if x == code) for code in LANGS
        }
        self._example_docs = frozenset(d for d, k in enumerate(kinds) if k == "example")
        self._tournament_docs = frozenset(d for d, k in enumerate(kinds) if k == "tournament")
        self._defining_docs: dict[tuple[str, int], frozenset[int]] = {}  # see _defining
        #: the current texts of the variants' rules (see :data:`VARIANT`)
        self._variant_docs = frozenset(d for d, n in concepts.number_of.items() if _is_variant(n))

    def order(
        self,
        scores: dict[int, float],
        compiled: Compiled,
        ev: Evaluation,
        *,
        lang: str | None,
        current: bool,
        prefer: str | None,
        examples_wanted: bool,
        fetch: int,
        asks: dict[int, float] | None = None,
        ask_ev: Evaluation | None = None,
    ) -> tuple[list[tuple[float, int]], set[int]]:
        """The best ``fetch`` documents as ``(score, doc)``, best first (``scores`` reweighed,
        reranked, a reader's language ``prefer`` led first), and the documents it added that
        ``scores`` lacks (rules the examples cite: they count in the total). ``current``: the
        search sees current documents only (concept boosts apply). ``asks``: the scores of the
        questions players ask, apart from ``scores`` (they vote, never rank), and ``ask_ev``
        what evaluating them found (``ev`` when they were evaluated with the rest)."""
        # One copy, reweighed in place below (the caller counts its own scores' documents).
        scores = dict(scores)
        if current and not compiled.defined and DEFINITION_UNASKED != 1.0:
            _scale(scores, _among(self._definitions, scores), DEFINITION_UNASKED)
        if compiled.boosts and current:
            self._boost(scores, compiled.boosts)
            self._level(scores, compiled)
            self._open(scores, compiled)
            self._define(scores, compiled)
        if compiled.src in ("fr", "ja") and lang is None and prefer is None:
            # A French or Japanese question is best answered in its language where a text of
            # that language matches about as well (the French and Japanese texts are partial).
            _scale(scores, _among(self._lang_docs[compiled.src], scores), SAME_LANG)
        tournament = TOURNAMENT_WANTED if compiled.about_tournament else TOURNAMENT_UNWANTED
        if tournament != 1.0:
            _scale(scores, _among(self._tournament_docs, scores), tournament)
        self._reweigh(scores, prefer, examples_wanted)
        self._votes = {}
        scored = self._rank(scores, RERANK, compiled, ev, demote_examples=not examples_wanted)
        if current and self._cites and not examples_wanted and EXAMPLE_VOTE:
            scored = self._cited(scored)
        if current and asks and self._ask_cites:
            scored = self._asked(scored, asks, compiled, ask_ev or ev)
        if current:
            variant = 1.0 if any(map(_is_variant, compiled.boosts)) else VARIANT
            scored = self._question_priors(scored, examples_wanted, variant)
        if current and self.learned.active:
            facts = (self._kinds, self._langs, self._concepts.number_of)
            scored = self.learned.rerank(scored, scores, self._votes, facts, compiled)
        if prefer:
            scored = self._prefer(scored, prefer)
        joined = {doc for _score, doc in scored if doc not in scores}
        if fetch > len(scored) and len(scores) + len(joined) > len(scored):
            scored += _below(scores, scored, fetch)
        return scored[:fetch], joined

    def _define(self, scores: dict[int, float], compiled: Compiled) -> None:
        """Raise in place, by :data:`DEFINITION_ASKED`, the rules defining the concepts a
        question naming nothing else names ("what is scry"): once per document, however many
        of the concepts' subtrees hold it ("603" and "603.6d" both hold 603.6d)."""
        if not compiled.defined or DEFINITION_ASKED == 1.0:
            return
        asked: set[int] = set()
        for root in compiled.defined:
            asked |= self._defining(root)
        _scale(scores, _among(frozenset(asked), scores), DEFINITION_ASKED)

    def _defining(self, root: str) -> frozenset[int]:
        """The documents of ``root``'s subtree that define a concept, an English one only when
        the concept naming ``root`` is among its first :data:`SUBJECT_WORDS` words: "Lifelink is
        a static ability" defines lifelink, while 603.6d ("Some permanents have text that reads
        ... enters tapped. Such text is a static ability") is named by "enters the
        battlefield" and defines something else. A fact of the index: kept per root."""
        key = (root, SUBJECT_WORDS)
        found = self._defining_docs.get(key)
        if found is None:
            found = self._defining_docs[key] = self._find_defining(root)
        return found

    def _find_defining(self, root: str) -> frozenset[int]:
        docs = self._concepts.subtree(root) & self._definitions
        if not SUBJECT_WORDS:
            return docs
        words = self._concepts.name_words(root)
        if not words:
            return docs
        langs = self._langs
        sequence = self._index.sequence
        kept = []
        for doc in docs:
            if langs[doc] == "en":
                seq = sequence("body_en", doc)
                if not seq or words.isdisjoint(seq[:SUBJECT_WORDS]):
                    continue
            kept.append(doc)
        return frozenset(kept)

    def _cited(self, scored: list[tuple[float, int]]) -> list[tuple[float, int]]:
        """The reranked list with the rules the best-matching examples cite raised by
        :data:`EXAMPLE_VOTE` of each example's score before its demotion (a cited rule the
        question's words missed joins the list): an example's scenario is a player's
        question, its ``rules:`` line the answer."""
        cites = self._cites
        add: dict[int, float] = {}
        voters = 0
        for score, doc in scored:
            rules = cites.get(doc)
            if rules is None:
                continue
            vote = EXAMPLE_VOTE * score / EXAMPLE_DEMOTION
            for rule in rules:
                add[rule] = add.get(rule, 0.0) + vote
            voters += 1
            if voters == EXAMPLE_VOTERS:
                break
        if not add:
            return scored
        self._votes["examples"] = dict(add)
        out = [(score + add.pop(doc, 0.0), doc) for score, doc in scored]
        out.extend((w, d) for d, w in add.items())
        _best_first(out, self._concepts.rule_rank)
        return out

    def _asked(
        self,
        scored: list[tuple[float, int]],
        asks: dict[int, float],
        compiled: Compiled,
        ev: Evaluation,
    ) -> list[tuple[float, int]]:
        """The reranked list with the rules the best-matching questions cite raised by their
        votes (:func:`kb.search.votes.ask_votes`; a cited rule the question's words missed joins
        the list): the questions are reranked like the rules first, on the same words."""
        ranked = self._rank(asks, ASK_DEPTH, compiled, ev, side=ev.side)
        counts: dict[int, float] = {}
        add = ask_votes(ranked, self._ask_cites, self.hidden_asks, counts)
        if not add:
            return scored
        if len(compiled.defined) == 1 and OFF_CONCEPT_VOTE != 1.0:
            named: set[int] = set()
            for root in compiled.defined:
                named |= self._concepts.subtree(root)
            for doc in add:
                if doc not in named:
                    add[doc] *= OFF_CONCEPT_VOTE
        self._votes["asks"], self._votes["ask_voters"] = dict(add), counts
        out = [(score + add.pop(doc, 0.0), doc) for score, doc in scored]
        out.extend((w, d) for d, w in add.items())
        _best_first(out, self._concepts.rule_rank)
        return out

    def _question_priors(
        self, scored: list[tuple[float, int]], examples_wanted: bool, variant: float = 1.0
    ) -> list[tuple[float, int]]:
        """The reranked list with priors that hold for any question: a rule's texts in the
        other languages add to its best one (a French question matching both the French and
        the English text of a rule is about that rule), commentary yields to the rules it
        comments on, and the variants' rules weigh ``variant`` (:data:`VARIANT` when the
        question names none of their concepts)."""
        number_of = self._concepts.number_of
        kinds = self._kinds
        best: dict[str, tuple[float, int]] = {}
        extra: dict[str, float] = {}
        for score, doc in scored:
            number = number_of.get(doc)
            if number is None:
                continue
            held = best.get(number)
            if held is None:
                best[number] = (score, doc)
            else:
                extra[number] = extra.get(number, 0.0) + score
        out = []
        for score, doc in scored:
            kind = kinds[doc]
            if kind == "commentary" and not examples_wanted:
                score *= COMMENTARY_DEMOTION
            if doc in self._withdrawn:
                score *= WITHDRAWN
            if variant != 1.0 and doc in self._variant_docs:
                score *= variant
            number = number_of.get(doc)
            if number is not None and best[number][1] == doc and number in extra:
                score += LANG_FUSION * extra[number]
            out.append((score, doc))
        _best_first(out, self._concepts.rule_rank)
        return out

    def _level(self, scores: dict[int, float], compiled: Compiled) -> None:
        """Give every English rule of a named concept's family (below the concept's own rule,
        often a bare title), in place, the weight of the concept's words its best member has:
        a family is about its concept as a whole, so the words naming it ("lifelink") tell
        nothing between siblings, and the rest of the question ("noncombat damage") picks among
        them. A lettered subrule then weighs :data:`SIBLING_DECAY` less than the one before it
        (the rules go from the general to the particular)."""
        if not LEVEL or compiled.src not in (None, "en"):
            return
        marked = compiled.marks.get("en")
        if not marked:
            return
        term = self._index.term
        langs = self._langs
        decayed: set[int] = set()
        for root, boost in compiled.boosts.items():
            if boost < OPENING_MIN_BOOST:
                continue
            words = self._concepts.name_words(root) & marked
            if not words:
                continue
            rows = [term(f, w, False) for w in sorted(words) for f in ("body_en", "title_en")]
            number_of = self._concepts.number_of
            family = [
                d
                for d in _among(self._concepts.subtree(root), scores)
                if langs[d] == "en" and number_of[d] != root
            ]
            if len(family) < 2:
                continue
            own = {d: sum(r.get(d, 0.0) for r in rows) for d in family}
            best = max(own.values())
            for d in family:
                scores[d] += boost * (best - own[d])
                last = number_of[d][-1]
                if SIBLING_DECAY != 1.0 and "a" <= last <= "z" and d not in decayed:
                    # The rules go from the general to the particular: a later sibling
                    # answers a narrower case than an earlier one (once, however many
                    # named families hold the rule).
                    decayed.add(d)
                    scores[d] *= SIBLING_DECAY ** (ord(last) - 97)

    def _open(self, scores: dict[int, float], compiled: Compiled) -> None:
        """Raise in place the rule opening each concept the question names ("702.33a" for
        kicker, "724.1" for the monarch): it says what the concept is and how it works."""
        factor = OPENING_DEFINED if compiled.defined else OPENING
        if factor == 1.0:
            return
        for root, boost in compiled.boosts.items():
            if boost < OPENING_MIN_BOOST:
                continue
            for doc in self._concepts.opening(root):
                if doc in scores:
                    scores[doc] *= factor

    def _boost(self, scores: dict[int, float], boosts: dict[str, float]) -> None:
        """Raise in place the scores of the subtrees of the query's concepts' rules."""
        factors: dict[int, float] = {}
        for root, factor in boosts.items():
            for doc in _among(self._concepts.subtree(root), scores):
                if factors.get(doc, 1.0) < factor:
                    factors[doc] = factor
        for doc, factor in factors.items():
            scores[doc] *= factor

    def _reweigh(self, scores: dict[int, float], prefer: str | None, examples_wanted: bool) -> None:
        """Raise in place the examples (when asked for) and the preferred language to the level
        of the best document, so that reranking sees them."""
        factors: list[tuple[frozenset[int], float]] = []
        if prefer and scores:
            langs = self._langs
            best = max(scores, key=scores.__getitem__)
            top = scores[best]
            if langs[best] != prefer:
                mine = self._lang_docs[prefer]
                if len(mine) < len(scores):
                    own = max((scores[d] for d in mine if d in scores), default=0.0)
                else:
                    own = max((w for d, w in scores.items() if langs[d] == prefer), default=0.0)
                if own > 0:
                    factors.append((mine, min(top / own, PREFER_MAX)))
        if examples_wanted:
            factors.append((self._example_docs, EXAMPLE_WANTED))
        for docs, factor in factors:
            _scale(scores, _among(docs, scores), factor)

    def _prefer(self, scored: list[tuple[float, int]], prefer: str) -> list[tuple[float, int]]:
        """The reranked list with the preferred language's best text :data:`PREFER_LEAD` above
        the best other one (its other texts scaled alike)."""
        langs = self._langs
        own = max((s for s, d in scored if langs[d] == prefer), default=0.0)
        other = max((s for s, d in scored if langs[d] != prefer), default=0.0)
        if own <= 0 or own >= other * PREFER_LEAD:
            return scored
        factor = min(other * PREFER_LEAD / own, PREFER_MAX)
        out = [(s * factor if langs[d] == prefer else s, d) for s, d in scored]
        _best_first(out, self._concepts.rule_rank)
        return out

    def _rank(
        self,
        scores: dict[int, float],
        depth: int,
        compiled: Compiled,
        ev: Evaluation,
        demote_examples: bool = False,
        side: bool = False,
    ) -> list[tuple[float, int]]:
        """The best ``depth`` documents, reranked: more of the query's words, and rules that
        the glossary names for a term of the query, count for more than raw term weights
        (``side``: the documents are the postings' side ones, the questions players ask)."""
        best = [(d, scores[d]) for d in _top(scores, depth)]
        # A document is only in the word groups of its own language's fields.
        groups_of: dict[str, list[list[dict[int, float]]]] = {}
        for code in LANGS:
            groups_of[code] = [
                g for g, x in zip(ev.groups, ev.langs, strict=True) if x in (code, None)
            ]
        order = compiled.order
        langs = self._langs
        sequence = self._index.sequence
        term = self._index.term
        stop = self._index.stop
        out = []
        examples = self._example_docs if demote_examples else frozenset()
        # An English question's own words are English: a French or Japanese text met only
        # through the translated names has none of them, and covers none of its word groups.
        foreign = (
            COVERAGE_FLOOR ** (2 * len(groups_of["en"]))
            if compiled.src == "en" and FOREIGN_COVERAGE
            else 1.0
        )
        # Per language: the field, the successive pairs of the query's words and their window,
        # and each word's current documents (which of the words a current text has is read
        # there: most texts have fewer than two, and their term sequences are not walked).
        pairs_of = {}
        for code, (name, wanted) in order.items():
            if len(wanted) > 1:
                pairs = _pairs(wanted)
                words = frozenset(t for pair in pairs for t in pair)
                rows = [(w, term(name, w, False, side)) for w in words]
                window = 1 if name == "gram_ja" else WINDOW
                pairs_of[code] = (name, pairs, window, words, rows)
        for doc, score in best:
            if doc in examples:
                # Demoted here rather than before the cut: lowering needs no copy of the scores.
                score *= EXAMPLE_DEMOTION
            lang = langs[doc]
            lang_pairs = pairs_of.get(lang)
            if lang_pairs is not None:
                name, pairs, window, words, rows = lang_pairs
                # A current text's words are read from the postings (an older one's in its
                # sequence); fewer than two: no pair, the factor would be 1.0.
                present = None
                if doc < stop:
                    present = set()  # a loop, not a comprehension: no frame per document
                    for w, row in rows:
                        if doc in row:
                            present.add(w)
                if present is None or len(present) > 1:
                    seq = sequence(name, doc)
                    if seq:
                        found = _proximity(seq, pairs, window, words, present)
                        score *= 1.0 + PROXIMITY * found
            if foreign != 1.0 and lang != "en":
                score *= foreign
            for parts in groups_of[lang]:
                hits = 0
                for part in parts:
                    if doc in part:
                        hits += 1
                if hits:
                    score *= (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * hits / len(parts)) ** 2
            out.append((score, doc))
        _best_first(out, self._concepts.rule_rank)
        return out


def _is_variant(number: str) -> bool:
    """True if the rule ``number`` (canonical) is one of the variants' (:data:`VARIANT_CHAPTERS`):
    a three-digit rule of chapter 8 or 9, not a section's own number ("8")."""
    return number[:1] in VARIANT_CHAPTERS and number[3:4] in (".", "") and len(number) >= 3


def _pairs(wanted: list[str]) -> list[tuple[str, str]]:
    """The successive pairs of distinct words of ``wanted``."""
    return [(a, b) for a, b in pairwise(wanted) if a != b]


def _proximity(
    seq: tuple[str, ...],
    pairs: list[tuple[str, str]],
    window: int,
    words: frozenset[str] | None = None,
    present: set[str] | frozenset[str] | None = None,
) -> float:
    """Share of ``pairs`` (successive query words) found within ``window`` words in ``seq`` (in
    the other order, :data:`REVERSED` of a pair);
    ``words``: the words of ``pairs``, when the caller has them (one set per query);
    ``present``: those of them ``seq`` has, when the caller knows (from the postings)."""
    if not pairs:
        return 0.0
    if present is None:
        if words is None:
            words = frozenset(t for pair in pairs for t in pair)
        present = words.intersection(seq)
    if len(present) < 2:  # a pair has two distinct words: most texts have one at most
        return 0.0
    # Each place of a pair's first word, found by the tuple's own search (in C), with the
    # second word looked for in the window after it: texts are short, a query's words rare.
    found = 0.0
    index = seq.index
    for a, b in pairs:
        if a not in present or b not in present:
            continue
        if _near(index, seq, a, b, window):
            found += 1
        elif REVERSED and _near(index, seq, b, a, window):
            found += REVERSED
    return found / len(pairs)


def _near(index: Callable[..., int], seq: tuple[str, ...], a: str, b: str, window: int) -> bool:
    """True if some place of ``a`` in ``seq`` has ``b`` within ``window`` words after it;
    ``index``: ``seq.index`` (the tuple's own search, in C)."""
    i = -1
    try:
        while True:
            i = index(a, i + 1)
            if b in seq[i + 1 : i + 1 + window]:
                return True
    except ValueError:
        return False
