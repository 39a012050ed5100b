"""The inverted index of the scored fields, and the evaluation of queries over it.

Whoosh keeps the index on disk and the spelling vocabulary, but scoring through its matcher tree
costs about 10 µs per matching document in pure Python, and common words match thousands. This
file holds, per field and term, each document's BM25 weight computed at build time (idf,
saturation, length normalisation, field weight and the document's prior baked in), so a query
is a few dictionary merges; and, per document, its terms in order, for phrases and coverage.

It is one SQLite file next to the Whoosh files. Current documents (what a search without an
edition sees) are one table row per field, loaded whole when the index opens (about 80,000
postings; a default search touches nothing else). Older documents' postings and term sequences
are a row per term and per document, read only by a search in an edition, and only the rows
its words need: loading them all, as the marshal file before it did, cost a server process
30 MB for the archive's 250,000 old postings.
"""

from __future__ import annotations

import marshal
import math
import sqlite3
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import add
from pathlib import Path

from whoosh import query as wq

FILE = "postings.sqlite"
#: The fields scored here, and their weight in a document's score (BM25F-like: per field, summed).
FIELD_WEIGHT = {
    "title_en": 2.0,
    "body_en": 1.0,
    "title_fr": 2.0,
    "body_fr": 1.0,
    "title_ja": 2.0,
    "body_ja": 1.0,
    "gram_ja": 0.5,
}
#: BM25 saturation and length normalisation. Rule texts are short and of similar length, so a
#: milder length normalisation than the usual 0.75 keeps one-line rules from winning by brevity.
K1 = 1.2
B = 0.5
#: Weight of a term in a rule's examples or its inherited title, against its own text: an
#: example illustrates a rule, and a match there says less about what the rule is about.
EXTRA = 0.5

Weights = dict[int, float]
#: Fields whose terms share one document frequency, by language.
_SHARED_DF = {lang: (f"title_{lang}", f"body_{lang}") for lang in ("en", "fr", "ja")}
_LANG_OF = {name: lang for lang, names in _SHARED_DF.items() for name in names}


def build(
    tokens: Iterable[tuple[int, str, list[str], int]], n_docs: int, stop: int, priors: list[float]
) -> bytes:
    """Serialise the postings of ``(docnum, field, terms, main)`` rows, where the terms after
    the first ``main`` ones weigh :data:`EXTRA`; ``stop`` is the first old document.

    Every weight depends on the whole collection (idf, average length), so each build computes
    them all; the counting is done per document by ``Counter`` (C), not per token in Python."""
    intern = sys.intern
    seqs: dict[str, list[tuple[str, ...] | None]] = {f: [None] * n_docs for f in FIELD_WEIGHT}
    # Per field and document: each term's frequency (the extra terms counting EXTRA) and the
    # field's length.
    counts: dict[str, dict[int, dict[str, float]]] = {f: {} for f in FIELD_WEIGHT}
    lengths: dict[str, list[float]] = {f: [0.0] * n_docs for f in FIELD_WEIGHT}
    for doc, name, toks, main in tokens:
        if not toks:
            continue
        seq = tuple(map(intern, toks))
        seqs[name][doc] = seq
        if main < len(seq):
            tf: dict[str, float] = Counter(seq[:main])  # type: ignore[assignment]
            for t, k in Counter(seq[main:]).items():
                tf[t] = tf.get(t, 0) + EXTRA * k
            lengths[name][doc] = main + EXTRA * (len(seq) - main)
        else:
            tf = Counter(seq)  # type: ignore[assignment]
            lengths[name][doc] = len(seq)
        counts[name][doc] = tf
    # Document frequencies per language over its title and body together (BM25F): a word rare
    # among titles, most of which are bare rule numbers, is not rare in the language.
    dfs: dict[str, Counter[str]] = {}
    sizes: dict[str, int] = {}
    for lang, (title, body) in _SHARED_DF.items():
        df: Counter[str] = Counter()
        in_title, in_body = counts[title], counts[body]
        docs = in_title.keys() | in_body.keys()
        for doc in docs:
            a, b = in_title.get(doc), in_body.get(doc)
            df.update(a.keys() | b.keys() if a and b else (a or b).keys())  # type: ignore[union-attr]
        dfs[lang] = df
        sizes[lang] = len(docs)
    cur: dict[str, dict[str, Weights]] = {}
    old: dict[str, dict[str, Weights]] = {}
    k1p = K1 + 1
    for name in seqs:
        per_doc = counts[name]
        n = len(per_doc)
        if not n:
            continue
        field_lengths = lengths[name]
        avg = sum(field_lengths) / n
        weight = FIELD_WEIGHT[name]
        shared = _LANG_OF.get(name)
        if shared:
            df_of, n_all = dfs[shared], sizes[shared]
        else:
            df_of, n_all = Counter(), n
            for tf in per_doc.values():
                df_of.update(tf.keys())
        idf: dict[str, float] = {}
        # One pass over the postings, documents in ascending order (the current ones, below
        # ``stop``, first): each term's weights come out in document order.
        fc: dict[str, Weights] = {}
        fo: dict[str, Weights] = {}
        for doc in sorted(per_doc):
            norm = K1 * (1 - B + B * field_lengths[doc] / avg)
            prior = priors[doc]
            out = fc if doc < stop else fo
            for term, tf in per_doc[doc].items():
                i = idf.get(term)
                if i is None:
                    df_t = df_of[term]
                    i = idf[term] = math.log(1 + (n_all - df_t + 0.5) / (df_t + 0.5)) * weight
                w = round(i * tf * k1p / (tf + norm) * prior, 4)
                row = out.get(term)
                if row is None:
                    out[term] = {doc: w}
                else:
                    row[doc] = w
        cur[name] = fc
        old[name] = fo
    return _serialise(cur, old, seqs, stop)


def _serialise(
    cur: dict[str, dict[str, Weights]],
    old: dict[str, dict[str, Weights]],
    seqs: dict[str, list[tuple[str, ...] | None]],
    stop: int,
) -> bytes:
    """The SQLite database of the postings, as bytes (see the module docstring)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        db.execute("INSERT INTO info VALUES ('stop', ?)", (stop,))
        db.executemany(
            "INSERT INTO current VALUES (?, ?, ?)",
            [
                (name, marshal.dumps(cur.get(name, {})), marshal.dumps(seqs[name][:stop]))
                for name in seqs
            ],
        )
        db.executemany(
            "INSERT INTO old VALUES (?, ?, ?)",
            [
                (name, term, marshal.dumps(weights))
                for name, terms in old.items()
                for term, weights in terms.items()
            ],
        )
        db.executemany(
            "INSERT INTO old_seq VALUES (?, ?, ?)",
            [
                (name, doc, marshal.dumps(seq))
                for name, docs in seqs.items()
                for doc, seq in enumerate(docs[stop:], stop)
                if seq
            ],
        )
        db.commit()
        return db.serialize()
    finally:
        db.close()


_SCHEMA = """
CREATE TABLE info (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE current (field TEXT PRIMARY KEY, weights BLOB, seqs BLOB) WITHOUT ROWID;
CREATE TABLE old (field TEXT, term TEXT, weights BLOB, PRIMARY KEY (field, term)) WITHOUT ROWID;
CREATE TABLE old_seq (field TEXT, doc INTEGER, terms BLOB, PRIMARY KEY (field, doc)) WITHOUT ROWID;
"""


@dataclass(slots=True)
class Evaluation:
    """What evaluating a query found besides scores: the word groups, for coverage, and the
    language of each group's fields (None if they are of several); ``side``: the evaluation
    is of the side documents (:meth:`Postings.side`)."""

    groups: list[list[Weights]] = field(default_factory=list)
    langs: list[str | None] = field(default_factory=list)
    side: bool = False


class Coord(wq.Or):
    """Words side by side: scored like ``Or``, and remembered so that ranking can prefer
    documents having more of them (a question's words are alternatives, not equals).

    ``lang``: the language of every field under it, when the caller knows it (the query
    compiler builds one language's query at a time); otherwise it is read from the fields."""

    def __init__(self, subqueries: list[wq.Query], boost: float = 1.0, lang: str | None = None):
        super().__init__(subqueries, boost=boost)
        self.lang = lang


class Postings:
    """The postings of one index: the current documents' in memory, the older ones' on disk."""

    def __init__(self, path: Path, old_vocabulary: bool = True) -> None:
        """Open the postings file at ``path``; ValueError if it is not one. ``old_vocabulary``:
        read the old documents' words now (a searcher), not on first use (the build)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(path)
        try:
            self._db = sqlite3.connect(
                path.resolve().as_uri() + "?mode=ro&immutable=1", uri=True, check_same_thread=False
            )
            self.stop: int = self._db.execute(
                "SELECT value FROM info WHERE key = 'stop'"
            ).fetchone()[0]
            self._cur: dict[str, dict[str, Weights]] = {}
            self._seq: dict[str, list[tuple[str, ...] | None]] = {}
            for name, weights, seqs in self._db.execute("SELECT field, weights, seqs FROM current"):
                self._cur[name] = marshal.loads(weights)
                self._seq[name] = marshal.loads(seqs)
            # The old documents' tables are read when needed; that they are there is checked now.
            self._db.execute("SELECT 1 FROM old LIMIT 1").fetchall()
            self._db.execute("SELECT 1 FROM old_seq LIMIT 1").fetchall()
        except (sqlite3.Error, TypeError) as exc:
            raise ValueError(f"{path}: not a postings file ({exc})") from exc
        # The words of old documents, by field, read on first use (see :meth:`_old_vocabulary`).
        self._old_terms: dict[str, set[str]] | None = None
        if old_vocabulary:
            try:
                self._old_vocabulary()
            except sqlite3.Error as exc:
                raise ValueError(f"{path}: not a postings file ({exc})") from exc
        # Phrases known before any query (the term base's names), evaluated once: see
        # :meth:`learn_phrases`.
        self._phrases: dict[tuple[str, tuple[str, ...]], Weights] = {}
        # The side documents' postings and phrases, taken out of the others' (see :meth:`side`).
        self._side: dict[str, dict[str, Weights]] = {}
        self._side_phrases: dict[tuple[str, tuple[str, ...]], Weights] = {}
        # Old documents' rows read by the search running now (searches hold the searcher's lock).
        self._old: dict[tuple[str, str], Weights] = {}
        self._old_seq: dict[tuple[str, int], tuple[str, ...] | None] = {}

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    def forget(self) -> None:
        """Drop the old documents' rows read so far (called after each search)."""
        self._old.clear()
        self._old_seq.clear()

    def _old_vocabulary(self) -> dict[str, set[str]]:
        """The words of old documents, by field: a question's words are checked against every
        edition's vocabulary (an unknown one is a typo), and a set lookup beats a query (an
        archive's are 250,000 rows, which a build evaluating phrases never needs)."""
        found = self._old_terms
        if found is None:
            found = {}
            for name, term in self._db.execute("SELECT field, term FROM old"):
                found.setdefault(name, set()).add(sys.intern(term))
            self._old_terms = found
        return found

    def side(self, first: int) -> None:
        """Keep the current documents from ``first`` on (the questions players ask, which vote
        and are never hits) apart: :meth:`evaluate` scores the others, and scores these only
        when asked (``side=True``). A search then never walks the questions' thousands of
        postings to take them out of its hits, and scores them only when they vote. Once, when
        the index opens, before any search."""
        for name, rows in self._cur.items():
            side: dict[str, Weights] = {}
            for term, weights in rows.items():
                taken = {d: w for d, w in weights.items() if first <= d < self.stop}
                if taken:
                    side[term] = taken
                    rows[term] = {d: w for d, w in weights.items() if not first <= d < self.stop}
            self._side[name] = side
        for key, weights in self._phrases.items():
            taken = {d: w for d, w in weights.items() if first <= d < self.stop}
            if taken:
                self._side_phrases[key] = taken
                self._phrases[key] = {d: w for d, w in weights.items() if d not in taken}

    def knows(self, name: str, term: str) -> bool:
        """True if any document (current or not, side ones too) has ``term`` in field ``name``."""
        return (
            term in self._cur.get(name, ())
            or term in self._side.get(name, ())
            or term in self._old_vocabulary().get(name, ())
        )

    def frequency(self, name: str, term: str) -> int:
        """How many documents (current or not, side ones too) have ``term`` in field ``name``."""
        return (
            len(self._cur.get(name, {}).get(term, ()))
            + len(self._side.get(name, {}).get(term, ()))
            + len(self._old_weights(name, term))
        )

    def _old_weights(self, name: str, term: str) -> Weights:
        key = (name, term)
        got = self._old.get(key)
        if got is None and term not in self._old_vocabulary().get(name, ()):
            return {}
        if got is None:
            row = self._db.execute(
                "SELECT weights FROM old WHERE field = ? AND term = ?", key
            ).fetchone()
            got = self._old[key] = marshal.loads(row[0]) if row else {}
        return got

    def sequence(self, name: str, doc: int) -> tuple[str, ...] | None:
        """The terms of document ``doc`` in field ``name``, in order (None if it has none)."""
        if doc < self.stop:
            seqs = self._seq.get(name)
            return seqs[doc] if seqs is not None else None
        key = (name, doc)
        if key not in self._old_seq:
            row = self._db.execute(
                "SELECT terms FROM old_seq WHERE field = ? AND doc = ?", key
            ).fetchone()
            self._old_seq[key] = marshal.loads(row[0]) if row else None
        return self._old_seq[key]

    def _read_sequences(self, name: str, docs: list[int]) -> None:
        """Read the term sequences of old documents ``docs`` at once (a phrase's candidates)."""
        docs = [d for d in docs if (name, d) not in self._old_seq]
        for i in range(0, len(docs), 500):
            chunk = docs[i : i + 500]
            for doc in chunk:
                self._old_seq[(name, doc)] = None
            marks = ",".join("?" * len(chunk))
            for doc, terms in self._db.execute(
                f"SELECT doc, terms FROM old_seq WHERE field = ? AND doc IN ({marks})",
                (name, *chunk),
            ):
                self._old_seq[(name, doc)] = marshal.loads(terms)

    def term(self, name: str, term: str, everything: bool, side: bool = False) -> Weights:
        """The weights of one term (current documents, or every document; ``side``: the side
        documents', see :meth:`side`); never modify it."""
        if side:
            return self._side.get(name, {}).get(term) or {}
        cur = self._cur.get(name, {}).get(term)
        if not everything:
            return cur or {}
        old = self._old_weights(name, term)
        if not old:
            return cur or {}
        if not cur:
            return old
        return {**cur, **old}

    def evaluate(
        self, q: wq.Query, everything: bool, ev: Evaluation, side: bool = False
    ) -> Weights:
        """Scores of the documents matching ``q`` (a tree of Whoosh query objects); ``side``:
        of the side documents only (:meth:`side`), else of the others."""
        if isinstance(q, wq.Term):
            weights = self.term(q.fieldname, q.text, everything, side)
            if q.boost != 1.0:
                return {d: w * q.boost for d, w in weights.items()}
            return weights
        if isinstance(q, wq.Phrase):
            return self._phrase(q.fieldname, list(q.words), everything, q.boost, side)
        if isinstance(q, wq.Or):
            parts = [self.evaluate(s, everything, ev, side) for s in q.subqueries]
            if isinstance(q, Coord) and len(parts) > 1:
                ev.groups.append(parts)
                ev.langs.append(q.lang or _language(q))
            return _union(parts, q.boost)
        if isinstance(q, wq.And):
            parts = [self.evaluate(s, everything, ev, side) for s in q.subqueries]
            return _intersection(parts)
        if isinstance(q, wq.AndMaybe):
            base = self.evaluate(q.a, everything, ev, side)
            if not base:
                return base
            extra = self.evaluate(q.b, everything, ev, side)
            return {d: w + extra.get(d, 0.0) for d, w in base.items()}
        if isinstance(q, wq.AndNot):
            base = self.evaluate(q.a, everything, ev, side)
            if not base:
                return base
            out = self.evaluate(q.b, everything, Evaluation(), side)
            return {d: w for d, w in base.items() if d not in out}
        raise TypeError(f"cannot evaluate {type(q).__name__} queries")

    def learn_phrases(self, phrases: Iterable[tuple[str, Sequence[str]]]) -> None:
        """Evaluate once, over the current documents, the ``(field, words)`` phrases that any
        query may bring (the term base's names, which translate a question's words): a
        question naming a concept then finds its phrases' documents without checking their
        words' order again (a Japanese name is a phrase of bigrams in most Japanese texts)."""
        for name, words in phrases:
            key = (name, tuple(words))
            if len(key[1]) > 1 and key not in self._phrases:
                self._phrases[key] = self._match(name, list(words), False, 1.0)
                if self._side:
                    self._side_phrases[key] = self._match(name, list(words), False, 1.0, True)

    def phrases(self) -> list[tuple[tuple[str, tuple[str, ...]], Weights]]:
        """The phrases learnt so far with their current documents' weights (the build stores
        them: :mod:`kb.search.prepared`)."""
        return list(self._phrases.items())

    def know_phrases(self, phrases: dict[tuple[str, tuple[str, ...]], Weights]) -> None:
        """Take phrases evaluated by the build (:meth:`phrases` of the same postings) as
        learnt: a searcher opening the index does not evaluate them again."""
        self._phrases.update(phrases)

    def _phrase(
        self, name: str, words: list[str], everything: bool, boost: float, side: bool = False
    ) -> Weights:
        if not everything:
            key = (name, tuple(words))
            if key in self._phrases:  # a phrase having only side documents has none here
                known = self._side_phrases.get(key, {}) if side else self._phrases[key]
                return known if boost == 1.0 else {d: w * boost for d, w in known.items()}
        return self._match(name, words, everything, boost, side)

    def _match(
        self, name: str, words: list[str], everything: bool, boost: float, side: bool = False
    ) -> Weights:
        """The documents having ``words`` in a row in field ``name``, with their weights."""
        parts = [self.term(name, w, everything, side) for w in words]
        if not parts or not all(parts):
            return {}
        rarest = min(parts, key=len)
        # Documents having every word, found by set intersection in C, walked in the order
        # of the rarest word's postings (the order the scores keep).
        common = set(rarest).intersection(*(p for p in parts if p is not rarest))
        if not common:
            return {}
        if everything:
            self._read_sequences(name, [d for d in rarest if d >= self.stop and d in common])
        n = len(words)
        first = words[0]
        wanted = tuple(words)
        out: Weights = {}
        current = self._seq.get(name) or ()
        stop = self.stop if current else 0
        for doc in rarest:
            if doc not in common:
                continue
            seq = current[doc] if doc < stop else self.sequence(name, doc)
            if seq is None:
                continue
            index = seq.index
            i = -1
            try:
                while True:
                    i = index(first, i + 1)
                    if seq[i : i + n] == wanted:
                        out[doc] = sum([p[doc] for p in parts]) * boost
                        break
            except ValueError:
                pass
        return out


def _language(q: wq.Query) -> str | None:
    """The language of the fields ``q`` searches (``body_en`` -> ``en``), None if several."""
    langs = {name.rpartition("_")[2] for name in _fields(q)}
    return langs.pop() if len(langs) == 1 else None


def _fields(q: wq.Query) -> Iterable[str]:
    if isinstance(q, (wq.Term, wq.Phrase)):
        yield q.fieldname
    elif isinstance(q, wq.AndMaybe | wq.AndNot):
        yield from _fields(q.a)
        yield from _fields(q.b)
    else:
        for sub in getattr(q, "subqueries", ()):
            yield from _fields(sub)


def _union(parts: list[Weights], boost: float) -> Weights:
    """Sum of the parts' weights, documents in order of first appearance (largest part first).

    Only the documents in more than one part are summed, by C iterators; the others are copied
    by ``dict.update``: a question's words share a few hundred of their thousands of documents.
    """
    parts = [p for p in parts if p]
    if not parts:
        return {}
    if len(parts) == 1:  # results are never modified: the one part is the union
        part = parts[0]
        return part if boost == 1.0 else {d: w * boost for d, w in part.items()}
    parts.sort(key=len, reverse=True)
    acc = dict(parts[0])
    for part in parts[1:]:
        common = acc.keys() & part.keys()
        if common:
            # The shared documents' sums, made by C iterators before the part overwrites them.
            docs = list(common)
            sums = list(map(add, map(acc.__getitem__, docs), map(part.__getitem__, docs)))
            acc.update(part)
            acc.update(zip(docs, sums, strict=True))
        else:
            acc.update(part)
    if boost != 1.0:
        return {d: w * boost for d, w in acc.items()}
    return acc


def _intersection(parts: list[Weights]) -> Weights:
    if not parts or not all(parts):
        return {}
    parts = sorted(parts, key=len)
    out: Weights = {}
    for d, w in parts[0].items():
        total = w
        for p in parts[1:]:
            x = p.get(d)
            if x is None:
                break
            total += x
        else:
            out[d] = total
    return out
