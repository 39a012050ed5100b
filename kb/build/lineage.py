"""The concordance of one added edition, computed from the lineages it reaches rather than from
the whole archive (:class:`kb.build.patch.Patch` writes what it finds).

A full build gives each full English edition the lineage of its successor along their alignment
(:func:`kb.align.concordance.compute`), so two consecutive full editions share a lineage exactly where
they were paired, and each lineage's rules in the full editions are consecutive editions. An
edition N added between P and its successor S (none for a new newest edition) therefore changes:

- N's own lineages: S's along the alignment N..S (N's numbers when N is the newest);
- P's lineages along P..N, and with each the whole chain of older rules that ends in P: a
  *rename* of an old lineage name for the editions up to P, while S and the newer editions keep
  theirs (a chain that no longer reaches S is split there);
- the quotes and translations, placed again as the full build places them (a few dozen rules);
- the change of N's rules (against P's rule of the same lineage), of S's rules (against N's), and
  of every rule of a lineage a quote, a translation, a relinked edition or a split touches (those
  few lineages are classified again whole, from their stored comparison digests).

Every other row of the lineage table keeps its lineage, canonical number and change; nothing
reads the archive's other 180,000 rows. ``tests/test_build_incremental.py`` compares the result
with a full build of the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from kb.align import concordance
from kb.knowledge.model import Edition, KnowledgeBase, Rule

#: A stored lineage row: (lineage, canonical, change, comparison digest).
Row = tuple[str, str | None, str | None, str]


class Tables(Mapping[str, dict[str, str]]):
    """Edition -> number -> lineage, each edition loaded on first use (what placing a quote or
    a translation reads of the full editions: one or two of them)."""

    def __init__(self, load: Callable[[str], dict[str, str]], known: Iterable[str]) -> None:
        self._load = load
        self._known = set(known)
        self._tables: dict[str, dict[str, str]] = {}

    def __getitem__(self, ed_id: str) -> dict[str, str]:
        if ed_id not in self._tables:
            if ed_id not in self._known:
                raise KeyError(ed_id)
            self._tables[ed_id] = self._load(ed_id)
        return self._tables[ed_id]

    def __setitem__(self, ed_id: str, table: dict[str, str]) -> None:
        self._known.add(ed_id)
        self._tables[ed_id] = table

    def __iter__(self) -> Iterator[str]:
        return iter(self._known)

    def __len__(self) -> int:
        return len(self._known)


class Relineage:
    """The lineage table's rows that one added edition changes (see the module docstring).

    After :meth:`compute`: ``full_rows`` gives the new edition and the relinked ones every row
    (number -> :data:`Row`), ``updates`` the other rows that changed (``(edition, number)`` ->
    new row), ``touched`` every lineage name whose rules changed (old and new names)."""

    def __init__(
        self,
        db: Any,
        work: KnowledgeBase,
        new_id: str,
        rules: Mapping[str, Rule],
        relinked: Mapping[str, Mapping[str, Rule]],
    ) -> None:
        self.db = db
        self.work = work
        self.new_id = new_id
        self.rules = rules
        self.relinked = relinked
        self._stored: dict[str, dict[str, Row]] = {}
        self.full_rows: dict[str, dict[str, Row]] = {}
        self.updates: dict[tuple[str, str], Row] = {}
        self.stored_of: dict[tuple[str, str], Row] = {}
        self.touched: set[str] = set()

    # ---- what the previous database holds --------------------------------------------------
    def stored(self, ed_id: str) -> dict[str, Row]:
        """An edition's rows of the previous lineage table (once)."""
        if ed_id not in self._stored:
            self._stored[ed_id] = {
                n: (lin, canon, change, digest)
                for n, lin, canon, change, digest in self.db.all(
                    "SELECT number, lineage, canonical, change, compare FROM lineage "
                    "WHERE edition = ?",
                    (ed_id,),
                )
            }
        return self._stored[ed_id]

    def _chains(self, names: set[str]) -> list[tuple[str, str, Row]]:
        """Every stored row whose lineage is one of ``names``."""
        out = []
        wanted = sorted(names)
        for i in range(0, len(wanted), 500):
            batch = wanted[i : i + 500]
            marks = ",".join("?" * len(batch))
            out.extend(
                (ed, n, (lin, canon, change, digest))
                for ed, n, lin, canon, change, digest in self.db.all(
                    "SELECT edition, number, lineage, canonical, change, compare FROM lineage "
                    f"WHERE lineage IN ({marks})",
                    batch,
                )
            )
        return out

    # ---- the computation -------------------------------------------------------------------
    def compute(
        self,
        full: list[Edition],
        pairs_before: Mapping[str, str],
        pairs_after: Mapping[str, str] | None,
        place: Callable[[Tables], dict[str, dict[str, str]]],
    ) -> dict[str, dict[str, str]]:
        """Lineages, changes and the rows to write. ``full``: the full English editions oldest
        first (the new one included); ``pairs_before``/``pairs_after``: the alignments of the
        previous edition with the new one and of the new one with the next; ``place`` places
        the quotes and translations given every full edition's lineage (edition -> number ->
        lineage of what it placed). Returns the lineage of the three full editions around the
        new one and of what ``place`` placed."""
        ids = [e.id for e in full]
        at = ids.index(self.new_id)
        prev, nxt = ids[at - 1], (ids[at + 1] if at + 1 < len(ids) else None)
        up_to_prev = set(ids[:at])

        # The new edition's lineage, and the previous one's under its new names.
        if nxt is not None:
            after = self.stored(nxt)
            assert pairs_after is not None
            new_lin = {
                m: (after[pairs_after[m]][0] if m in pairs_after else f"{self.new_id}:{m}")
                for m in self.rules
            }
        else:
            new_lin = {m: m for m in self.rules}
        rename: dict[str, str] = {}
        prev_lin: dict[str, str] = {}
        for p, row in self.stored(prev).items():
            now = new_lin[pairs_before[p]] if p in pairs_before else f"{prev}:{p}"
            prev_lin[p] = now
            if now != row[0]:
                rename[row[0]] = now

        def renamed(ed_id: str) -> dict[str, str]:
            table = self.stored(ed_id)
            if ed_id not in up_to_prev:
                return {n: row[0] for n, row in table.items()}
            return {n: rename.get(row[0], row[0]) for n, row in table.items()}

        tables = Tables(renamed, [e.id for e in full if e.id != self.new_id])
        tables[self.new_id] = new_lin
        tables[prev] = prev_lin
        placed = place(tables)

        # Editions whose rows are recomputed whole: the quotes, translations and relinked.
        whole = set(placed) | set(self.relinked)
        lin_of: dict[str, dict[str, str]] = {ed: tables[ed] for ed in self.relinked}
        lin_of.update(placed)
        lin_of[self.new_id] = new_lin
        # Lineages classified again whole: those the recomputed rows leave or join, and the
        # chains split at the next edition (a rename of a name the next edition keeps).
        dirty: set[str] = set()
        if nxt is not None:
            kept = {row[0] for row in self.stored(nxt).values()}
            dirty.update(o for o in rename if o in kept)
        for ed in whole:
            for row in self.stored(ed).values():
                dirty.add(row[0])
                dirty.add(rename.get(row[0], row[0]))
            dirty.update(lin_of[ed].values())

        # The stored rows of the dirty and the renamed chains, under their names now.
        now_lin: dict[tuple[str, str], str] = {}
        wanted = dirty | set(rename) | {o for o, n in rename.items() if n in dirty}
        chain_rows: dict[tuple[str, str], Row] = {}
        for ed, n, row in self._chains(wanted):
            if ed in whole or ed == self.new_id:
                continue
            chain_rows[(ed, n)] = row
            now_lin[(ed, n)] = rename.get(row[0], row[0]) if ed in up_to_prev else row[0]

        # Comparison digests: stored, the new and the relinked editions' computed.
        digest_of: dict[tuple[str, str], str] = {}
        new_digest = {m: concordance.compare_digest(rule) for m, rule in self.rules.items()}
        for ed in whole:
            fresh = self.relinked.get(ed)
            for n, row in self.stored(ed).items():
                digest_of[(ed, n)] = (
                    concordance.compare_digest(fresh[n]) if fresh is not None else row[3]
                )

        # Changes of the dirty lineages, classified whole (as concordance.rule_changes does).
        change_of: dict[tuple[str, str], str] = {}
        if dirty:
            for lang in {e.lang for e in self.work.editions.values()}:
                table = []
                for ed in self.work.editions_of(lang):
                    rows: list[tuple[str, str, str]] = []
                    if ed.id == self.new_id:
                        rows = [
                            (m, lin, new_digest[m]) for m, lin in new_lin.items() if lin in dirty
                        ]
                    elif ed.id in whole:
                        rows = [
                            (n, lin, digest_of[(ed.id, n)])
                            for n, lin in lin_of[ed.id].items()
                            if lin in dirty
                        ]
                    table.append((ed.id, ed.kind == "full", rows))
                # The stored rows of the dirty chains, in their editions (order within an
                # edition does not matter: a lineage is unique there).
                at_ed = {ed_id: i for i, (ed_id, _, _) in enumerate(table)}
                for (ed, n), lin in now_lin.items():
                    if lin in dirty and ed in at_ed:
                        table[at_ed[ed]][2].append((n, lin, chain_rows[(ed, n)][3]))
                for (ed_id, _, _), found in zip(
                    table, concordance.rule_changes(table), strict=True
                ):
                    for n, change in found.items():
                        change_of[(ed_id, n)] = change

        # The new edition's other rules: against the previous edition's rule of their lineage
        # (no quote or translation has their lineage, or it would be dirty).
        prev_by_lin = {lin: p for p, lin in prev_lin.items()}
        prev_rows = self.stored(prev)
        for m, lin in new_lin.items():
            if lin in dirty:
                continue
            p = prev_by_lin.get(lin)
            if p is None:
                change_of[(self.new_id, m)] = "created"
            elif prev_rows[p][3] != new_digest[m]:
                change_of[(self.new_id, m)] = "edited"
            else:
                change_of[(self.new_id, m)] = "same" if p == m else "moved"
        # The next edition's rules of the new one's lineages: against the new rule.
        if nxt is not None:
            new_by_lin = {lin: m for m, lin in new_lin.items()}
            for x, row in self.stored(nxt).items():
                m = new_by_lin.get(row[0])
                if m is None or row[0] in dirty:
                    continue
                if new_digest[m] != row[3]:
                    change_of[(nxt, x)] = "edited"
                else:
                    change_of[(nxt, x)] = "same" if m == x else "moved"

        # The rows to write: the new and relinked editions whole, the others where they differ.
        def row_of(lin: str, change: str, digest: str) -> Row:
            return (lin, None if ":" in lin else lin, change, digest)

        self.full_rows[self.new_id] = {
            m: row_of(lin, change_of[(self.new_id, m)], new_digest[m]) for m, lin in new_lin.items()
        }
        for ed in self.relinked:
            self.full_rows[ed] = {
                n: row_of(lin, change_of[(ed, n)], digest_of[(ed, n)])
                for n, lin in lin_of[ed].items()
            }
        candidates: dict[tuple[str, str], Row] = dict(chain_rows)
        for ed in whole - set(self.relinked):
            candidates.update(((ed, n), row) for n, row in self.stored(ed).items())
        if nxt is not None:
            candidates.update(
                ((nxt, x), row)
                for x, row in self.stored(nxt).items()
                if (nxt, x) in change_of and (nxt, x) not in candidates
            )
        for (ed, n), old in candidates.items():
            lin = lin_of[ed][n] if ed in lin_of else now_lin.get((ed, n), old[0])
            new = row_of(lin, change_of.get((ed, n), old[2]), old[3])  # type: ignore[arg-type]
            if new != old:
                self.updates[(ed, n)] = new
                self.stored_of[(ed, n)] = old
                self.touched.update((old[0], lin))
        for ed, table in self.full_rows.items():
            self.touched.update(row[0] for row in table.values())
            if ed != self.new_id:
                self.touched.update(row[0] for row in self.stored(ed).values())
        out = {self.new_id: new_lin, prev: prev_lin, **placed}
        if nxt is not None:
            out[nxt] = tables[nxt]
        self.tables = tables
        return out

    def canonical_changes(self) -> dict[str, dict[str, str | None]]:
        """Edition -> number -> canonical number of every rule whose canonical number changed,
        and of every rule of the new and relinked editions."""
        out: dict[str, dict[str, str | None]] = {}
        for ed, table in self.full_rows.items():
            out[ed] = {n: row[1] for n, row in table.items()}
        for (ed, n), row in self.updates.items():
            if row[1] != self.stored_of[(ed, n)][1]:
                out.setdefault(ed, {})[n] = row[1]
        return out

    def canonical_of(self, ed_id: str) -> dict[str, str | None]:
        """Every rule of an edition with its canonical number now."""
        if ed_id in self.full_rows:
            return {n: row[1] for n, row in self.full_rows[ed_id].items()}
        out = {n: row[1] for n, row in self.stored(ed_id).items()}
        for (ed, n), row in self.updates.items():
            if ed == ed_id:
                out[n] = row[1]
        return out
