"""What one added edition changes in a built archive (:mod:`kb.build.incremental`), computed in
memory from the previous build's database and written over a copy of it: the new edition's
rows, the lineages it reaches (:mod:`kb.build.lineage`), changes reclassified, references'
canonical numbers moved, the comparisons, the rule pages' history
(:func:`kb.history.patch.patch_history`), and the search index (:meth:`Patch.index`, from the
previous build's document state, in a process of its own beside the writing)."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb import store
from kb.align import concordance
from kb.base.buildcache import BuildCache
from kb.base.paths import CORPUS_DIR
from kb.build.lineage import Relineage
from kb.build.link import _vocabulary, attach_commentary, count, link, recanonicalise
from kb.build.read import _add_full, _link_tree, commentary_of, display_path, read_cached
from kb.build.reindex import save_state, saved_state
from kb.history.patch import patch_history
from kb.knowledge.model import Edition, GlossaryEntry, KnowledgeBase, Rule
from kb.sources.records import Problem

if TYPE_CHECKING:  # the search package is imported by the index's process only
    from kb.search.docstate import DocState


class NotIncremental(Exception):
    """The change is not one edition added to an unchanged archive (the message says why)."""


class Patch:
    """What one added edition changes, computed in memory, then written over the copied database."""

    def __init__(
        self, old: Any, doc: Any, new_id: str, problems: list[Problem], cache: BuildCache
    ) -> None:
        self.old = old
        self.new_id = new_id
        self.cache = cache
        self.problems = list(problems)
        made = KnowledgeBase()
        _add_full(made, doc, self.problems)
        _link_tree(made.rules[new_id])
        self.edition: Edition = made.editions[new_id]
        self.rules: dict[str, Rule] = made.rules[new_id]
        self.glossary: dict[str, GlossaryEntry] = made.glossary[new_id]
        #: every edition, the new one included (Edition objects of their own: fits change)
        self.editions: dict[str, Edition] = {
            e.id: Edition(**{f: getattr(e, f) for f in Edition.__dataclass_fields__})
            for e in old.editions.values()
        }
        self.editions[new_id] = self.edition
        self.terms = list(old.terms)
        self.loaded: dict[str, dict[str, Rule]] = {new_id: self.rules}
        self.relinked: list[str] = []
        #: lineages whose rule history (``kb.history``) must be written again
        self.touched: set[str] = set()
        self.history_whole = False
        #: edition -> number -> canonical number, once the concordance is done
        self.canonical: dict[str, dict[str, str | None]] = {}
        #: the pipe to the index's process (:meth:`open_channel`), and what it reads of the
        #: previous database
        self._channel: tuple[int, int] | None = None
        self._index_inputs: tuple[Any, list[Any], list[Any], list[Any], list[Any]] | None = None

    # ---- helpers ---------------------------------------------------------------------------
    def kb(self, rules: Mapping[str, Mapping[str, Rule]], glossary: Mapping[str, Any]) -> Any:
        """A knowledge base of every edition with the given rules and glossaries."""
        return KnowledgeBase(
            editions=self.editions,
            rules=dict(rules),  # type: ignore[arg-type]
            glossary=dict(glossary),  # type: ignore[arg-type]
            terms=self.terms,
        )

    def load(self, ed_id: str) -> dict[str, Rule]:
        """An old edition's rules, decoded from the previous database (once)."""
        if ed_id not in self.loaded:
            self.loaded[ed_id] = dict(self.old.rules[ed_id].items())
        return self.loaded[ed_id]

    def newest_glossaries(self, editions: Iterable[Edition]) -> dict[str, dict[str, Any]]:
        """The glossary of the newest edition having one, per language, among ``editions``."""
        out: dict[str, dict[str, Any]] = {}
        by_lang: dict[str, list[Edition]] = {}
        probe = KnowledgeBase(editions={e.id: e for e in editions})
        for e in probe.editions.values():
            by_lang.setdefault(e.lang, [])
        for lang in by_lang:
            for ed in reversed(probe.editions_of(lang)):
                if ed.id == self.new_id:
                    if self.glossary:
                        out[ed.id] = self.glossary
                        break
                    continue
                if ed.counts.get("glossary"):
                    out[ed.id] = dict(self.old.glossary[ed.id].items())
                    break
        return out

    # ---- reading and linking ---------------------------------------------------------------
    def prepare(self) -> None:
        """Link the new edition, and again every edition whose vocabulary the new one changes."""
        before = self.newest_glossaries(e for e in self.editions.values() if e.id != self.new_id)
        after = self.newest_glossaries(self.editions.values())
        old_kb = KnowledgeBase(
            editions={k: e for k, e in self.editions.items() if k != self.new_id},
            glossary=before,  # type: ignore[arg-type]
            terms=self.terms,
        )
        new_kb = self.kb({}, after)
        if _english_view(old_kb, self.terms) != _english_view(new_kb, self.terms):
            raise NotIncremental(
                f"the glossary of {self.new_id} changes which glossary entry names a term"
            )
        for ed in self.editions.values():
            if ed.id == self.new_id or ed.counts.get("glossary"):
                continue  # an edition with its own glossary keeps its vocabulary (view above)
            gl_before = _newest_of(old_kb, ed.lang)
            gl_after = _newest_of(new_kb, ed.lang)
            if _vocabulary(old_kb, ed.lang, gl_before) != _vocabulary(new_kb, ed.lang, gl_after):
                self.relinked.append(ed.id)
        tables = {ed_id: self.load(ed_id) for ed_id in [self.new_id, *self.relinked]}
        glossary = dict(after)
        glossary[self.new_id] = self.glossary
        link(self.kb(tables, glossary), self.cache)

    # ---- the concordance -------------------------------------------------------------------
    def concord(self) -> list[str]:
        """Lineage, change and canonical number of the rules the new edition reaches
        (:class:`kb.build.lineage.Relineage`); the new comparisons."""
        notes: list[str] = []
        overrides = concordance.load_overrides(CORPUS_DIR / "concordance-overrides.toml")
        work = self.kb({}, {})
        english = [e for e in work.editions_of("en") if not concordance.mark_pre_m10(e)]
        full = [e for e in english if e.kind == "full"]
        at = [e.id for e in full].index(self.new_id)
        if at == 0:
            raise NotIncremental(f"{self.new_id} is the oldest full edition of its language")
        self.prev = full[at - 1].id
        self.next = full[at + 1].id if at + 1 < len(full) else None
        reference = full[-1]

        tables = {self.new_id: self.rules, self.prev: self.load(self.prev)}
        if self.next:
            tables[self.next] = self.load(self.next)
        align_kb = self.kb(tables, {})

        def pairs(older: str, newer: str) -> dict[str, str]:
            key = f"{older}..{newer}"
            return concordance._aligned(
                align_kb, older, newer, overrides.get(key, {}), self.cache
            ).pairs

        def place(lineage: Any) -> dict[str, dict[str, str]]:
            # Quotes and translations, placed as concordance.compute places them.
            part_kb = self._partial_kb(english, full, reference)
            placed: dict[str, dict[str, str]] = {}
            for ed in english:
                if ed.kind == "full" or ed.id == reference.id:
                    continue
                placed[ed.id] = lineage[ed.id] = concordance._place_partial(
                    part_kb, ed, full, reference, lineage, overrides, notes
                )
            for ed in work.editions.values():
                if ed.lang != "en":
                    placed[ed.id] = lineage[ed.id] = concordance._place_translation(
                        part_kb, ed, english, reference, lineage, notes
                    )
            return placed

        relinked = {ed_id: self.loaded[ed_id] for ed_id in self.relinked}
        self.relineage = Relineage(self.old._db, work, self.new_id, self.rules, relinked)
        lineage = self.relineage.compute(
            full,
            pairs(self.prev, self.new_id),
            pairs(self.new_id, self.next) if self.next else None,
            place,
        )
        self.touched = set(self.relineage.touched)
        self.canonical = self.relineage.canonical_changes()

        # The comparisons that involve the new edition (its neighbours' rules carry their lineage).
        rows = self.relineage.full_rows[self.new_id]
        for ed_id, rules in tables.items():
            for n, rule in rules.items():
                rule.lineage = lineage[ed_id][n]
                rule.canonical = None if ":" in rule.lineage else rule.lineage
                if ed_id == self.new_id:
                    rule.change = rows[n][2]
        self.spans = {
            f"{self.prev}..{self.new_id}": concordance.diff_editions(
                align_kb, self.prev, self.new_id
            )
        }
        if self.next:
            span = f"{self.new_id}..{self.next}"
            self.spans[span] = concordance.diff_editions(align_kb, self.new_id, self.next)
        return notes

    def _index_view(self) -> KnowledgeBase:
        """What the search index reads besides the document state: every edition, the newest
        glossary of each language, commentary, tournament rules, examples and terms (taken
        from the previous database by :meth:`open_channel` or :meth:`index`, before the index
        may run in a process of its own, which must not share the database's files)."""
        if self._index_inputs is None:
            self._index_inputs = self._read_index_inputs()
        glossary, commentary, tournament, examples, asks = self._index_inputs
        return KnowledgeBase(
            editions=dict(self.editions),
            glossary=glossary,  # type: ignore[arg-type]
            commentary=commentary,
            tournament=tournament,
            terms=self.terms,
            examples=examples,
            asks=asks,
        )

    def _read_index_inputs(self) -> tuple[Any, list[Any], list[Any], list[Any], list[Any]]:
        return (
            self.newest_glossaries(self.editions.values()),
            list(self.old.commentary),
            list(self.old.tournament),
            list(self.old.examples),
            list(self.old.asks),
        )

    # ---- the index's process ---------------------------------------------------------------
    def open_channel(self) -> None:
        """Before the index's process is forked: the pipe that will carry the concordance to
        it, and what it reads of the previous database."""
        self._index_inputs = self._read_index_inputs()
        self._channel = os.pipe()

    def channel_opened(self) -> None:
        """In this process, once the index's one is forked: its reading end is not ours."""
        if self._channel is not None:
            os.close(self._channel[0])

    def send_concordance(self) -> None:
        """Hand the index's process what the concordance decided that the index reads: the
        canonical numbers that changed and each edition's fits (where an undated quote stands)."""
        if self._channel is None:
            return
        data = pickle.dumps(
            {"canonical": self.canonical, "fits": {e.id: e.fits for e in self.editions.values()}},
            protocol=pickle.HIGHEST_PROTOCOL,
        )
        write = self._channel[1]
        self._channel = None
        try:
            with os.fdopen(write, "wb") as out:
                out.write(data)
        except BrokenPipeError:
            pass  # the index's process ended early: its result says why

    def close_channel(self) -> None:
        """The writing end closed (a failed build): the index's process, if waiting, ends."""
        if self._channel is not None:
            with contextlib.suppress(OSError):
                os.close(self._channel[1])
            self._channel = None

    def _receive_concordance(self) -> None:
        """In the index's process: wait for :meth:`send_concordance` (nothing to wait for when
        the index runs in this process, after the concordance)."""
        if self._channel is None:
            return
        read, write = self._channel
        self._channel = None
        os.close(write)
        with os.fdopen(read, "rb") as handle:
            data = handle.read()
        if not data:
            raise RuntimeError("the build ended before its concordance was computed")
        found = pickle.loads(data)
        self.canonical = found["canonical"]
        for ed_id, fits in found["fits"].items():
            self.editions[ed_id].fits = fits
        for n, canon in self.canonical.get(self.new_id, {}).items():
            self.rules[n].canonical = canon

    def _partial_kb(
        self, english: list[Edition], full: list[Edition], reference: Edition
    ) -> KnowledgeBase:
        """The quotes and translations with what placing them reads: the rules of the full
        editions that have their numbers, and the reference edition whole."""
        quotes = [e.id for e in english if e.kind != "full" and e.id != reference.id]
        quotes += [e.id for e in self.editions.values() if e.lang != "en"]
        rules: dict[str, dict[str, Rule]] = {q: self.load(q) for q in quotes}
        wanted = sorted({n for q in quotes for n in rules[q]})
        for ed in full:
            if ed.id in self.loaded:
                rules[ed.id] = self.loaded[ed.id]
            else:
                rules[ed.id] = {}
        if wanted:
            marks = ",".join("?" * len(wanted))
            for ed_id, number, lang, kind, text in self.old._db.all(
                f"SELECT edition, number, lang, kind, text FROM rules WHERE number IN ({marks})",
                wanted,
            ):
                if ed_id in rules and ed_id not in self.loaded:
                    rules[ed_id][number] = Rule(ed_id, lang, number, kind, text)
        if any(e.kind != "full" and e.lang == "en" and e.id != reference.id for e in english):
            rules[reference.id] = self.load(reference.id)
        return self.kb(rules, {})

    # ---- writing ---------------------------------------------------------------------------
    def write(self, conn: sqlite3.Connection, digest: str) -> None:
        """Patch the copied database: the new edition, lineage, references, comparisons ..."""
        whole = self.relineage.full_rows
        # The new and the relinked editions, written whole.
        for ed_id in [self.new_id, *self.relinked]:
            table = self.loaded[ed_id]
            rows = whole[ed_id]
            canonical = {n: row[1] for n, row in rows.items()}
            for rule in table.values():
                rule.lineage, rule.canonical, rule.change, _ = rows[rule.number]
                for ref in [*rule.refs, *(r for refs in rule.example_refs for r in refs)]:
                    ref.canonical = canonical.get(ref.number)
            if ed_id != self.new_id:
                conn.execute("DELETE FROM rules WHERE edition = ?", (ed_id,))
                conn.execute("DELETE FROM refs WHERE edition = ?", (ed_id,))
            store.write_edition_rules(conn, ed_id, table)
        new_canonical = {n: row[1] for n, row in whole[self.new_id].items()}
        for entry in self.glossary.values():
            for ref in entry.refs:
                ref.canonical = new_canonical.get(ref.number)
        store.write_edition_glossary(conn, self.new_id, self.glossary)

        # Lineage rows: the new edition's, the relinked ones', and every old row that changed
        # (their lineages' history is written again, under the old name and the new).
        conn.executemany(
            "INSERT INTO lineage VALUES (?,?,?,?,?,?)",
            [(self.new_id, n, *row) for n, row in whole[self.new_id].items()],
        )
        updates = [(*row, ed_id, n) for ed_id in self.relinked for n, row in whole[ed_id].items()]
        moved: dict[str, dict[str, str | None]] = {}
        stored = self.relineage.stored_of
        for (ed_id, n), row in self.relineage.updates.items():
            updates.append((*row, ed_id, n))
            if row[1] != stored[(ed_id, n)][1]:
                moved.setdefault(ed_id, {})[n] = row[1]
        conn.executemany(
            "UPDATE lineage SET lineage = ?, canonical = ?, change = ?, compare = ? "
            "WHERE edition = ? AND number = ?",
            updates,
        )
        recanonicalise(conn, moved)

        # Editions: places in time, the quotes' fits, the new edition's counts.
        count(
            KnowledgeBase(
                editions={self.new_id: self.edition},
                rules={self.new_id: self.rules},
                glossary={self.new_id: self.glossary},
            )
        )
        work = self.kb({}, {})
        ordered = sorted(work.editions.values(), key=lambda e: (work.sort_date(e), e.id))
        e = self.edition
        # Its position and fits are set with every edition's just below.
        conn.execute(
            "INSERT INTO editions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", store.edition_row(e, 0)
        )
        conn.executemany(
            "UPDATE editions SET position = ?, fits = ? WHERE id = ?",
            [
                (i, json.dumps(ed.fits, ensure_ascii=False, separators=(",", ":")), ed.id)
                for i, ed in enumerate(ordered)
            ],
        )

        # Comparisons: the neighbours' one replaced by the two new ones, in the same place.
        spans = [s for (s,) in conn.execute("SELECT span FROM comparisons ORDER BY position")]
        old_span = f"{self.prev}..{self.next}" if self.next else None
        new_spans = list(self.spans)
        if old_span in spans:
            at = spans.index(old_span)
            spans[at : at + 1] = new_spans
            conn.execute("DELETE FROM comparisons WHERE span = ?", (old_span,))
            conn.execute("DELETE FROM changes WHERE span = ?", (old_span,))
        else:
            ends = [i for i, s in enumerate(spans) if s.endswith(f"..{self.prev}")]
            at = ends[-1] + 1 if ends else len(spans)
            spans[at:at] = new_spans
        conn.execute("DELETE FROM comparisons")
        conn.executemany(
            "INSERT INTO comparisons VALUES (?,?,?,?)",
            [(span, i, *span.split("..", 1)) for i, span in enumerate(spans)],
        )
        conn.executemany(
            "INSERT INTO changes VALUES (?,?,?,?,?)",
            [
                (span, i, c.change, c.old, c.new)
                for span, changes in self.spans.items()
                for i, c in enumerate(changes)
            ],
        )
        self._history(conn, ordered)
        self._commentary(conn)
        start = conn.execute("SELECT coalesce(max(position) + 1, 0) FROM warnings").fetchone()[0]
        for problem in self.problems:
            problem.path = display_path(problem.path)
        conn.executemany(
            "INSERT INTO warnings VALUES (?,?)",
            [(start + i, str(p)) for i, p in enumerate(self.problems)],
        )
        conn.execute("UPDATE meta SET value = ? WHERE key = 'content_hash'", (digest,))

    def index(
        self, previous_hash: str, digest: str, index_dir: Path, previous_index: Path
    ) -> dict[str, Any] | None:
        """Build the search index from the previous build's document state and this patch, and
        keep the new state; None (nothing written) when the cache no longer has the old one.

        Runs in a process of its own when there is a second core (:class:`kb.base.forked.Forked`),
        forked before the concordance: it loads the previous state and analyses meanwhile, then
        waits for :meth:`send_concordance`. It reads only what :meth:`open_channel` took from the
        previous database, and files."""
        import kb.search.indexer  # noqa: F401  (imported while the concordance is computed)
        from kb.build import analysis_memo
        from kb.search import build_index

        state = saved_state(self.cache, previous_hash)
        with analysis_memo(self.cache) as memo:
            self._receive_concordance()
            if state is None:
                return None
            state = self._updated(state)
            view = self._index_view()
            view.content_hash = digest
            stats = build_index(view, index_dir, previous_index, memo=memo, state=state)
        save_state(self.cache, digest, state)
        return stats

    def _updated(self, state: DocState) -> DocState:
        """The previous build's document state (:mod:`kb.search.docstate`) with the new edition
        and the new canonical numbers."""
        state.add_edition(self.new_id, self.rules, self.glossary)
        if state.recanonicalise(self.canonical) * 4 > len(state.texts):
            state = state.compact()  # texts no rule has any more: dropped once they add up
        return state

    def _history(self, conn: sqlite3.Connection, ordered: list[Edition]) -> None:
        """The rule pages' history (:mod:`kb.history.diffs`) of the lineages the patch changed,
        patched from the stored entries (:func:`kb.history.patch.patch_history`)."""
        rel = self.relineage
        rows: dict[tuple[str, str], tuple[str | None, str, str | None]] = {}
        for n, row in rel.full_rows[self.new_id].items():
            rows[(self.new_id, n)] = (None, row[0], row[2])
        for ed_id in self.relinked:
            stored = rel.stored(ed_id)
            for n, row in rel.full_rows[ed_id].items():
                rows[(ed_id, n)] = (stored[n][0], row[0], row[2])
        for (ed_id, n), row in rel.updates.items():
            rows[(ed_id, n)] = (rel.stored_of[(ed_id, n)][0], row[0], row[2])
        # An edition placed elsewhere in time (a quote whose fits changed): its rules move.
        before = list(self.old.editions)
        after = [e.id for e in ordered if e.id != self.new_id]
        if before != after:
            full = {e.id for e in ordered if e.kind == "full"}
            if [e for e in before if e in full] != [e for e in after if e in full]:
                self.history_whole = True
                return
            for ed_id in set(before) - full:
                for n, row in rel.stored(ed_id).items():
                    now = rel.updates.get((ed_id, n), row)
                    rows.setdefault((ed_id, n), (row[0], now[0], now[2]))
        try:
            patch_history(
                conn,
                rows,
                {ed.id: i for i, ed in enumerate(ordered)},
                {ed.id: ed.lang for ed in ordered},
                [self.new_id, *self.relinked],
            )
        except ValueError:
            self.history_whole = True

    def _commentary(self, conn: sqlite3.Connection) -> None:
        """Commentary points at canonical rules: placed again from its unmapped numbers."""
        from kb.build.read import corpus_inputs

        embedded = [(p, entry) for p, entry in corpus_inputs() if entry is not None]
        docs, _ = read_cached(embedded, None, self.cache)
        raw = [c for d in docs if d.kind == "commentary" for c in commentary_of(d)]
        sources = {c.source for c in raw}
        rules: dict[str, dict[str, Rule]] = {}
        for ed in self.editions.values():
            if sources & set(ed.sources):
                rules[ed.id] = {
                    n: Rule(ed.id, ed.lang, n, "rule", "", canonical=canon)
                    for n, canon in self.relineage.canonical_of(ed.id).items()
                }
        ckb = self.kb(rules, {})
        ckb.commentary = raw
        attach_commentary(ckb)
        conn.executemany(
            "UPDATE commentary SET about_rules = ? WHERE id = ?",
            [
                (json.dumps(c.about_rules, ensure_ascii=False, separators=(",", ":")), c.id)
                for c in raw
            ],
        )


def _newest_of(kb: KnowledgeBase, lang: str) -> dict[str, Any] | None:
    newest = kb.glossary_edition(lang)
    return kb.glossary[newest.id] if newest else None


def _english_view(kb: KnowledgeBase, terms: list[Any]) -> list[tuple[str | None, bool]]:
    """What the newest English glossary decides for other editions' vocabularies: per term, the
    first English name it has, and whether that entry is a redirect."""
    from kb.build.link import _is_redirect

    english = _newest_of(kb, "en") or {}
    view = []
    for term in terms:
        name = next((n.lower() for n in term.en if n.lower() in english), None)
        view.append((name, _is_redirect(english[name]) if name else False))
    return view
