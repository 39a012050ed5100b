"""The Whoosh index: its schema, the documents made from a knowledge base, and building it.

One document per distinct text: a rule whose number and wording did not change across five
editions is indexed once and lists the five editions (the build stays fast with every edition
loaded). Next to the Whoosh files, ``meta.json`` lists every document in document-number order
(reference, kind, language, editions, group, current) so the searcher filters and groups
with plain sets and never reads stored fields.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from array import array
from bisect import bisect_left
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.fields import ID, KEYWORD, TEXT, Schema

from kb.knowledge.model import LANGS, KnowledgeBase
from kb.search import postings, prepared, snippets
from kb.search.analysis import (
    _MEMO,
    ANALYZERS,
    SpanTokenizer,
    forget,
    ja_backend_id,
    normalize,
    remember,
    terms,
)
from kb.search.docstate import DocState, assemble
from kb.search.documents import (
    DEFINITION_PRIOR,
    FORMAT,
    HEAD_FILE,
    INDEX_NAME,
    META_FILE,
    Doc,
)
from kb.search.understand import concept_table

#: Bumped whenever the schema, the analysers, the documents or the metadata change meaning.
#: Analyser of each field (the schema's, by name) for the build's single analysis pass.
FIELD_ANALYZER = {
    "title_en": "en",
    "body_en": "en",
    "plain_en": "en_plain",
    "title_fr": "fr",
    "body_fr": "fr",
    "plain_fr": "fr_plain",
    "title_ja": "ja",
    "body_ja": "ja",
    "gram_ja": "ja_gram",
}

#: Kinds of documents; ``rule`` as a filter also covers sections and subrules.
KINDS = ("section", "rule", "subrule", "glossary", "commentary", "tournament", "example")
RULE_KINDS = ("section", "rule", "subrule")


def ja_backend_name() -> str:
    """The Japanese analyser of new indexes (``$KB_JA_ANALYZER`` or sudachi), with its versions.

    An index built with another analyser, split mode or dictionary is not current.
    """
    return ja_backend_id()


def make_schema() -> Schema:
    """Filter fields, then per language a title, a stemmed body and an unstemmed companion.

    Scoring and phrases use :mod:`kb.search.postings`; Whoosh keeps the vocabulary (spelling,
    completions), so its fields store no positions.
    """
    fields: dict[str, Any] = {
        "ref": ID(stored=True, unique=True),
        "kind": ID,
        "lang": ID,
        "editions": KEYWORD,
        "number": ID,
        "canonical": ID,
    }
    for lang in ("en", "fr"):
        fields[f"title_{lang}"] = TEXT(analyzer=SpanTokenizer(lang), phrase=False)
        fields[f"body_{lang}"] = TEXT(analyzer=SpanTokenizer(lang), phrase=False)
        fields[f"plain_{lang}"] = TEXT(analyzer=SpanTokenizer(f"{lang}_plain"), phrase=False)
    fields["title_ja"] = TEXT(analyzer=SpanTokenizer("ja"), phrase=False)
    fields["body_ja"] = TEXT(analyzer=SpanTokenizer("ja"), phrase=False)
    fields["gram_ja"] = TEXT(analyzer=SpanTokenizer("ja_gram"), phrase=False)
    return Schema(**fields)


def documents(kb: KnowledgeBase, state: DocState | None = None) -> list[Doc]:
    """Every searchable node of the knowledge base, one document per distinct text.

    ``state`` (:class:`kb.search.docstate.DocState`) says which text each rule and glossary
    entry has, when the caller knows it without reading them (an incremental build)."""
    return assemble(state if state is not None else DocState.of(kb), kb)


def _fields(doc: Doc) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ref": doc.ref,
        "kind": doc.kind,
        "lang": doc.lang,
        "editions": " ".join(doc.editions),
        "number": doc.number,
        "canonical": doc.canonical,
    }
    if doc.lang == "ja":
        out.update(title_ja=doc.title, body_ja=doc.body, gram_ja=f"{doc.title}\n{doc.body}")
    elif doc.lang in LANGS:
        out[f"title_{doc.lang}"] = doc.title
        out[f"body_{doc.lang}"] = doc.body
        if doc.current:
            # The spelling vocabulary is today's: old editions only add obsolete words.
            out[f"plain_{doc.lang}"] = f"{doc.title}\n{doc.body}"
    return {k: v for k, v in out.items() if v}


#: Fields of :func:`_fields` that only the postings and ``meta.json`` use: never given to Whoosh.
IDENTITY_FIELDS = frozenset({"ref", "kind", "lang", "editions", "number", "canonical"})


def _whoosh_fields(doc: Doc, row: dict[str, Any]) -> dict[str, Any]:
    """What Whoosh keeps of a document: today's vocabulary (spelling, completions), nothing else.

    The scored fields live in the postings and a document's identity in ``meta.json``: writing
    them to Whoosh too cost most of the build (Whoosh looks for a length file at every posting
    of a field without lengths, and a document's editions alone were most of the postings).
    Every document is still added, empty if need be, so document numbers stay those of meta.json.
    The questions players ask add no word: their spellings ("résolve") are not the rules', to
    suggest or to correct towards.
    """
    if doc.kind == "ask":
        return {}
    return {
        k: v
        for k, v in row.items()
        if k not in IDENTITY_FIELDS
        and (k not in postings.FIELD_WEIGHT or (k == "body_ja" and doc.current))
    }


def index_is_current(kb: KnowledgeBase, index_dir: Path) -> bool:
    """True if ``index_dir`` holds an index of exactly this knowledge base (same content hash)."""
    meta = _head(Path(index_dir))
    if meta is None:
        return False
    return (
        bool(kb.content_hash)
        and meta.get("format") == FORMAT
        and meta.get("content_hash") == kb.content_hash
        and meta.get("ja_analyzer") == ja_backend_name()
        and (Path(index_dir) / postings.FILE).is_file()
        and whoosh_index.exists_in(str(index_dir), indexname=INDEX_NAME)
    )


def build_index(
    kb: KnowledgeBase,
    index_dir: Path,
    previous: Path | None = None,
    memo: dict[bytes, tuple[str, bytes, bytes]] | None = None,
    state: DocState | None = None,
) -> dict[str, Any]:
    """Write the index of ``kb`` into ``index_dir``; skipped if it is already current.

    ``previous`` is the folder of an earlier build's index: when it indexes exactly this
    knowledge base (same content hash, format and analyser), its files are copied instead of
    rebuilt; else its Whoosh files are copied when they hold the same vocabulary
    (:func:`vocabulary_digest`), and the rest is built again.
    ``memo`` holds the analysis of texts an earlier build analysed (see :class:`AnalysisMemo`;
    the build keeps it in its cache): they are not analysed again, and on return it holds the
    texts of this index only. ``state`` gives the rules' and glossary entries' texts (see
    :func:`documents`). Returns ``{"docs", "seconds", "bytes", "skipped"}`` (plus
    ``"reused": True`` for a copy).
    """
    started = time.perf_counter()
    index_dir = Path(index_dir)
    if index_is_current(kb, index_dir):
        return {"docs": None, "seconds": 0.0, "bytes": _size(index_dir), "skipped": True}
    if previous is not None and Path(previous) != index_dir and index_is_current(kb, previous):
        index_dir.mkdir(parents=True, exist_ok=True)
        for old in Path(previous).iterdir():
            if old.is_file() and _ours(old):
                shutil.copy2(old, index_dir / old.name)
        if index_is_current(kb, index_dir):
            return {
                "docs": None,
                "seconds": round(time.perf_counter() - started, 3),
                "bytes": _size(index_dir),
                "skipped": False,
                "reused": True,
            }
    index_dir.mkdir(parents=True, exist_ok=True)
    for old in index_dir.iterdir():
        # Only our own files: a whoosh index (toc, segments, lock) and meta.json.
        if old.is_file() and _ours(old):
            old.unlink()
    docs = documents(kb, state)
    rows = [_fields(doc) for doc in docs]
    scored: list[tuple[int, str, list[str], int]] = []
    known = AnalysisMemo(memo)
    spans = snippets.SpanWriter()
    try:
        # One analysis per text: the postings take the terms, Whoosh the remembered spans.
        for num, row in enumerate(rows):
            for name, value in row.items():
                analyzer = FIELD_ANALYZER.get(name)
                if analyzer is None:
                    continue
                whoosh = name not in postings.FIELD_WEIGHT or name == "body_ja"
                toks, starts = known.analyse(analyzer, value, whoosh)
                spans.add(num, docs[num], name, value, toks, starts)  # snippets' offsets
                if name in postings.FIELD_WEIGHT:
                    main = docs[num].main
                    if main < 0 or not name.startswith(("body_", "gram_")):
                        scored.append((num, name, toks, len(toks)))
                    else:
                        if name == "gram_ja":  # the title comes first there
                            main += len(docs[num].title) + 1
                        own = bisect_left(starts, main)  # the starts ascend
                        scored.append((num, name, toks, own))
        stop = sum(1 for d in docs if d.current)
        whoosh_rows = [_whoosh_fields(doc, row) for doc, row in zip(docs, rows, strict=True)]
        vocabulary = {"digest": vocabulary_digest(whoosh_rows), "docs": len(whoosh_rows)}
        writing = None
        if not _copy_vocabulary(previous, index_dir, vocabulary):
            from kb.base.forked import Forked

            # Whoosh writes in a child process while the postings are built here.
            writing = Forked(_write_vocabulary, index_dir, whoosh_rows)
        try:
            concepts = _concepts(kb, docs, scored)
            blob = postings.build(scored, len(docs), stop, [d.prior for d in docs])
            (index_dir / postings.FILE).write_bytes(blob)
            spans.write(index_dir, stop, _head_of(kb, vocabulary))
            prepared.write(index_dir, kb, docs, stop)  # what a searcher would compute at open
        finally:
            if writing is not None:
                writing.result()
    finally:
        forget()
    meta = {
        **_head_of(kb, vocabulary),
        "current": sum(1 for d in docs if d.current),
        "docs": [d.meta() for d in docs],
        **glossary_meta(kb, docs),
        "concepts": concepts,
        # Current rules that define a concept, for questions that only name one.
        "definitions": [n for n, d in enumerate(docs) if d.current and d.prior == DEFINITION_PRIOR],
    }
    (index_dir / META_FILE).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    head = _head_of(kb, vocabulary)
    (index_dir / HEAD_FILE).write_text(json.dumps(head, ensure_ascii=False), encoding="utf-8")
    return {
        "docs": len(docs),
        "seconds": round(time.perf_counter() - started, 3),
        "bytes": _size(index_dir),
        "skipped": False,
    }


def _head_of(kb: KnowledgeBase, vocabulary: dict[str, Any]) -> dict[str, Any]:
    """The index's head (:data:`HEAD_FILE`): what a build compares before reusing an index, and
    what ties the snippets' offsets to it (:func:`kb.search.snippets.head_key`)."""
    return {
        "format": FORMAT,
        "content_hash": kb.content_hash,
        "ja_analyzer": ja_backend_name(),
        "vocabulary": vocabulary,
    }


def vocabulary_digest(rows: list[dict[str, Any]]) -> str:
    """What the Whoosh files hold (:func:`_whoosh_fields` of every document that has any), as a
    digest that does not depend on the documents' order (Whoosh keeps only the vocabulary)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{FORMAT}|{ja_backend_name()}".encode())
    each = sorted(
        hashlib.blake2b(
            repr(sorted(row.items())).encode("utf-8", "surrogatepass"), digest_size=16
        ).digest()
        for row in rows
        if row
    )
    digest.update(b"".join(each))
    return digest.hexdigest()


def _copy_vocabulary(previous: Path | None, index_dir: Path, vocabulary: dict[str, Any]) -> bool:
    """Copy the Whoosh files of ``previous`` (an earlier build's index folder) when they hold
    this vocabulary, and add the empty documents the new index has more (an edition added to
    an archive rarely changes today's texts, but brings old texts of its own); False when they
    do not or cannot."""
    if previous is None or Path(previous) == index_dir:
        return False
    try:
        meta = _head(Path(previous))
        before = meta.get("vocabulary") if meta is not None else None
        if not isinstance(before, dict) or before.get("digest") != vocabulary["digest"]:
            return False
        more = vocabulary["docs"] - int(before["docs"])
        if more < 0:
            return False
        files = [p for p in Path(previous).iterdir() if p.suffix in (".toc", ".seg")]
        if not files:
            return False
        for old in files:
            shutil.copy2(old, index_dir / old.name)
        ix = whoosh_index.open_dir(str(index_dir), indexname=INDEX_NAME)
        try:
            if ix.doc_count_all() != int(before["docs"]):
                raise ValueError("the Whoosh files do not hold the documents meta.json says")
            if more:
                writer = ix.writer()
                for _ in range(more):
                    writer.add_document()
                writer.commit(merge=False)
        finally:
            ix.close()
    except (OSError, ValueError, KeyError, TypeError):
        for old in index_dir.iterdir():
            if old.suffix in (".toc", ".seg") or old.name.endswith("_WRITELOCK"):
                old.unlink()
        return False
    return True


def _write_vocabulary(index_dir: Path, rows: list[dict[str, Any]]) -> None:
    """The Whoosh files: one document per index document (its today's words, or none)."""
    ix = whoosh_index.create_in(str(index_dir), make_schema(), indexname=INDEX_NAME)
    writer = ix.writer(limitmb=256)
    for row in rows:
        writer.add_document(**row)
    writer.commit()
    ix.close()


class AnalysisMemo:
    """The analysis of each text (tokens, start and end offsets) by digest of analyser and text,
    so an index build analyses only the texts no earlier build did (one edition added to an
    archive brings a few hundred). The spans of a text Whoosh will index are handed to it as
    :func:`kb.search.analysis.remember` does."""

    def __init__(self, memo: dict[bytes, tuple[str, bytes, bytes]] | None) -> None:
        self.before = dict(memo) if memo is not None else {}
        self.memo = memo
        if memo is not None:
            memo.clear()  # refilled with the texts of this index only

    def analyse(self, analyzer: str, text: str, whoosh: bool) -> tuple[list[str], array[int]]:
        """Tokens and start offsets of ``text``; its spans remembered for Whoosh if ``whoosh``."""
        if self.memo is None:
            spans = remember(analyzer, text)
            return [t for t, _, _ in spans], array("l", [a for _, a, _ in spans])
        key = hashlib.blake2b(
            f"{analyzer}\x00{text}".encode("utf-8", "surrogatepass"), digest_size=16
        ).digest()
        hit = self.before.get(key)
        if hit is None:
            spans = remember(analyzer, text) if whoosh else ANALYZERS[analyzer](text)
            toks = [t for t, _, _ in spans]
            starts = array("l", [a for _, a, _ in spans])
            ends = array("l", [b for _, _, b in spans])
            hit = ("\x00".join(toks), starts.tobytes(), ends.tobytes())
        else:
            toks = hit[0].split("\x00") if hit[0] else []
            starts = array("l")
            starts.frombytes(hit[1])
            if whoosh:
                ends = array("l")
                ends.frombytes(hit[2])
                _MEMO[(analyzer, text)] = list(zip(toks, starts, ends, strict=True))
        self.memo[key] = hit
        return toks, starts


def _concepts(
    kb: KnowledgeBase, docs: list[Doc], scored: list[tuple[int, str, list[str], int]]
) -> list[list[Any]]:
    """The concept table (:func:`kb.search.understand.concept_table`) of the current English
    rules, from the terms the build already analysed."""
    titles: dict[str, str] = {}
    words: dict[str, set[str]] = {}
    for num, name, toks, _main in scored:
        doc = docs[num]
        english = doc.lang == "en" and doc.current and doc.kind in RULE_KINDS
        if english and doc.canonical and name in ("title_en", "body_en"):
            words.setdefault(doc.canonical, set()).update(toks)
    for doc in docs:
        if doc.current and doc.lang == "en" and doc.kind in RULE_KINDS and doc.canonical:
            title = doc.title[len(doc.number) :].strip()
            if title:
                titles[doc.canonical] = title
    return concept_table(kb, titles, words)


def term_key(name: str, lang: str) -> str:
    """How a glossary term and a query are compared: the unstemmed analysed words."""
    if lang == "ja":
        return normalize(name).strip().lower()
    return " ".join(terms(name, f"{lang}_plain"))


def glossary_meta(kb: KnowledgeBase, docs: list[Doc]) -> dict[str, Any]:
    """The glossary as the searcher compares it, analysed once at build time.

    ``glossary_names``: ``[lang, term key, doc]`` for each name (term or alias) of each entry, so
    a query that is a term pins its entry; ``glossary_refs``: ``[words, rules]`` for the names of
    the newest English glossary that cite rules ("mana ability" -> 605), for query expansion.
    """
    names: list[list[Any]] = []
    for num, doc in enumerate(docs):
        if doc.kind == "glossary":
            names.extend([doc.lang, term_key(n, doc.lang), num] for n in doc.names)
    refs: dict[tuple[str, ...], list[str]] = {}
    english = kb.glossary_edition("en")
    for entry in kb.glossary.get(english.id, {}).values() if english else ():
        if entry.rule_refs:
            for name in (entry.term, *entry.aliases):
                if words := tuple(terms(name, "en_plain")):
                    refs.setdefault(words, list(entry.rule_refs))
    return {
        "glossary_names": names,
        "glossary_refs": [[list(words), rules] for words, rules in refs.items()],
    }


def _head(index_dir: Path) -> dict[str, Any] | None:
    """The head of an index's ``meta.json`` (:data:`HEAD_FILE`, or ``meta.json`` itself for an
    index written before it existed); None when there is none."""
    for name in (HEAD_FILE, META_FILE):
        try:
            found = json.loads((index_dir / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            return None
        return found if isinstance(found, dict) else None
    return None


def _ours(path: Path) -> bool:
    """True for a file an index build writes: a Whoosh index (toc, segments, lock), the
    postings, the snippets' spans, meta.json and its head."""
    if path.name == prepared.FILE:  # what a searcher would compute at open
        return True
    return path.name in (META_FILE, HEAD_FILE, postings.FILE, snippets.FILE) or path.suffix in (
        ".toc",
        ".seg",
        ".pst",
    )


def _size(index_dir: Path) -> int:
    return sum(p.stat().st_size for p in Path(index_dir).iterdir() if p.is_file())
