"""Adding one edition to a built archive: read and link that edition, align it with its
neighbours, and patch a copy of the previous build's database; the rest is reused.

The previous build's ``build.json`` lists the digest of every input file and of the code. When
the new inputs are those files unchanged plus one new full English text (M10 numbering or later,
not the oldest), the build copies ``kb.sqlite`` into the new build folder and:

- inserts the new edition's rules, references and glossary (read and linked here);
- aligns it with the previous and next full editions of its language (through the build cache);
- gives it its lineages and renames the chains of older rules that end in its predecessor
  where the new alignment says so (:mod:`kb.build.lineage`: the rows it reaches, not the
  archive's), so a renumbering in a new newest edition reaches every older rule as in a full
  build; places the partial quotes and translations again, reclassifies the changes of the
  rules whose predecessor changed, rewrites the canonical numbers that references carry where
  they moved, and replaces the comparison of the two neighbours by the two new ones;
- patches the rule pages' history of the lineages it changed from their stored entries, reusing
  every stored word diff (:func:`kb.history.patch.patch_history`);
- builds the search index from the previous build's document state plus the new edition
  (:mod:`kb.search.docstate`), in a second process (:mod:`kb.base.forked`) forked before the
  concordance and running beside the database's patch, copying the previous Whoosh files when
  today's vocabulary is the same.

The work itself is :class:`kb.build.patch.Patch`.

Anything else (a changed or vanished file, several new files, other code, editions before July
2009, a glossary that changes which terms other editions link) raises :class:`NotIncremental`,
and the caller builds in full. The result equals a full build of the same inputs
(``tests/test_build_incremental.py``); the order of build warnings is the one exception.
"""

from __future__ import annotations

import gc
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kb import store
from kb.align import concordance
from kb.base import instance as layout
from kb.base.buildcache import BuildCache
from kb.base.dbwrite import bulk_write
from kb.base.forked import Forked
from kb.build.patch import NotIncremental, Patch
from kb.build.read import read_cached
from kb.build.reindex import build_index_from
from kb.history.diffs import write_history
from kb.knowledge.model import KnowledgeBase
from kb.sources.records import Problem

Progress = Callable[[str, int, int], None]

__all__ = ["NotIncremental", "add_edition"]


def add_edition(
    instance: Path,
    previous: Path,
    inputs: list[tuple[Path, dict[str, Any] | None]],
    record: dict[str, Any],
    digest: str,
    cache: BuildCache,
    progress: Progress | None,
    timings: dict[str, float],
) -> tuple[Path, Any]:
    """Build into a new staging folder from ``previous`` plus the one new input; returns the
    folder (not yet published) and the :class:`kb.build.BuildReport`.

    Python's cyclic garbage collector is paused meanwhile: the patch and the index hold a few
    hundred thousand long-lived objects (rows, documents, postings) that each collection of
    the oldest generation walks again without finding garbage, about a tenth of the CPU time
    of adding an edition; what the build leaves is freed when it ends, or by the next
    collection after it (an incremental build's peak stays about 300 MB at archive scale)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _add_edition(instance, previous, inputs, record, digest, cache, progress, timings)
    finally:
        if collecting:
            gc.enable()


def _add_edition(
    instance: Path,
    previous: Path,
    inputs: list[tuple[Path, dict[str, Any] | None]],
    record: dict[str, Any],
    digest: str,
    cache: BuildCache,
    progress: Progress | None,
    timings: dict[str, float],
) -> tuple[Path, Any]:
    from kb.build import (
        BUILD_FILE,
        INDEX_DIR,
        KB_FILE,
        BuildReport,
        edition_rows,
        index_note,
    )

    t0 = time.perf_counter()
    path, previous_hash = _the_new_file(previous / BUILD_FILE, inputs, record)
    old_db = previous / KB_FILE
    try:
        old = store.open_kb(old_db)
    except store.StoreError as exc:
        raise NotIncremental(f"the previous database cannot be reused ({exc})") from None
    try:
        doc, problems, new_id = _the_new_edition(old, path, progress, cache)
    except BaseException:
        # Falling back to a full build: the previous build's database must not stay open (the
        # server closes a replaced build's files, and a later build deletes them).
        old.close()
        raise
    timings["read"] = time.perf_counter() - t0

    staging = layout.new_staging(instance)
    try:
        t = time.perf_counter()
        shutil.copyfile(old_db, staging / KB_FILE)
        patch = Patch(old, doc, new_id, problems, cache)
        patch.prepare()
        timings["link"] = time.perf_counter() - t
        # The search index is made from memory in a second process when there is a second core,
        # started now: it loads the previous document state while the concordance is computed
        # here, then waits for it (Patch.send_concordance), and runs beside the database's
        # patch. "save" is the patch, "index" the wait for the index after it.
        index_args = (patch.index, previous_hash, digest, staging / INDEX_DIR, previous / INDEX_DIR)
        indexing: Forked | None = None
        try:
            if Forked.available():
                patch.open_channel()
                indexing = Forked(*index_args, fork=True)  # the channel is open for a child
                patch.channel_opened()
            t = time.perf_counter()
            notes = patch.concord()
            timings["concordance"] = time.perf_counter() - t
            t = time.perf_counter()
            if progress:
                progress("writing the database and the search index", 1, 1)
            if indexing is None:
                indexing = Forked(*index_args)  # runs here and now
            else:
                patch.send_concordance()
            with bulk_write(staging / KB_FILE) as conn:
                patch.write(conn, digest)
            if patch.history_whole:  # a history table of an older format, replaced whole
                write_history(staging / KB_FILE)
            old.close()
            timings["save"] = time.perf_counter() - t
            t = time.perf_counter()
            stats = indexing.result()
        except BaseException:
            if indexing is not None:
                indexing.cancel()
            patch.close_channel()
            raise
        if stats is None:  # the cache no longer has the previous documents: from the rows
            stats = build_index_from(
                staging / KB_FILE,
                staging / INDEX_DIR,
                cache,
                None,
                None,
                previous / INDEX_DIR,
            )
        timings["index"] = time.perf_counter() - t
    except BaseException:
        old.close()
        shutil.rmtree(staging, ignore_errors=True)
        raise
    new = store.open_kb(staging / KB_FILE)
    try:
        report = BuildReport(instance, False, digest, timings=timings, notes=notes)
        report.notes.insert(0, f"incremental: {new_id} added to the previous build")
        report.notes.append(index_note(stats))
        report.problems = list(new.warnings)
        report.editions = edition_rows(new.editions.values())
        report.totals = _totals(new)
    finally:
        new.close()
    return staging, report


def _the_new_edition(
    old: KnowledgeBase, path: Path, progress: Any, cache: BuildCache | None
) -> tuple[Any, list[Problem], str]:
    """The one added file read as a dated English edition the previous build can take, with its
    problems and edition id; :class:`NotIncremental` says why not otherwise."""
    try:
        docs, problems = read_cached([(path, None)], progress, cache)
    except Exception as exc:  # the full build reports what is wrong with the file
        raise NotIncremental(f"{path.name} could not be read ({exc})") from None
    doc = docs[0] if len(docs) == 1 else None
    if doc is None or doc.kind != "cr" or doc.lang != "en" or not doc.date:
        raise NotIncremental(f"{path.name} is not one dated English edition")
    if doc.date < concordance.M10_FIRST_DATE:
        raise NotIncremental(f"{path.name} is older than the M10 numbering")
    if doc.term_pairs:
        raise NotIncremental(f"{path.name} adds terms to the term base")
    new_id = f"en-{doc.date}"
    if new_id in old.editions:
        raise NotIncremental(f"edition {new_id} is already in the build")
    if any(e.lang != "en" and e.counts.get("glossary") for e in old.editions.values()):
        # A translated glossary is paired with the glossary of the English edition it follows,
        # which a new English edition may become (kb.build.glossary_pairs).
        raise NotIncremental("the build holds a translated glossary, paired at build time")
    if any(e.numbering == concordance.PRE_M10 for e in old.editions.values()):
        raise NotIncremental("the build holds editions before July 2009")
    return doc, problems, new_id


def _the_new_file(
    build_file: Path, inputs: list[tuple[Path, dict[str, Any] | None]], record: dict[str, Any]
) -> tuple[Path, str]:
    """The one input the previous build did not have (:class:`NotIncremental` otherwise), and
    the previous build's content hash."""
    try:
        info = json.loads(build_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise NotIncremental("the previous build has no readable build.json") from None
    before = info.get("inputs")
    if not isinstance(before, dict) or info.get("code_hash") != record["code_hash"]:
        raise NotIncremental("the previous build was made by other code or data files")
    if info.get("examples_run") != record["examples_run"]:
        raise NotIncremental("the previous build ran the examples differently")
    now = record["inputs"]
    for name, value in before.items():
        if name not in now:
            raise NotIncremental(f"{Path(name).name} is no longer an input")
        if now[name] != value:
            raise NotIncremental(f"{Path(name).name} changed")
    added = [p for p, entry in inputs if str(p) not in before and entry is None]
    if len(added) != 1 or len(now) != len(before) + 1:
        raise NotIncremental(f"{len(now) - len(before)} files added, not one")
    return added[0], str(info.get("content_hash") or "")


def _totals(kb: KnowledgeBase) -> dict[str, int]:
    from kb.build import totals

    return totals(kb)
