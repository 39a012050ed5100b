"""Reading a build's inputs and assembling them: corpus files -> records -> editions, rules,
glossary, commentary and tournament rules (not yet linked), with the build cache of parsed files."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kb.align import concordance
from kb.base import buildcache
from kb.base.buildcache import BuildCache
from kb.base.instance import BuildError
from kb.base.paths import CORPUS_DIR
from kb.knowledge.model import (
    Commentary,
    Edition,
    GlossaryEntry,
    KnowledgeBase,
    Rule,
    TournamentRule,
    ancestor_numbers,
    number_order,
)
from kb.knowledge.model import parsed_number as parse_number  # parsed once per distinct number
from kb.sources.records import Problem, SourceDoc, SourceError
from kb.text.rulenum import try_parse

Progress = Callable[[str, int, int], None]


def corpus_inputs(extra_paths: Iterable[Path] = ()) -> list[tuple[Path, dict[str, Any] | None]]:
    """The embedded corpus (with manifest entries) and the added files, in reading order."""
    from kb.sources.registry import iter_corpus_files, load_manifest

    manifest = load_manifest(CORPUS_DIR)
    inputs: list[tuple[Path, dict[str, Any] | None]] = []
    for name, entry in sorted(manifest.items()):
        inputs.append((CORPUS_DIR / "sources" / name, entry))
    seen = {p.resolve() for p, _ in inputs}
    for extra in extra_paths:
        for path in iter_corpus_files(Path(extra)):
            if path.resolve() not in seen:
                seen.add(path.resolve())
                inputs.append((path, None))
    return inputs


#: Inputs of at least this many bytes are read by two processes (the second half forked).
SPLIT_BYTES = 16_000_000


def read_all(
    inputs: list[tuple[Path, dict[str, Any] | None]],
    progress: Progress | None = None,
    *,
    other_added: int = 0,
) -> tuple[list[SourceDoc], list[Problem]]:
    """Read every input with its reader.

    An added file that cannot be read (damaged, binary, of no known format) is left out: its
    problem (severity "error", file and line) is reported and the rest builds. The build stops
    with :class:`BuildError` only when a file of the embedded corpus fails, or when every added
    file does (nothing the user asked for could be read; ``other_added`` counts added files read
    elsewhere, e.g. taken from the build cache).

    Many inputs (an archive: :data:`SPLIT_BYTES`) are read by two processes, the later files in
    a forked child (:class:`kb.base.forked.Forked`, which reads them here when it cannot fork):
    the readers are pure Python, and the documents come back in the inputs' order either way.
    """
    from kb.base.forked import Forked

    half = _half(inputs) if Forked.available() else None
    if half is None:
        docs, problems, added, failed = _read_part(inputs, progress)
    else:
        child = Forked(_read_part, inputs[half:], None, fork=True)
        try:
            docs, problems, added, failed = _read_part(inputs[:half], progress)
        except BaseException:
            child.cancel()
            raise
        more, more_problems, more_added, more_failed = child.result()
        docs += more
        problems += more_problems
        added += more_added
        failed += more_failed
    if failed and failed == added and not other_added:
        # Name every file that failed (each with its line), not only the first.
        unread = [_where(p) for p in problems if p.severity == "error"]
        head = (
            f"none of the {len(unread)} files added could be read:\n  " if len(unread) > 1 else ""
        )
        raise BuildError(head + "\n  ".join(unread))
    return docs, problems


def _half(inputs: list[tuple[Path, dict[str, Any] | None]]) -> int | None:
    """Where to split the inputs into two halves of about equal bytes (None: read them in one
    process, too few bytes to be worth a second)."""
    sizes = []
    for path, _ in inputs:
        try:
            sizes.append(path.stat().st_size)
        except OSError:
            sizes.append(0)  # the reader reports it
    total = sum(sizes)
    if total < SPLIT_BYTES or len(inputs) < 2:
        return None
    seen = 0
    for i, size in enumerate(sizes):
        seen += size
        if seen * 2 >= total:
            return max(1, min(i + 1, len(inputs) - 1))
    return None


def _read_part(
    inputs: list[tuple[Path, dict[str, Any] | None]], progress: Progress | None
) -> tuple[list[SourceDoc], list[Problem], int, int]:
    """Read inputs: the documents, the problems, how many were added files and how many of
    those could not be read."""
    from kb.sources.registry import read_source

    docs: list[SourceDoc] = []
    problems: list[Problem] = []
    added = failed = 0
    for i, (path, entry) in enumerate(inputs, 1):
        if progress:
            progress(f"reading {path.name}", i, len(inputs))
        added += entry is None
        try:
            got = read_source(path, entry)
        except SourceError as exc:
            if entry is not None:
                raise BuildError(_where(exc.problem)) from exc
            failed += 1
            problems.append(exc.problem)
            continue
        for doc in got:
            problems.extend(doc.problems)
        docs.extend(got)
    return docs, problems, added, failed


def read_cached(
    inputs: list[tuple[Path, dict[str, Any] | None]],
    progress: Progress | None = None,
    cache: BuildCache | None = None,
    *,
    background: bool = False,
) -> tuple[list[SourceDoc], list[Problem]]:
    """:func:`read_all`, taking each file whose bytes (and reader code) are unchanged from the
    cache instead of reading it again. ``background``: the caller waits for the cache's
    background writes (:meth:`BuildCache.wait`), so many new entries may be written by a
    forked process."""
    if cache is None or cache.folder is None:
        return read_all(inputs, progress)
    code = buildcache.code_digest("docs")
    keys: list[str] = []
    for path, entry in inputs:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise BuildError(f"{path}: cannot read: {exc.strerror}") from exc
        keys.append(buildcache.digest(str(path), repr(sorted((entry or {}).items())), code, data))
    found = [cache.get("docs", key) for key in keys]
    missing = [inp for inp, got in zip(inputs, found, strict=True) if got is None]
    fresh: dict[str, list[SourceDoc]] = {str(path): [] for path, _ in missing}
    left_out: list[Problem] = []
    if missing:
        cached_added = sum(
            entry is None for (_, entry), got in zip(inputs, found, strict=True) if got is not None
        )
        docs, problems = read_all(missing, progress, other_added=cached_added)
        for doc in docs:
            if doc.path not in fresh:  # a reader named its document otherwise: no caching
                return read_all(inputs, progress)
            fresh[doc.path].append(doc)
        # A file left out (damaged, unknown format) yields no document: report it, never cache it.
        read = {doc.path for doc in docs}
        left_out = [p for p in problems if str(p.path) not in read]
    out: list[SourceDoc] = []
    entries: list[tuple[str, list[SourceDoc]]] = []
    for (path, _), key, got in zip(inputs, keys, found, strict=True):
        if got is None:
            got = fresh[str(path)]
            if not got:
                continue
            entries.append((key, got))
        out.extend(got)
    cache.put_many("docs", entries, len(entries), background)
    return out, [*left_out, *(p for doc in out for p in doc.problems)]


def _where(problem: Problem) -> str:
    line = f":{problem.line}" if problem.line else ""
    return f"{display_path(problem.path)}{line}: {problem.message}"


def assemble(docs: list[SourceDoc], problems: list[Problem]) -> KnowledgeBase:
    """Records -> editions, rules, glossary, commentary and tournament rules (not yet linked)."""
    kb = KnowledgeBase()
    full = {f"{d.lang}-{d.date}": d for d in docs if d.kind == "cr" and d.date}
    quote_editions: dict[str, str] = {}  # path of a multi-part page -> id of its English quote
    for doc in sorted(docs, key=lambda d: (d.kind != "cr", d.lang != "en")):
        if doc.kind == "cr":
            _add_full(kb, doc, problems)
        elif doc.kind == "cr-partial":
            ed_id = f"{doc.lang}-{doc.date}" if doc.date else f"{doc.lang}-{Path(doc.path).stem}"
            if ed_id in full and full[ed_id] is not doc:
                _check_quote(kb.rules.get(ed_id, {}), doc, problems)
                kb.editions[ed_id].sources.append(doc.path)
                continue
            _add_partial(kb, ed_id, doc, problems)
            if doc.lang == "en":
                quote_editions[doc.path] = ed_id
    for doc in docs:
        if doc.kind == "commentary":
            kb.commentary.extend(commentary_of(doc))
        elif doc.kind == "mtr":
            titles = section_titles(doc)
            for t in doc.tournament:
                kb.tournament.append(
                    TournamentRule(
                        id=f"{doc.lang}-{t.key}",
                        lang=doc.lang,
                        section=t.section,
                        text=t.text,
                        source=doc.path,
                        line=t.line,
                        flags=list(t.flags),
                        title=titles.get(t.section, ""),
                    )
                )
    # A translation quoted beside its English original (seed 000) translates that quote.
    for ed in kb.editions.values():
        if ed.lang != "en" and ed.translates is None:
            src = ed.sources[0] if ed.sources else ""
            ed.translates = quote_editions.get(src)
    for ed_id in kb.rules:
        _link_tree(kb.rules[ed_id])
    return kb


#: A document title that restates its section ("Raccourcis de tournoi (MTR 4.2)"): the section is
#: shown beside the title already.
_SECTION_SUFFIX = re.compile(r"\s*\((?:MTR|TR)\s*[\d.]+\)\s*$")


def section_titles(doc: SourceDoc) -> dict[str, str]:
    """Each tournament section's name: its heading record where the text has headings (the
    English MTR), else the title of a document holding one section only (the manifest's title
    of the French 4.2 bullets, without a restated section number)."""
    titles = {t.section: t.text for t in doc.tournament if "heading" in t.flags}
    sections = {t.section for t in doc.tournament}
    if len(sections) == 1 and doc.title:
        (section,) = sections
        titles.setdefault(section, _SECTION_SUFFIX.sub("", doc.title).strip())
    return titles


def commentary_of(doc: SourceDoc) -> list[Commentary]:
    """The commentary paragraphs of a wiki page, as the knowledge base keeps them (the full and
    the incremental build both place them)."""
    return [
        Commentary(
            id=f"{Path(doc.path).stem}-{c.key}",
            lang=doc.lang,
            text=c.text,
            source=doc.path,
            line=c.line,
            heading=c.heading,
            about_rules=list(c.about_rules),
            about_terms=list(c.about_terms),
        )
        for c in doc.commentary
    ]


def _add_full(kb: KnowledgeBase, doc: SourceDoc, problems: list[Problem]) -> None:
    ed_id = f"{doc.lang}-{doc.date}"
    if ed_id in kb.editions:
        from kb.sources.registry import duplicate_edition

        problems.append(duplicate_edition(ed_id, kb.editions[ed_id].sources[0], doc))
        return
    kb.editions[ed_id] = Edition(
        id=ed_id,
        lang=doc.lang,
        date=doc.date,
        kind="full",
        numbering=f"en-{doc.translates}" if doc.lang != "en" and doc.translates else ed_id,
        sources=[doc.path],
        version=doc.version,
        translates=f"en-{doc.translates}" if doc.translates else None,
        title=doc.title or "",
    )
    kb.rules[ed_id] = _rules(ed_id, doc, problems)
    kb.glossary[ed_id] = _glossary(ed_id, doc, problems)


def _add_partial(kb: KnowledgeBase, ed_id: str, doc: SourceDoc, problems: list[Problem]) -> None:
    if ed_id not in kb.editions:
        kb.editions[ed_id] = Edition(
            id=ed_id,
            lang=doc.lang,
            date=doc.date,
            kind="partial",
            numbering=doc.numbering,
            sources=[],
            version=doc.version,
            translates=f"en-{doc.translates}" if doc.translates else None,
            title=doc.title or "",
        )
        kb.rules[ed_id] = {}
        kb.glossary[ed_id] = {}
    kb.editions[ed_id].sources.append(doc.path)
    table = kb.rules[ed_id]
    for number, rule in _rules(ed_id, doc, problems).items():
        first = table.setdefault(number, rule)
        # Parts of one text overlap (excerpts of a translation): a rule given twice is one rule,
        # but two different texts for it are reported.
        if first is not rule and (first.title, first.text) != (rule.title, rule.text):
            problems.append(
                Problem(
                    doc.path,
                    rule.line,
                    f"rule {number} differs from the one of {Path(first.source).name}:"
                    f"{first.line}; kept that one",
                )
            )
        elif first is not rule and len(rule.examples) > len(first.examples):
            first.examples = rule.examples  # an excerpt that stops before the rule's examples
    for key, entry in _glossary(ed_id, doc, problems).items():
        kb.glossary[ed_id].setdefault(key, entry)


def _rules(ed_id: str, doc: SourceDoc, problems: list[Problem]) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for rec in doc.rules:
        num = parse_number(rec.number)
        if num is None:
            problems.append(Problem(doc.path, rec.line, f"not a rule number: {rec.number!r}"))
            continue
        key = str(num)
        if key in table:
            problems.append(
                Problem(
                    doc.path,
                    rec.line,
                    f"duplicate rule {key} (first at line {table[key].line}); kept the first",
                )
            )
            continue
        table[key] = Rule(
            edition=ed_id,
            lang=doc.lang,
            number=key,
            kind=("section", "rule", "subrule", "subrule")[num.depth],
            text=rec.text,
            title=rec.title,
            examples=list(rec.examples),
            source=doc.path,
            line=rec.line,
            flags=list(rec.flags),
        )
    return table


def _glossary(ed_id: str, doc: SourceDoc, problems: list[Problem]) -> dict[str, GlossaryEntry]:
    table: dict[str, GlossaryEntry] = {}
    for rec in doc.glossary:
        key = rec.term.strip().lower()
        if key in table:
            problems.append(
                Problem(
                    doc.path, rec.line, f"duplicate glossary entry {rec.term!r}; kept the first"
                )
            )
            continue
        table[key] = GlossaryEntry(
            edition=ed_id,
            lang=doc.lang,
            key=key,
            term=rec.term,
            definition=rec.definition,
            aliases=list(rec.aliases),
            obsolete=rec.obsolete,
            see=list(rec.see),
            rule_refs=list(rec.rule_refs),
            source=doc.path,
            line=rec.line,
        )
    return table


def _check_quote(full: dict[str, Rule], doc: SourceDoc, problems: list[Problem]) -> None:
    """A quote of an edition that is present in full: report where it differs, keep the full text."""
    for rec in doc.rules:
        num = try_parse(rec.number)
        rule = full.get(str(num)) if num else None
        if rule is None:
            problems.append(
                Problem(doc.path, rec.line, f"quotes rule {rec.number}, absent from the full text")
            )
        elif concordance.normalize(rule.text) != concordance.normalize(rec.text):
            problems.append(
                Problem(
                    doc.path,
                    rec.line,
                    f"quote of rule {rule.number} differs from the full text ({Path(rule.source).name}:{rule.line})",
                )
            )


def _link_tree(table: dict[str, Rule]) -> None:
    for rule in table.values():
        rule.children = []
    for number in sorted(table, key=number_order):
        for anc in ancestor_numbers(number):
            if anc in table:
                table[number].parent = anc
                table[anc].children.append(number)
                break


def display_path(path: str) -> str:
    """A corpus file relative to the project (``corpus/sources/…``), other files as given."""
    try:
        return str(Path(path).resolve().relative_to(CORPUS_DIR.parent.resolve()))
    except ValueError:
        return path


def left_out_rows(warnings: Iterable[str]) -> list[dict[str, Any]]:
    """The files a build left out (damaged, unreadable), from its warnings, as ``kb editions``
    lists them beside the editions: no edition and no counts, the file, its line and why."""
    from kb.build import LEFT_OUT_MARK

    rows = []
    for text in warnings:
        if LEFT_OUT_MARK not in text:
            continue
        where, reason = text.split(LEFT_OUT_MARK, 1)
        path, _, line = where.rpartition(":")
        if not (path and line.isdigit()):
            path, line = where, ""
        rows.append(
            {
                "id": None,
                "lang": None,
                "date": None,
                "kind": "left out",
                "source": Path(path).name,
                "sources": [Path(path).name],
                "line": int(line) if line else None,
                "reason": reason,
                "rules": 0,
                "examples": 0,
                "glossary": 0,
                "unresolved_refs": 0,
            }
        )
    return rows


def terminal_progress(stream: Any = None) -> Progress | None:
    """A one-line progress display on a terminal (None when output is not a terminal)."""
    stream = stream or sys.stderr
    if not stream.isatty():
        return None

    def show(label: str, done: int, total: int) -> None:
        width = 24
        filled = int(width * done / max(total, 1))
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {label[:60]:<60}")
        stream.flush()

    return show
