"""Query compilation: a typed query becomes one Whoosh query per language of the search (stems,
phrases, prefixes, spelling corrections, glossary names translated from the other languages),
with what ranking and the result page need to know (concepts, pinned glossary entries, marks).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

from whoosh import query as wq

from kb.base.cachemap import keep
from kb.knowledge.model import LANGS, KnowledgeBase
from kb.search import analysis
from kb.search import query as qp
from kb.search.analysis import (
    bigrams_ja,
    detect_lang,
    fold_accents,
    has_cjk,
    normalize,
    terms,
)
from kb.search.compiled import Compiled
from kb.search.indexer import term_key
from kb.search.postings import Coord, Postings
from kb.search.spelling import Speller, common_english
from kb.search.termnames import TermNames, phrases_of
from kb.search.termnames import grams as _grams
from kb.search.understand import Concepts, word_variants
from kb.search.wording import (
    QUESTION_WORDS,
    RAW_WORD,
    WHEN_RULES,
    about_examples,
    asks_tournament,
    asks_when,
    corrected,
    final_sentence,
    proper_names,
    searched_languages,
    strip_frames,
)
from kb.text.rulenum import try_parse

#: Weight of the rules a concept of the query names ("mana ability" -> 605, "dies" -> 700.4,
#: "絆魂" -> lifelink -> 702.15), for a fully specific concept (see kb.search.understand).
CONCEPT_BOOST = 2.5
#: An English question naming several concepts is about its most specific one: each concept's
#: boost is scaled by (its specificity / the most specific one's) ** RELATIVE ("damage" yields to
#: "lifelink"). English concepts are every glossary name, title and term read in any run of the
#: question's words, so a long question names common ones by the way ("turn", "card"); a French
#: or Japanese question's concepts are whole names of the term base, which it names on purpose
#: (there, scaling lowered fr 0.737 -> 0.717 and ja 0.777 -> 0.751 on the tune half).
RELATIVE = 1.0
#: A question of several sentences asks in its last one (the last having words, or the one a
#: last "Or ..." goes on from); the ones before tell the story ("I control my opponent's next
#: turn and they get an extra turn. Do I get to control his extra turn?"). The last
#: sentence's words weigh FINAL times more, and the concepts only the story names SETUP of
#: their boost.
FINAL = 2.0
SETUP = 0.5
#: Weight of the rules on when players may act, for a question asking when one may act.
WHEN_BOOST = 1.8
#: Words players use for the rules' own: "get priority" is "receive priority" in the rules.
EN_SYNONYMS = {"get": "receive", "gets": "receives", "got": "received", "getting": "receiving"}
_NUMBER_TOKEN = re.compile(
    r"^(?:r|rule|règle|regle)?\d{1,3}(?:\.\d{1,3}[a-z]?)?\.?$", re.IGNORECASE
)
#: How many compiled queries are remembered (the most recently used): enough for a reader's
#: next pages and repeated searches. One holds about 14 KB (query tree, marks, snippet
#: markers), so 2,048 of them cost a server process 28 MB; a miss costs about 0.5 ms.
CACHE_SIZE = 256
#: How many words' facts are remembered across queries (:meth:`QueryCompiler._word_terms`,
#: :meth:`QueryCompiler._known_variants`): a word's analysis and which of its variants the
#: index has are the same in every query, and players' questions share most of their words.
#: These are facts of single words, never of a query (a query is compiled again each time
#: its cache above misses); 16,384 words cost a server process about 4 MB.
WORD_CACHE = 16384


class QueryCompiler:
    """Compiles queries against one index's vocabulary, glossary names and concepts, remembering
    the most recent ones (a query typed again costs a dictionary lookup)."""

    def __init__(
        self,
        kb: KnowledgeBase,
        speller: Speller,
        postings: Postings,
        concepts: Concepts,
        glossary: dict[tuple[str, str], list[int]],
    ) -> None:
        self._speller = speller
        self._postings = postings  # which words the index knows (scored fields live there alone)
        self._concepts = concepts
        self._glossary = glossary
        self._cache: OrderedDict[tuple[Any, ...], Compiled] = OrderedDict()
        self._term_names = TermNames(kb)
        self._names: frozenset[str] = frozenset()  # the compiled query's proper names
        # Texts analysed for the query being compiled (a word is looked at several times).
        self._analyses: dict[tuple[str, str], list[str]] = {}
        # Words analysed by any query, and the variants of each the index has (WORD_CACHE).
        self._word_cache: dict[tuple[str, str], list[str]] = {}
        self._variant_cache: dict[tuple[str, str], tuple[tuple[str, float], ...]] = {}
        self._clause_cache: dict[tuple[str, str, str], Any] = {}
        self._phrase_cache: dict[tuple[str, str, str], Any] = {}  # :meth:`_phrase`'s
        # The term base's names in their language's analysis, made once (1,100 names, 20 ms):
        # a query's translations and the concepts it names are these names.
        self._name_terms: dict[tuple[str, str], list[str]] = {
            (name, lang): terms(name, lang)
            for term in kb.terms
            for lang in LANGS
            for name in term.names(lang)
        }
        # ... and their Japanese bigrams (a Japanese name is a phrase of them).
        self._name_grams: dict[str, list[str]] = {
            name: _grams(name) for term in kb.terms for name in term.names("ja")
        }
        # ... and as a glossary entry's name is compared (a translated query is one of them).
        self._name_keys: dict[tuple[str, str], str] = {
            (name, lang): term_key(name, lang)
            for term in kb.terms
            for lang in LANGS
            for name in term.names(lang)
        }

    def name_phrases(self) -> list[tuple[str, list[str]]]:
        """The ``(field, words)`` phrases the term base's names make (see :meth:`_phrase`),
        for :meth:`kb.search.postings.Postings.learn_phrases`."""
        return phrases_of(self._name_terms, self._name_grams)

    def _terms(self, text: str, analyzer: str) -> list[str]:
        """:func:`kb.search.analysis.terms`, once per text and analyser in a query (a copy)."""
        key = (text, analyzer)
        found = self._analyses.get(key)
        if found is None:
            found = self._name_terms.get(key)
            if found is None:
                found = self._word_terms(text, analyzer)
            self._analyses[key] = found
        return list(found)

    def _word_terms(self, text: str, analyzer: str) -> list[str]:
        """:func:`kb.search.analysis.terms` of ``text``, remembered across queries when it is
        one word of a Latin-script language (the Japanese analyser keeps its own cache)."""
        if analyzer == "ja" or text.split() != [text]:
            return terms(text, analyzer)
        key = (text, analyzer)
        found = self._word_cache.get(key)
        if found is None:
            found = terms(text, analyzer)
            _remember(self._word_cache, key, found)
        return found

    def _known_variants(self, text: str, tok: str, code: str) -> tuple[tuple[str, float], ...]:
        """The variants of word ``text`` (analysed ``tok``) that the index has in ``code``'s
        body field, with their weights (:func:`kb.search.understand.word_variants`)."""
        key = (text, code)
        found = self._variant_cache.get(key)
        if found is None:
            body = f"body_{code}"
            knows = self._postings.knows
            found = tuple(
                (variant, weight)
                for variant, weight in word_variants(text, tok, code)
                if knows(body, variant)
            )
            _remember(self._variant_cache, key, found)
        return found

    def clear(self) -> None:
        """Forget the compiled queries."""
        self._cache.clear()

    def compile(self, text: str, scope: tuple[str, ...], lang: str | None) -> Compiled:
        """``text`` compiled for the languages of ``scope``; ``lang`` (the search's language
        filter, if any) is the question's language when neither script nor names tell it."""
        key = (text, scope)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        self._term_names.forget()
        self._analyses.clear()
        typed = qp.parse(text)
        text = text[: qp.MAX_QUERY]  # parse noted the cut: nothing past it is searched
        out = Compiled(None, notes=list(typed.notes))
        self._names = proper_names(text)
        detected = detect_lang(text)
        out.src = detected or self._term_names.language_of(text) or lang
        content = strip_frames(text, out.src)
        parsed = typed if content == text else qp.parse(content)
        if parsed.tree is None:
            parsed = typed
        if parsed.tree is not None:
            parts = []
            searched = qp.kept_text(parsed.tree, content)  # an excluded word is not translated
            excludes = qp.has_exclusions(parsed.tree)
            final_from = final_sentence(content, parsed.tree)
            for code in searched_languages(detected, scope):
                native = self._node(parsed.tree, code, out, final_from)
                extra = self._translations(searched, code, out)
                if len(extra) > 1:
                    # Translated names are a question's words too: a text having more of them
                    # ranks higher, as with the words of a question typed in that language.
                    extra = [Coord(extra, lang=code)]
                if extra and excludes:
                    # The translated names are the whole question's: its exclusions apply.
                    banned = self._banned(parsed.tree, code, out)
                    extra = [wq.AndNot(extra[0], wq.Or(banned))] if banned else extra
                if native is not None and extra:
                    native = wq.Or([native, *extra])
                elif extra:
                    native = extra[0]
                if native is not None:
                    parts.append(native)
            if parts:
                out.query = parts[0] if len(parts) == 1 else wq.Or(parts)
            self._pin_glossary(typed, scope, out)
            # Concepts are read in the repaired question: "trampel" names trample.
            repaired = corrected(searched, out.corrections)  # an excluded concept raises nothing
            out.boosts, out.defined = self.concept_boosts(repaired, out.src)
            if final_from and SETUP != 1.0:
                # The concepts of the story before the question weigh less than the question's.
                last = corrected(" ".join(content.split()[final_from:]), out.corrections)
                asked, _ = self.concept_boosts(last, out.src)
                told = out.boosts
                out.boosts = {
                    rule: max(asked.get(rule, 1.0), 1.0 + (told.get(rule, 1.0) - 1.0) * SETUP)
                    for rule in told.keys() | asked.keys()
                }
            if asks_when(text):
                for rule in WHEN_RULES:
                    out.boosts[rule] = max(out.boosts.get(rule, 1.0), WHEN_BOOST)
            out.about_examples = about_examples(text)
            out.about_tournament = asks_tournament(text)
            for code in scope:
                if code == "ja":
                    # Only Japanese runs make bigrams: a Latin question has none to look for.
                    seq = [g for g, _, _ in bigrams_ja(text)] if has_cjk(text) else []
                    out.order[code] = ("gram_ja", seq)
                else:
                    out.order[code] = (f"body_{code}", self._terms(repaired, code))
        self._cache[key] = out
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return out

    def _node(
        self, node: qp.Node, code: str, out: Compiled, final_from: int = 0
    ) -> wq.Query | None:
        """``node`` as a query in ``code``'s fields; ``final_from``: the question's words from
        that one on are its asking sentence (:data:`FINAL`; the top group only)."""
        if isinstance(node, qp.Word):
            return self._word(node, code, out)
        if isinstance(node, qp.Phrase):
            return self._phrase(node.text, code, out)
        if isinstance(node, qp.AnyOf):
            items = [q for q in (self._node(n, code, out) for n in node.items) if q is not None]
            return wq.Or(items) if len(items) > 1 else (items[0] if items else None)
        positive = [self._node(n, code, out) for n in node.positive]
        if final_from and FINAL != 1.0:
            # The question's last sentence asks; the sentences before it tell the story.
            positive = [
                wq.Or([q], boost=FINAL) if q is not None and i >= final_from else q
                for i, q in enumerate(positive)
            ]
        positive = [q for q in positive if q is not None]
        required = [q for q in (self._node(n, code, out) for n in node.required) if q is not None]
        negative = [q for n in node.negative for q in self._excluded(n, code, out)]
        if len(required) < len(node.required):
            return None  # a required word that cannot match in this language: nothing can
        base: wq.Query | None
        if required:
            base = wq.And(required) if len(required) > 1 else required[0]
            if positive:
                base = wq.AndMaybe(
                    base, Coord(positive, lang=code) if len(positive) > 1 else positive[0]
                )
        elif positive:
            base = Coord(positive, lang=code) if len(positive) > 1 else positive[0]
        else:
            return None
        if negative:
            base = wq.AndNot(base, wq.Or(negative))
        return base

    def _banned(self, tree: qp.Node, code: str, out: Compiled) -> list[wq.Query]:
        """What the exclusions of ``tree`` (at any depth) exclude in ``code``, translated too."""
        return [q for node in qp.exclusions(tree) for q in self._excluded(node, code, out)]

    def _excluded(self, node: qp.Node, code: str, out: Compiled) -> list[wq.Query]:
        """What one excluded item excludes in ``code``: itself and its translations (the
        expansion a searched word gets)."""
        own = self._node(node, code, out)
        return ([own] if own is not None else []) + self._translations(
            qp.leaf_text(node), code, out
        )

    def _mark(self, out: Compiled, analyzer: str, items: list[str]) -> None:
        out.marks.setdefault(analyzer, set()).update(items)

    def _word(self, word: qp.Word, code: str, out: Compiled) -> wq.Query | None:
        text = word.text
        if code != "ja" and has_cjk(text):
            return None
        if word.prefix:
            return self._prefix(text, code, out)
        key = (text, code, analysis.JA_DEFAULT if code == "ja" else "")
        facts = self._clause_cache.get(key)
        if facts is None:
            facts = self._word_facts(text, code)
            _remember(self._clause_cache, key, facts)
        found, marks, state, built = facts
        for analyzer, items in marks:
            self._mark(out, analyzer, items)
        if state == _KNOWN or (state == _UNSEEN and out.src not in (None, code)):
            out.known.add(text)
        elif state == _UNSEEN:
            clauses = [*found, *self._fuzzy(text, code, out)]
            return (clauses[0] if len(clauses) == 1 else wq.Or(clauses)) if clauses else None
        return built

    def _word_facts(
        self, text: str, code: str
    ) -> tuple[tuple[wq.Query, ...], tuple[tuple[str, list[str]], ...], int, wq.Query | None]:
        """What word ``text`` is in ``code``'s fields, the same in every query (remembered,
        :data:`WORD_CACHE`): its clauses (terms, phrase, rule number, variants the index
        has), the terms it marks, and whether it is known (:data:`_KNOWN`), a word no field
        has (:data:`_UNSEEN`: a typo, repaired by :meth:`_fuzzy` when the question's
        language allows) or neither (:data:`_NEITHER`), and its clauses as one query."""
        scratch = Compiled(None)
        clauses: list[wq.Query] = []
        state = _NEITHER
        if _NUMBER_TOKEN.match(text):
            number = try_parse(text)
            if number is not None:
                # A rule's own number is the first word of its title (see the indexer).
                clauses.append(wq.Term(f"title_{code}", str(number), boost=4.0))
        if code == "ja":
            toks = self._terms(text, "ja")
            # A Japanese question is one "word" of several morphemes: alternatives, ranked by
            # how many of them a document has, like the words of an English question.
            parts = [self._ja_token(tok, scratch) for tok in toks]
            if len(parts) > 1:
                clauses.append(Coord(parts, lang="ja"))
            else:
                clauses.extend(parts)
        else:
            toks = self._terms(text, code)
            if not toks and code == "en" and text.lower() in EN_SYNONYMS:
                toks = self._terms(EN_SYNONYMS[text.lower()], code)
            if toks:
                self._mark(scratch, code, toks)
                if len(toks) > 1:
                    clauses.append(wq.Phrase(f"body_{code}", toks))
                    clauses.append(wq.Phrase(f"title_{code}", toks))
                else:
                    tok = toks[0]
                    clauses.append(wq.Term(f"body_{code}", tok))
                    clauses.append(wq.Term(f"title_{code}", tok))
                    for variant, weight in self._known_variants(text, tok, code):
                        self._mark(scratch, code, [variant])
                        clauses.append(wq.Term(f"body_{code}", variant, boost=weight))
                    unseen = (
                        tok.isalpha()
                        and not self._postings.knows(f"body_{code}", tok)
                        and not self._postings.knows(f"title_{code}", tok)
                    )
                    state = _UNSEEN if unseen else _KNOWN
            elif clauses:
                clauses = [wq.Or(clauses)]  # a rule number the analyser drops
        marks = tuple((name, sorted(items)) for name, items in scratch.marks.items())
        built = (clauses[0] if len(clauses) == 1 else wq.Or(list(clauses))) if clauses else None
        return tuple(clauses), marks, state, built

    def _fuzzy(self, text: str, code: str, out: Compiled) -> list[wq.Query]:
        spelled = self._terms(text, f"{code}_plain")
        if text in self._names or self._term_names.names(text, code):
            # A name (a card's, or the term base's "défenseur") is no typo of a rules word.
            return []
        if len(spelled) != 1 or len(spelled[0]) < 4:
            return []
        if code != "en" and out.src != "fr" and text.lower() in common_english():
            # A common English word ("stat", "tide") is no typo of a French one unless the
            # question is French (the English fields' speller keeps them itself).
            return []
        if self._term_names.name_word(text, code):
            return []  # a word of a name in the field's language ("lien" of "lien de vie")
        if out.src is None and any(
            self._term_names.name_word(text, other)
            or any(self._speller.known(f"plain_{other}", w) for w in terms(text, f"{other}_plain"))
            for other in ("en", "fr")
            if other != code
        ):
            return []  # a word of the other language ("order" is no typo of "ordre")
        fixes = self._speller.corrections(f"plain_{code}", spelled[0])
        parts = [] if fixes else self._speller.split(f"plain_{code}", spelled[0])
        if parts:  # words run together: "manaability" is "mana ability"
            joined = " ".join(parts)
            out.corrections.setdefault(text, joined)
            phrase = self._phrase(joined, code, out)
            return [phrase] if phrase is not None else []
        if not fixes:
            if text not in out.unknown:
                out.unknown.append(text)
            return []
        best = fixes[0]
        if text not in out.corrections:
            out.corrections[text] = best
        clauses: list[wq.Query] = []
        for fix in fixes[:3]:
            for tok in self._terms(fix, code):
                self._mark(out, code, [tok])
                clauses.append(wq.Term(f"body_{code}", tok, boost=0.8))
                clauses.append(wq.Term(f"title_{code}", tok, boost=0.8))
        return clauses

    def _prefix(self, text: str, code: str, out: Compiled) -> wq.Query | None:
        key = normalize(text).lower()
        if code == "fr":
            key = fold_accents(key)
        field_name = "body_ja" if code == "ja" else f"plain_{code}"
        words = self._speller.completions(field_name, key, 32)
        stems: list[str] = []
        for w in words:
            stems.extend(self._terms(w, code) if code != "ja" else [w])
        stems = list(dict.fromkeys(stems))
        if not stems:
            return None
        self._mark(out, code, stems)
        body = "body_ja" if code == "ja" else f"body_{code}"
        return wq.Or([wq.Term(body, s) for s in stems])

    def _ja_token(self, tok: str, out: Compiled) -> wq.Query:
        self._mark(out, "ja", [tok])
        clauses: list[wq.Query] = [wq.Term("body_ja", tok), wq.Term("title_ja", tok)]
        grams = _grams(tok)
        if len(grams) > 1:
            clauses.append(wq.Phrase("gram_ja", grams))
            self._mark(out, "ja_gram", grams)
        elif grams and len(grams[0]) == 2:
            clauses.append(wq.Term("gram_ja", grams[0]))
            self._mark(out, "ja_gram", grams)
        return wq.Or(clauses)

    def _phrase(self, text: str, code: str, out: Compiled) -> wq.Query | None:
        """``text`` as a phrase in ``code``'s fields (None if it cannot match), its terms marked
        in ``out``: made once per text and language (the term base's names recur)."""
        key = (text, code, analysis.JA_DEFAULT if code == "ja" else "")
        facts = self._phrase_cache.get(key)
        if facts is None:
            facts = self._phrase_facts(text, code)
            _remember(self._phrase_cache, key, facts)
        query, marks = facts
        for analyzer, items in marks:
            self._mark(out, analyzer, items)
        return query

    def _phrase_facts(self, text: str, code: str) -> tuple[wq.Query | None, tuple[Any, ...]]:
        """:meth:`_phrase`'s query and the terms it marks (per analyser, in order)."""
        if code != "ja" and has_cjk(text):
            return None, ()
        if code == "ja":
            toks = self._terms(text, "ja")
            grams = self._name_grams.get(text)
            grams = list(grams) if grams is not None else _grams(text)
            clauses: list[wq.Query] = []
            if len(toks) > 1:
                clauses.append(wq.Phrase("body_ja", toks))
            elif toks:
                clauses.append(wq.Term("body_ja", toks[0]))
            if len(grams) > 1:
                clauses.append(wq.Phrase("gram_ja", grams))
            marks = (("ja", toks), ("ja_gram", grams))
            return (wq.Or(clauses) if clauses else None), marks
        toks = self._terms(text, code)
        if not toks:
            return None, ()
        if len(toks) == 1:
            query = wq.Or([wq.Term(f"body_{code}", toks[0]), wq.Term(f"title_{code}", toks[0])])
        else:
            query = wq.Or([wq.Phrase(f"body_{code}", toks), wq.Phrase(f"title_{code}", toks)])
        return query, ((code, toks),)

    def _translations(self, text: str, code: str, out: Compiled) -> list[wq.Query]:
        names: list[str] = []
        for src in LANGS:
            # A question in a known language is translated from that language only: an English
            # "creature" read as a French name would count the word twice.
            if src != code and out.src in (None, src):
                names.extend(self._term_names.translate(text, src, code))
        if code == "en" and out.src in (None, "en"):
            # A player's name for a concept ("goes first", a variant in the term base) brings
            # the name the rules use ("starting player") when that name has words the question
            # lacks; an inflected name ("priorities") adds nothing.
            have = set(self._terms(text, code))
            names.extend(
                name
                for name in self._term_names.translate(text, code, code)
                if not set(self._terms(name, code)) <= have
            )
        clauses = []
        for name in dict.fromkeys(names):
            clause = self._phrase(name, code, out)
            if clause is not None:
                clauses.append(clause)
        return clauses

    def concept_boosts(
        self, text: str, src: str | None
    ) -> tuple[dict[str, float], tuple[str, ...]]:
        """Rule -> factor for the concepts ``text`` names (English words directly, French and
        Japanese through the term base's English names), and the rules of those concepts when
        the text names nothing else."""
        found: list[tuple[tuple[str, ...], int]] = []
        covered = False
        if src in (None, "en"):
            words = self._terms(text, "en")
            named = self._concepts.find(words)
            found.extend((rules, df) for _, rules, df in named)
            covered = bool(named) and sum(len(n) for n, _, _ in named) == len(words)
        for other in ("fr", "ja"):
            if src in (None, other):
                for name in self._term_names.translate(text, other, "en"):
                    row = self._concepts.named(self._terms(name, "en"))
                    if row is not None:
                        found.append(row)
        boosts: dict[str, float] = {}
        top = max((Concepts.weight(df) for _rules, df in found), default=1.0) or 1.0
        relative = RELATIVE if src in (None, "en") else 0.0
        for rules, df in found:
            weight = Concepts.weight(df)
            factor = 1.0 + (CONCEPT_BOOST - 1.0) * weight * (weight / top) ** relative
            if factor <= 1.01:
                continue
            for rule in rules:
                if boosts.get(rule, 1.0) < factor:
                    boosts[rule] = factor
        return boosts, tuple(boosts) if covered else ()

    def _pin_glossary(self, parsed: qp.Parsed, scope: tuple[str, ...], out: Compiled) -> None:
        """A query that is a glossary term (or its translation) shows that entry first."""
        if parsed.tree is None or (
            not qp.is_simple(parsed.tree) and not isinstance(parsed.tree, qp.Phrase)
        ):
            return
        typed = [w.text for w in qp.words(parsed.tree)]
        phrase = " ".join(typed)
        if any(w in QUESTION_WORDS for w in RAW_WORD.findall(phrase.lower())):
            return
        fixed = " ".join([out.corrections.get(w, w) for w in typed])
        for code in scope:
            candidates = [phrase, fixed] if fixed != phrase else [phrase]
            for src in LANGS:
                if src != code:
                    candidates.extend(self._term_names.translate(phrase, src, code, whole=True))
            for cand in candidates:
                key = self._name_keys.get((cand, code))
                if key is None:
                    # kb.search.indexer.term_key, the words analysed once per query or word
                    key = (
                        term_key(cand, code)
                        if code == "ja"
                        else " ".join(self._terms(cand, f"{code}_plain"))
                    )
                if not key:  # only stop words ("the of and"): no entry is named by nothing
                    continue
                for doc in self._glossary.get((code, key), []):
                    if doc not in out.glossary:
                        out.glossary.append(doc)


#: What a word is in a language's fields (:meth:`QueryCompiler._word_facts`).
_KNOWN, _UNSEEN, _NEITHER = 1, 2, 3


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
    """Keep ``value`` in a per-word ``cache`` of at most :data:`WORD_CACHE` entries (the
    oldest go first, by :func:`kb.base.cachemap.keep`)."""
    keep(cache, key, value, WORD_CACHE)
