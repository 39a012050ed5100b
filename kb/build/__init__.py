"""Build: corpus files -> records -> knowledge base -> artefacts (``kb.sqlite`` and the search index).

The build reads the embedded corpus plus the paths a user added, links and aligns everything, runs
the executable examples, and publishes a new build folder of the instance atomically
(:mod:`kb.base.instance`: a pointer replaced by one rename), so a failed build leaves the previous one
intact and a running server moves to the new one on its next request. When the content hash of
every input (and of the code that builds) is unchanged, nothing is rebuilt.

Layer: may import :mod:`kb.search`, :mod:`kb.engine`, :mod:`kb.store`, :mod:`kb.history.diffs`,
:mod:`kb.align`, :mod:`kb.knowledge`, :mod:`kb.sources`, :mod:`kb.text` and :mod:`kb.base`;
the pages, the export and the CLI call it.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb import store
from kb.align import concordance
from kb.base import buildcache
from kb.base import instance as layout
from kb.base.buildcache import BuildCache
from kb.base.forked import Forked
from kb.base.instance import BuildError
from kb.base.paths import CORPUS_DIR, EXAMPLES_DIR, PACKAGE_DIR
from kb.build import cards as cardstep
from kb.build.asks import attach_asks
from kb.build.forget import without
from kb.build.glossary_pairs import pair_glossaries
from kb.build.inputs import CORPUS_FILE, check_corpus_path, remembered_paths
from kb.build.link import attach_commentary, canonicalise_refs, count, link
from kb.build.read import (
    Progress,
    assemble,
    corpus_inputs,
    display_path,
    read_all,
    read_cached,
    terminal_progress,
)
from kb.history.diffs import insert_history, kb_history_rows
from kb.knowledge.model import Edition, ExampleInfo, KnowledgeBase
from kb.sources.records import Problem, SourceError
from kb.store.published import load

FORMAT_VERSION = "2"
KB_FILE = store.DB_FILE
BUILD_FILE = "build.json"
INDEX_DIR = "index"

__all__ = [
    "BuildError",
    "BuildReport",
    "assemble",
    "attach_commentary",
    "build",
    "build_kb",
    "canonicalise_refs",
    "corpus_inputs",
    "count",
    "display_path",
    "is_stale",
    "link",
    "load",
    "read_all",
    "read_cached",
    "terminal_progress",
]

#: Knowledge bases of at least this many rules are aligned while they are linked.
SPLIT_RULES = 20_000

#: How a left-out file's problem reads in ``BuildReport.problems`` (``str(Problem)`` of an error).
LEFT_OUT_MARK = ": error: "


@dataclass
class BuildReport:
    """What a build did: counts, timings and the problems it reported."""

    instance: Path
    skipped: bool
    content_hash: str
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    editions: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """A human summary: editions, counts, references, warnings with file:line."""
        lines = []
        if self.skipped:
            lines.append(
                f"Up to date ({self.content_hash[:12]}): nothing to rebuild in {self.instance}"
            )
        else:
            lines.append(
                f"Built {self.instance} in {self.seconds:.2f} s ({self.content_hash[:12]})"
            )
        for ed in self.editions:
            lines.append(
                f"  {ed['id']:<32} {ed['kind']:<8} rules {ed['rules']:>5}  examples "
                f"{ed['examples']:>4}  glossary {ed['glossary']:>4}  unresolved refs {ed['unresolved_refs']}"
            )
        t = self.totals
        lines.append(
            f"Editions {t.get('editions', 0)}, rules {t.get('rules', 0)}, rule examples "
            f"{t.get('examples', 0)}, glossary entries {t.get('glossary', 0)}, references resolved "
            f"{t.get('refs_resolved', 0)} / unresolved {t.get('refs_unresolved', 0)}, executable "
            f"examples {t.get('engine_examples', 0)}, commentary {t.get('commentary', 0)}, "
            f"tournament rules {t.get('tournament', 0)}"
        )
        lines.extend(f"Note: {n}" for n in self.notes)
        left_out = self.left_out
        if left_out:
            lines.append(
                f"Left out {len(left_out)} file(s) that could not be read (the rest is built):"
            )
            lines.extend(f"  {p}" for p in left_out)
        warnings = [p for p in self.problems if p not in left_out]
        lines.append(f"Warnings: {len(warnings)}")
        lines.extend(f"  {p}" for p in warnings)
        return "\n".join(lines)

    @property
    def left_out(self) -> list[str]:
        """The files left out of the build, one ``file:line: error: why`` each."""
        return [p for p in self.problems if LEFT_OUT_MARK in p]


def content_hash(inputs: Iterable[tuple[Path, dict[str, Any] | None]]) -> str:
    """Hash of every input byte, the term base, the examples and the code that builds them."""
    digest = hashlib.sha256(FORMAT_VERSION.encode())
    files: list[Path] = [p for p, _ in inputs]
    files += sorted(CORPUS_DIR.glob("*.toml"))
    if EXAMPLES_DIR.is_dir():  # the examples and their translations (translations/<id>.toml)
        files += sorted(EXAMPLES_DIR.glob("**/*.md")) + sorted(EXAMPLES_DIR.glob("**/*.toml"))
    files += sorted((CORPUS_DIR / "asks").glob("*/*.toml"))  # "Players ask"
    files += sorted(PACKAGE_DIR.glob("**/*.py"))
    for path in files:
        digest.update(str(path.name).encode())
        try:
            digest.update(path.read_bytes())
        except OSError as exc:
            raise BuildError(f"{path}: cannot read: {exc.strerror}") from exc
    return digest.hexdigest()


def run_examples(kb: KnowledgeBase) -> list[str]:
    """Run every executable example; return failures (the build fails on any)."""
    from kb.engine import run_examples as run

    if not EXAMPLES_DIR.is_dir():
        return []
    failures: list[str] = []
    for res in run([EXAMPLES_DIR]):
        # An ExampleResult is an ExampleInfo plus its failures, which the knowledge base drops.
        info = ExampleInfo(
            **{name: getattr(res, name) for name in ExampleInfo.__dataclass_fields__}
        )
        info.path = display_path(res.path)
        kb.examples.append(info)
        failures.extend(res.failures)
    return failures


def build_kb(
    extra_paths: Iterable[Path] = (),
    *,
    run_examples_too: bool = True,
    progress: Progress | None = None,
    timings: dict[str, float] | None = None,
    cache: BuildCache | None = None,
) -> tuple[KnowledgeBase, list[Problem], list[str]]:
    """Read, assemble, link and align: the whole knowledge base in memory (no files written).

    Returns the knowledge base, the reader/build problems and notes on how partial texts were placed.
    With a ``cache`` (:class:`kb.base.buildcache.BuildCache`), unchanged files, editions and edition
    pairs are taken from the previous build instead of being read, linked and aligned again.
    """
    try:
        found = _build_kb(extra_paths, run_examples_too, progress, timings, cache)
    except BaseException:
        if cache is not None:
            cache.cancel()
        raise
    if cache is not None:
        cache.wait()
    return found


def _build_kb(
    extra_paths: Iterable[Path],
    run_examples_too: bool,
    progress: Progress | None,
    timings: dict[str, float] | None,
    cache: BuildCache | None,
) -> tuple[KnowledgeBase, list[Problem], list[str]]:
    from kb.knowledge.terms import load_terms, merge_harvested

    timings = timings if timings is not None else {}
    t0 = time.perf_counter()
    inputs = corpus_inputs(extra_paths)
    docs, problems = read_cached(inputs, progress, cache, background=True)
    timings["read"] = time.perf_counter() - t0
    t = time.perf_counter()
    kb = assemble(docs, problems)
    terms = load_terms(CORPUS_DIR / "terms.toml")
    pairs = [p for d in docs for p in d.term_pairs]
    # A translated glossary names its English entries: those pairs join the term base too.
    glossary_pairs, _, glossary_notes = pair_glossaries(kb, docs, problems)
    pairs += glossary_pairs
    del docs  # the records are in the knowledge base now: free them before linking (peak memory)
    kb.terms, messages = merge_harvested(terms, pairs)
    problems.extend(Problem(str(CORPUS_DIR / "terms.toml"), None, m) for m in messages)
    if progress:
        progress("linking references and terms", 1, 3)
    overrides = concordance.load_overrides(CORPUS_DIR / "concordance-overrides.toml")
    # An archive's editions are aligned by another process while this one links them.
    aligning = None
    if Forked.available() and sum(map(len, kb.rules.values())) >= SPLIT_RULES:
        aligning = Forked(_align_in_child, kb, overrides, cache, fork=True)
    try:
        link(kb, cache, background=True)
    except BaseException:
        if aligning is not None:
            aligning.cancel()
        raise
    timings["link"] = time.perf_counter() - t
    t = time.perf_counter()
    if progress:
        progress("aligning editions", 2, 3)
    aligned = None
    if aligning is not None:
        aligned, used = aligning.result()
        if cache is not None:
            cache.used.update(used)
    notes = concordance.compute(kb, overrides, cache=cache, aligned=aligned)
    from kb.align.premodern import link_pre_m10  # editions before July 2009: linked to M10 by text

    notes += link_pre_m10(kb)
    notes += glossary_notes
    canonicalise_refs(kb)
    attach_commentary(kb)
    problems.extend(attach_asks(kb))
    count(kb)
    timings["concordance"] = time.perf_counter() - t
    if run_examples_too:
        t = time.perf_counter()
        if progress:
            progress("running executable examples", 3, 3)
        failures = run_examples(kb)
        timings["examples"] = time.perf_counter() - t
        if failures:
            raise BuildError("executable examples failed:\n  " + "\n  ".join(failures))
    for problem in problems:
        problem.path = display_path(problem.path)
    kb.warnings = [str(p) for p in problems]
    return kb, problems, notes


def build(
    instance: Path,
    extra_paths: Iterable[Path] = (),
    *,
    force: bool = False,
    progress: Progress | None = None,
    run_examples_too: bool = True,
    forget: Iterable[Path | str] = (),
    cards: Path | None = None,
) -> BuildReport:
    """Build the instance (kb.sqlite, search index) unless its inputs are unchanged.

    One build of an instance runs at a time (a second one gets :class:`BuildError` at once); what
    killed builds left behind is removed first.

    Python's cyclic garbage collector is paused meanwhile: a build holds a million long-lived
    objects (rules, references, rows, documents) that every collection of the oldest generation
    walks again without finding garbage, a fifth of a full build's CPU time; what the build
    leaves is freed when it ends, or by the next collection after it.
    """
    started = time.perf_counter()
    instance = Path(instance)
    added = [check_corpus_path(p) for p in extra_paths]
    card_file = cardstep.check_cards_path(cards) if cards else None
    collecting = gc.isenabled()
    gc.disable()
    try:
        with layout.lock(instance):
            layout.clean_stale(instance)
            args = (instance, added, force, progress, run_examples_too, started, forget, card_file)
            return _build_locked(*args)
    except layout.InstanceBusy as exc:
        raise BuildError(str(exc)) from None
    finally:
        if collecting:
            gc.enable()


def _build_locked(
    instance: Path,
    added: list[Path],
    force: bool,
    progress: Progress | None,
    run_examples_too: bool,
    started: float,
    forget: Iterable[Path | str],
    card_file: Path | None = None,
) -> BuildReport:
    paths = list(dict.fromkeys([*without(remembered_paths(instance), forget), *added]))
    for p in paths:
        if not p.exists():
            raise BuildError(f"{p}: a corpus path remembered by {instance} no longer exists")
    inputs = corpus_inputs(paths)
    card_file = card_file or cardstep.remembered_cards(instance / CORPUS_FILE)
    if card_file is not None and not card_file.is_file():
        raise BuildError(f"{card_file}: the card file remembered by {instance} no longer exists")
    rules_hash = content_hash(inputs)
    cards_digest = cardstep.file_digest(card_file) if card_file else None
    digest = cardstep.combined_hash(rules_hash, cards_digest)
    current = read_build_info(instance)
    if not force and current.get("content_hash") == digest and (instance / KB_FILE).is_file():
        report = BuildReport(instance, True, digest)
        report.editions = current.get("editions", [])
        report.totals = current.get("totals", {})
        report.problems = current.get("problems", [])
        return report

    timings: dict[str, float] = {}
    cache = BuildCache(instance / layout.CACHE_DIR)
    record = {
        "inputs": input_digests(inputs),
        "code_hash": content_hash([]),
        "examples_run": run_examples_too,
        "rules_hash": rules_hash,
        "cards_file": str(card_file) if card_file else None,
        "cards_digest": cards_digest,
    }
    fallback = ""
    previous = layout.current_build(instance)
    if not force and previous is not None and current.get("rules_hash") == rules_hash:
        # Only the card file changed: its tables are written into a copy of the previous build.
        staging = layout.new_staging(instance)
        report = BuildReport(instance, False, digest, timings=timings)
        for key in ("editions", "totals"):
            setattr(report, key, current.get(key, getattr(report, key)))
        report.problems = [
            p for p in current.get("problems", []) if not cardstep.is_card_problem(p, current)
        ]
        report.notes.append("rules unchanged: only the cards were built again")
        cardstep.copy_build(previous, staging, (BUILD_FILE, CORPUS_FILE))
        cardstep.set_content_hash(staging / KB_FILE, digest)
        cardstep.into_report(report, staging / KB_FILE, card_file, cards_digest, cache, previous)
        _publish(instance, staging, report, paths, record, timings, started, cache, prune=False)
        return report
    if not force and previous is not None:
        from kb.build import incremental

        try:
            staging, report = incremental.add_edition(
                instance, previous, inputs, record, digest, cache, progress, timings
            )
        except incremental.NotIncremental as why:
            fallback = f"full build: {why}"
        else:
            cardstep.into_report(
                report, staging / KB_FILE, card_file, cards_digest, cache, previous
            )
            _publish(instance, staging, report, paths, record, timings, started, cache, prune=False)
            return report

    kb, problems, notes = build_kb(
        paths, run_examples_too=run_examples_too, progress=progress, timings=timings, cache=cache
    )
    kb.content_hash = digest
    report = BuildReport(instance, False, digest, timings=timings, notes=notes)
    if fallback:
        report.notes.insert(0, fallback)
    report.problems = [str(p) for p in problems]
    report.editions = edition_rows(kb.editions.values())
    report.totals = totals(kb)

    staging = layout.new_staging(instance)
    try:
        if progress:
            progress("writing the database and the search index", 1, 1)
        # The index is built in a child process while this one writes the database: they read
        # the same knowledge base and share nothing else (the child writes its own folder and
        # cache entries, whose names it sends back so that pruning the cache keeps them).
        # --force rebuilds the index too: a copy of the previous one would keep its damage.
        reuse = None if force else previous
        indexing = Forked(_index_in_child, kb, staging / INDEX_DIR, reuse, cache)
        history = None
        try:
            t = time.perf_counter()
            # The rule pages' history and word diffs, made from the knowledge base in memory by
            # another process while this one writes the database (the diffs are pure Python).
            history = Forked(kb_history_rows, kb, staging / KB_FILE)
            store.write(kb, staging / KB_FILE)
            insert_history(staging / KB_FILE, history.result())
            timings["save"] = time.perf_counter() - t
            t = time.perf_counter()
            stats, used = indexing.result()
        except BaseException:
            indexing.cancel()
            if history is not None:
                history.cancel()
            raise
        cache.used.update(used)
        report.notes.append(index_note(stats))
        timings["index"] = time.perf_counter() - t  # the wait for the index after the save
        cardstep.into_report(report, staging / KB_FILE, card_file, cards_digest, cache, previous)
    except BaseException:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        raise
    _publish(instance, staging, report, paths, record, timings, started, cache, prune=True)
    return report


def input_digests(inputs: Iterable[tuple[Path, dict[str, Any] | None]]) -> dict[str, str]:
    """Each input file's path -> digest of its bytes (what the next build compares to reuse this one)."""
    out = {}
    for path, _ in inputs:
        try:
            out[str(path)] = hashlib.blake2b(path.read_bytes(), digest_size=20).hexdigest()
        except OSError as exc:
            raise BuildError(f"{path}: cannot read: {exc.strerror}") from exc
    return out


def edition_rows(editions: Iterable[Edition]) -> list[dict[str, Any]]:
    """The editions as the build report lists them (by language, date and id)."""
    return [
        {"id": e.id, "lang": e.lang, "date": e.date, "kind": e.kind, **e.counts}
        for e in sorted(editions, key=lambda e: (e.lang, e.date or "", e.id))
    ]


def index_note(stats: dict[str, Any]) -> str:
    """The build summary's line about the search index (a copy of the previous build's index
    when it indexes the same knowledge base: no documents were indexed)."""
    size = f"{stats['bytes'] / 1e6:.1f} MB, {stats['seconds']:.2f} s"
    if stats.get("docs") is None:
        return f"search index: the previous build's, reused ({size})"
    return f"search index: {stats['docs']} documents, {size}"


def _publish(
    instance: Path,
    staging: Path,
    report: BuildReport,
    paths: list[Path],
    record: dict[str, Any],
    timings: dict[str, float],
    started: float,
    cache: BuildCache,
    *,
    prune: bool,
) -> None:
    """Write ``corpus.json`` and ``build.json`` into the staging folder and publish it."""
    try:
        remembered: dict[str, Any] = {"paths": [str(p) for p in paths]}
        if record.get("cards_file"):
            remembered[cardstep.CARDS_KEY] = record["cards_file"]
        (staging / CORPUS_FILE).write_text(json.dumps(remembered, indent=1), encoding="utf-8")
        report.seconds = time.perf_counter() - started
        info = {
            "content_hash": report.content_hash,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": round(report.seconds, 3),
            "timings": {k: round(v, 3) for k, v in timings.items()},
            "editions": report.editions,
            "totals": report.totals,
            "problems": report.problems,
            "notes": report.notes,
            **record,
        }
        (staging / BUILD_FILE).write_text(
            json.dumps(info, indent=1, ensure_ascii=False), encoding="utf-8"
        )
        layout.publish(instance, staging, report.content_hash)
        if prune:
            # An incremental build uses few cache entries: pruning after it would empty the cache.
            cache.prune()
    except BaseException:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        raise


def _align_in_child(
    kb: KnowledgeBase, overrides: dict[str, dict[str, str]], cache: BuildCache | None
) -> tuple[dict[str, concordance.Alignment], set[Path]]:
    """:func:`kb.align.concordance.align_editions`, and the cache entries used meanwhile."""
    aligned = concordance.align_editions(kb, overrides, cache)
    return aligned, set(cache.used) if cache is not None else set()


def _index_in_child(
    kb: KnowledgeBase, index_dir: Path, previous_build: Path | None, cache: BuildCache
) -> tuple[dict[str, Any], set[Path]]:
    """:func:`_build_index`, and the cache entries used meanwhile (for the parent's prune)."""
    stats = _build_index(kb, index_dir, previous_build, cache)
    return stats, set(cache.used)


def _build_index(
    kb: KnowledgeBase, index_dir: Path, previous_build: Path | None, cache: BuildCache
) -> dict[str, Any]:
    """The search index, reusing the previous build's where the indexer can: a copy when it
    indexes the same knowledge base, else the analysis of every text analysed before."""
    from kb.build.reindex import save_state
    from kb.search import build_index
    from kb.search.docstate import DocState

    previous = previous_build / INDEX_DIR if previous_build else None
    if previous is not None and not previous.is_dir():
        previous = None
    state = DocState.of(kb)  # kept for the next build, which may add one edition to it
    with analysis_memo(cache) as memo:
        stats = build_index(kb, index_dir, previous=previous, memo=memo, state=state)
    save_state(cache, kb.content_hash, state)
    return stats


@contextlib.contextmanager
def analysis_memo(cache: BuildCache) -> Iterator[dict[bytes, Any]]:
    """The index's analysis of each text, from the build cache and back into it."""
    from kb.search.indexer import FORMAT, ja_backend_name

    key = buildcache.digest(buildcache.code_digest("analysis"), FORMAT, ja_backend_name())
    memo = cache.get("analysis", key) or {}
    yield memo
    if memo:
        cache.put("analysis", key, memo)


def totals(kb: KnowledgeBase) -> dict[str, int]:
    """Counts over the whole knowledge base, for the build summary."""
    eds = kb.editions.values()
    return {
        "editions": len(kb.editions),
        "rules": sum(e.counts.get("rules", 0) for e in eds),
        "examples": sum(e.counts.get("examples", 0) for e in eds),
        "glossary": sum(e.counts.get("glossary", 0) for e in eds),
        "refs_resolved": sum(
            e.counts.get("refs", 0) - e.counts.get("unresolved_refs", 0) for e in eds
        ),
        "refs_unresolved": sum(e.counts.get("unresolved_refs", 0) for e in eds),
        "engine_examples": len(kb.examples),
        "commentary": len(kb.commentary),
        "tournament": len(kb.tournament),
    }


def read_build_info(instance: Path) -> dict[str, Any]:
    """``build.json`` of an instance ({} when there is none or it is unreadable)."""
    try:
        return json.loads((Path(instance) / BUILD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def is_stale(instance: Path) -> bool:
    """True when the instance is missing or its inputs changed since it was built."""
    instance = Path(instance)
    if not (instance / KB_FILE).is_file():
        return True
    try:
        inputs = corpus_inputs(remembered_paths(instance))
        now = cardstep.stale_hash(instance, content_hash(inputs), instance / CORPUS_FILE)
        return read_build_info(instance).get("content_hash") != now
    except (BuildError, SourceError):
        return True
