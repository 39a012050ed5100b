"""A learned reordering of the best documents of a search, over features the ranking already
computes (its scores, the votes of the questions players ask and of the examples, the kind,
language and depth of each document, the query's length and language).

The model is a LightGBM lambdarank booster trained on "Players ask" (queries: the questions,
relevant: the rules they cite) by ``tests/bench/fit_ask_ranker.py``, which cross-validates it by
rule and writes :data:`MODEL_FILE` (a small text file shipped with the package) with ``--write``.
Without the file or without LightGBM the search keeps the hand-made order: nothing here is
required.

No model ships: trained on every question, it lost on the tuning half of the search evaluation
(MRR 0.671 hand-made; 0.642 with 150 rounds of 15 leaves, 0.666 with 40 rounds of 7 leaves),
though it won on the questions cross-validated by rule (0.544 -> 0.583 and 0.569). Trained with
every question of a query's rules hidden (so that no rule's own questions vote for it), it
learned that the questions' votes are wrong (they always are, then): 0.447 -> 0.613 held out by
rule, 0.344 on the tuning half. Questions written alongside the ones citing the same rules are
easier than a player's new wording, so what is learned on them does not carry over.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kb.search.compiled import Compiled

#: The model shipped with the package (LightGBM's text format).
MODEL_FILE = Path(__file__).resolve().parent / "ask_ranker.txt"
#: How many of the best documents are reordered (the first page and a little more).
DEPTH = 20
#: The features, in the model's column order.
FEATURES = (
    "score",  # the document's final hand-made score / the best one
    "position",  # its place in the hand-made order (0 first)
    "raw",  # its BM25F score before reranking / the best raw score of the candidates
    "ask_vote",  # what the questions players ask added to it / the best score
    "ask_voters",  # how many of those questions voted for it
    "example_vote",  # what the executable examples added / the best score
    "section",
    "rule",
    "subrule",
    "other_kind",  # glossary, commentary, tournament rule or example
    "same_lang",  # the document is in the query's language
    "english",
    "depth",  # parts of its rule number (702 -> 1, 702.19 -> 2, 702.19b -> 3; 0: no rule)
    "query_words",
    "query_fr",
    "query_ja",
)
_KINDS = {"section": 6, "rule": 7, "subrule": 8}


class LearnedOrder:
    """Reorders a ranked list with the shipped model (:meth:`rerank`), or records each search's
    features (:attr:`capture`, for training) when asked."""

    def __init__(self, path: Path = MODEL_FILE) -> None:
        self.model: Any = None
        #: When a list, each search appends ``(docs, rows)``: its candidates and their features.
        self.capture: list[tuple[list[int], list[list[float]]]] | None = None
        if path.is_file():
            try:
                import lightgbm
            except ImportError:  # an optional dependency: the hand-made order stays
                return
            self.model = lightgbm.Booster(model_str=path.read_text(encoding="utf-8"))

    @property
    def active(self) -> bool:
        """True when searches need the features (a model to apply or a capture to fill)."""
        return self.model is not None or self.capture is not None

    def rerank(
        self,
        scored: list[tuple[float, int]],
        raw: dict[int, float],
        votes: dict[str, dict[int, float]],
        facts: tuple[Sequence[str], Sequence[str], dict[int, str]],
        compiled: Compiled,
    ) -> list[tuple[float, int]]:
        """``scored`` (best first) with its first :data:`DEPTH` documents in the model's order,
        given the scores they had in order (the scale the rest of the ranking reads stays);
        ``facts``: each document's kind, language and canonical number."""
        head = scored[:DEPTH]
        if len(head) < 2:
            return scored
        kinds, langs, number_of = facts
        words = len(compiled.order.get(compiled.src or "en", ("", []))[1])
        query = (words, compiled.src)
        rows = features(head, raw, votes, kinds, langs, number_of, query)
        if self.capture is not None:
            self.capture.append(([d for _s, d in head], rows))
        if self.model is None:
            return scored
        predicted = self.model.predict(rows)
        order = sorted(range(len(head)), key=lambda i: -predicted[i])
        return [(head[i][0], head[j][1]) for i, j in enumerate(order)] + scored[DEPTH:]


def features(
    head: list[tuple[float, int]],
    raw: dict[int, float],
    votes: dict[str, dict[int, float]],
    kinds: Sequence[str],
    langs: Sequence[str],
    number_of: dict[int, str],
    query: tuple[int, str | None],
) -> list[list[float]]:
    """One row of :data:`FEATURES` per document of ``head``; ``query``: its number of words and
    language (None: English or unknown)."""
    top = head[0][0] or 1.0
    best_raw = max((raw.get(d, 0.0) for _s, d in head), default=0.0) or 1.0
    asks = votes.get("asks", {})
    voters = votes.get("ask_voters", {})
    examples = votes.get("examples", {})
    words, src = query
    rows = []
    for position, (score, doc) in enumerate(head):
        kind = kinds[doc]
        number = number_of.get(doc, "")
        row = [0.0] * len(FEATURES)
        row[0] = score / top
        row[1] = float(position)
        row[2] = raw.get(doc, 0.0) / best_raw
        row[3] = asks.get(doc, 0.0) / top
        row[4] = voters.get(doc, 0.0)
        row[5] = examples.get(doc, 0.0) / top
        row[_KINDS.get(kind, 9)] = 1.0
        row[10] = float(langs[doc] == (src or "en"))
        row[11] = float(langs[doc] == "en")
        row[12] = float(number.count(".") + 1 + (number[-1:].isalpha())) if number else 0.0
        row[13] = float(words)
        row[14] = float(src == "fr")
        row[15] = float(src == "ja")
        rows.append(row)
    return rows
