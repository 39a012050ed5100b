"""What a searcher needs that depends on the indexed documents alone, computed by the index build
and stored beside the index (:data:`FILE`), so that a server does not compute it when it opens
the index (on the archive: about 45 ms for the withdrawn set and 60 ms for the phrases).

- **The withdrawn documents**: current documents of glossary entries and rules that the newest
  full edition of their language no longer has (see :func:`kb.search.votes.withdrawn_docs`,
  which computes the same set from the searcher's edition sets, for an index without the file).
- **The term base's phrases**: each multi-word name of the term base, in the fields a query's
  translations search, with the current documents having it in a row and their weights
  (:meth:`kb.search.postings.Postings.learn_phrases` evaluates them when the file is missing).

The file is tied to its index by the build's content hash and document counts: a searcher
opening an index with another (or none) computes both itself, as before the file existed.
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.knowledge.model import LANGS, KnowledgeBase
from kb.search.postings import FILE as POSTINGS_FILE
from kb.search.postings import Postings, Weights
from kb.search.termnames import name_phrases

FILE = "prepared.bin"
#: Format of :data:`FILE`, checked when it is read (bumped when its meaning changes).
VERSION = 1

#: A phrase as :class:`kb.search.postings.Postings` keeps it: ``(field, words)``.
PhraseKey = tuple[str, tuple[str, ...]]


@dataclass(slots=True)
class Prepared:
    """The stored facts of one index."""

    withdrawn: frozenset[int]
    phrases: dict[PhraseKey, Weights]


def withdrawn(kb: KnowledgeBase, docs: Sequence[Any], stop: int) -> list[int]:
    """The current documents (the first ``stop`` of ``docs``, :class:`kb.search.indexer.Doc`)
    whose language's newest full edition (having a glossary, for a glossary entry) is not
    among their editions: :func:`kb.search.votes.withdrawn_docs`'s set. What has a glossary
    is read from the glossary documents' editions, not from ``kb``'s glossaries: adding an
    edition gives the build only the newest glossary of each language."""
    present: set[str] = set().union(*(doc.editions for doc in docs))
    glossaries = set().union(*(doc.editions for doc in docs if doc.kind == "glossary"))
    newest: dict[tuple[str, str], str] = {}
    for code in LANGS:
        full = kb.editions_of(code, full_only=True)
        for kind, eds in (("r", full), ("g", [ed for ed in full if ed.id in glossaries])):
            if eds and eds[-1].id in present:
                newest[(code, kind)] = eds[-1].id
    out = []
    for num, doc in enumerate(docs[:stop]):
        edition = newest.get((doc.lang, doc.ref.partition("|")[0]))
        if edition is not None and edition not in doc.editions:
            out.append(num)
    return out


def write(index_dir: Path, kb: KnowledgeBase, docs: Sequence[Any], stop: int) -> None:
    """Write :data:`FILE` for the index of ``docs`` (``stop`` current) in ``index_dir``, whose
    postings are written already: the withdrawn documents, and the term base's phrases
    (:func:`kb.search.termnames.name_phrases`) evaluated over the current documents."""
    index_dir = Path(index_dir)
    postings = Postings(index_dir / POSTINGS_FILE, old_vocabulary=False)
    try:
        postings.learn_phrases(name_phrases(kb))
        known = [[name, list(words), weights] for (name, words), weights in postings.phrases()]
    finally:
        postings.close()
    body = {
        "withdrawn": withdrawn(kb, docs, stop),
        "phrases": known,
    }
    head = (VERSION, kb.content_hash or "", len(docs), stop)
    (index_dir / FILE).write_bytes(marshal.dumps((head, body)))


def read(index_dir: Path, content_hash: str, docs: int, stop: int) -> Prepared | None:
    """The stored facts of the index in ``index_dir`` (``docs`` documents, ``stop`` current,
    built from content ``content_hash``), or None when the file is missing or of another
    index: the searcher then computes them."""
    try:
        head, body = marshal.loads((Path(index_dir) / FILE).read_bytes())
        if tuple(head) != (VERSION, content_hash or "", docs, stop):
            return None
        return Prepared(
            withdrawn=frozenset(body["withdrawn"]),
            phrases={(name, tuple(words)): weights for name, words, weights in body["phrases"]},
        )
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None
