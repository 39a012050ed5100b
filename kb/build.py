"""Build: corpus files -> records -> knowledge base -> artefacts (``kb.sqlite`` and the search index).

The build reads the embedded corpus plus the paths a user added, links and aligns everything, runs
the executable examples, and publishes a new build folder of the instance atomically
(:mod:`kb.instance`: a pointer replaced by one rename), so a failed build leaves the previous one
intact and a running server moves to the new one on its next request. When the content hash of
every input (and of the code that builds) is unchanged, nothing is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import stat
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb import buildcache, concordance, store
from kb import instance as layout
from kb.buildcache import BuildCache
from kb.history import write_history
from kb.instance import BuildError, load
from kb.model import (
    Commentary,
    Edition,
    ExampleInfo,
    GlossaryEntry,
    KnowledgeBase,
    Ref,
    Rule,
    TournamentRule,
)
from kb.model import parsed_number as parse_number  # parsed once per distinct number
from kb.paths import CORPUS_DIR, EXAMPLES_DIR, PACKAGE_DIR
from kb.rulenum import try_parse
from kb.sources.records import Problem, SourceDoc, SourceError

FORMAT_VERSION = "2"
KB_FILE = store.DB_FILE
BUILD_FILE = "build.json"
CORPUS_FILE = "corpus.json"
INDEX_DIR = "index"

Progress = Callable[[str, int, int], None]

__all__ = ["BuildError", "BuildReport", "build", "build_kb", "is_stale", "load"]

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


# ---- inputs ---------------------------------------------------------------------------------
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


def content_hash(inputs: Iterable[tuple[Path, dict[str, Any] | None]]) -> str:
    """Hash of every input byte, the term base, the examples and the code that builds them."""
    digest = hashlib.sha256(FORMAT_VERSION.encode())
    files: list[Path] = [p for p, _ in inputs]
    files += sorted(CORPUS_DIR.glob("*.toml"))
    if EXAMPLES_DIR.is_dir():  # the examples and their translations (translations/<id>.toml)
        files += sorted(EXAMPLES_DIR.glob("**/*.md")) + sorted(EXAMPLES_DIR.glob("**/*.toml"))
    files += sorted(PACKAGE_DIR.glob("**/*.py"))
    for path in files:
        digest.update(str(path.name).encode())
        try:
            digest.update(path.read_bytes())
        except OSError as exc:
            raise BuildError(f"{path}: cannot read: {exc.strerror}") from exc
    return digest.hexdigest()


# ---- knowledge base -------------------------------------------------------------------------
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
    """
    from kb.sources.registry import read_source

    docs: list[SourceDoc] = []
    problems: list[Problem] = []
    added = failed = 0
    first_failure: SourceError | None = None
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
            first_failure = first_failure or exc
            problems.append(exc.problem)
            continue
        for doc in got:
            problems.extend(doc.problems)
        docs.extend(got)
    if first_failure is not None and failed == added and not other_added:
        raise BuildError(_where(first_failure.problem)) from first_failure
    return docs, problems


def read_cached(
    inputs: list[tuple[Path, dict[str, Any] | None]],
    progress: Progress | None = None,
    cache: BuildCache | None = None,
) -> tuple[list[SourceDoc], list[Problem]]:
    """:func:`read_all`, taking each file whose bytes (and reader code) are unchanged from the
    cache instead of reading it again."""
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
    for (path, _), key, got in zip(inputs, keys, found, strict=True):
        if got is None:
            got = fresh[str(path)]
            if not got:
                continue
            cache.put("docs", key, got)
        out.extend(got)
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
            for c in doc.commentary:
                kb.commentary.append(
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
                )
        elif doc.kind == "mtr":
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


def _add_full(kb: KnowledgeBase, doc: SourceDoc, problems: list[Problem]) -> None:
    ed_id = f"{doc.lang}-{doc.date}"
    if ed_id in kb.editions:
        problems.append(
            Problem(
                doc.path,
                None,
                f"edition {ed_id} is already read from {kb.editions[ed_id].sources[0]}; this copy is ignored",
            )
        )
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
    for number, rule in _rules(ed_id, doc, problems).items():
        kb.rules[ed_id].setdefault(number, rule)
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
    for number in sorted(table, key=lambda n: table[n].key.sort_key()):
        rule = table[number]
        for anc in rule.key.ancestors():
            if str(anc) in table:
                rule.parent = str(anc)
                table[str(anc)].children.append(number)
                break


def link(kb: KnowledgeBase, cache: BuildCache | None = None) -> None:
    """Cross-references (resolved within their own edition) and glossary terms used by each rule.

    Terms are the glossary entries of the edition (or the newest glossary of its language), and
    the term base's names in that language, keyed by the English glossary entry: so the French and
    Japanese quotes, which have no glossary, still know which terms they use.

    With a ``cache``, an edition whose texts and vocabulary were linked before by the same code
    takes its links from there (most of an archive's rebuild); references are found once per
    distinct text (an archive prints the same rule text in dozens of editions).
    """
    from kb.link import find_refs
    from kb.termmatch import TermMatcher

    refs_of: dict[tuple[str, str], list[tuple[Any, ...]]] = {}

    def refs(text: str, lang: str, table: Mapping[str, Rule]) -> list[Ref]:
        rows = refs_of.get((text, lang))
        if rows is None:
            rows = [(r.number, r.label, r.start, r.end) for r in find_refs(text, lang)]
            refs_of[(text, lang)] = rows
        return [Ref(n, label, a, b, n in table) for n, label, a, b in rows]

    vocabularies: dict[tuple[str, int], tuple[dict[str, list[str]], str]] = {}
    matchers: dict[tuple[str, int], Any] = {}
    for ed_id, table in kb.rules.items():
        ed = kb.editions[ed_id]
        own = kb.glossary.get(ed_id)
        newest = kb.glossary_edition(ed.lang)
        glossary = own or (kb.glossary[newest.id] if newest else {})
        vkey = (ed.lang, id(glossary))
        if vkey not in vocabularies:
            vocab = _vocabulary(kb, ed.lang, glossary)
            vocabularies[vkey] = (vocab, buildcache.digest(ed.lang, sorted(vocab.items())))
        vocab, vocab_fp = vocabularies[vkey]
        entries = kb.glossary.get(ed_id, {})
        fp = ""
        if cache is not None:
            fp = buildcache.digest(
                ed.lang,
                vocab_fp,
                buildcache.code_digest("link"),
                [(r.number, r.text, r.examples) for r in table.values()],
                [(g.key, g.definition) for g in entries.values()],
            )
            if _apply_links(cache.get("link", fp), table, entries):
                continue
        if vkey not in matchers:
            matchers[vkey] = TermMatcher(vocab, ed.lang)
        matcher = matchers[vkey]
        for rule in table.values():
            rule.refs = refs(rule.text, ed.lang, table)
            rule.example_refs = [refs(x, ed.lang, table) for x in rule.examples]
            spans = matcher.find(rule.text, skip=[(r.start, r.end) for r in rule.refs])
            rule.term_spans = [[key, start, end] for key, start, end in spans]
            rule.terms = list(dict.fromkeys(key for key, _, _ in spans))
        for entry in entries.values():
            entry.refs = refs(entry.definition, ed.lang, table)
            # The references the build found are the entry's "See rule" numbers, in one grammar.
            entry.rule_refs = list(dict.fromkeys(r.number for r in entry.refs))
        if cache is not None:
            cache.put("link", fp, _links_of(table, entries))


def _links_of(table: Mapping[str, Rule], entries: Mapping[str, GlossaryEntry]) -> Any:
    """What :func:`link` found in one edition, as plain tuples (the cached form)."""

    def rows(refs: list[Ref]) -> list[tuple[Any, ...]]:
        return [(r.number, r.label, r.start, r.end, r.resolved) for r in refs]

    return (
        [
            (rows(r.refs), [rows(x) for x in r.example_refs], r.term_spans, r.terms)
            for r in table.values()
        ],
        [rows(g.refs) for g in entries.values()],
    )


def _apply_links(
    cached: Any, table: Mapping[str, Rule], entries: Mapping[str, GlossaryEntry]
) -> bool:
    """Put cached links back on an edition's rules and entries; False when there are none."""
    if cached is None:
        return False
    rule_links, entry_links = cached
    if len(rule_links) != len(table) or len(entry_links) != len(entries):
        return False
    for rule, (refs, example_refs, spans, terms) in zip(table.values(), rule_links, strict=True):
        rule.refs = [Ref(*r) for r in refs]
        rule.example_refs = [[Ref(*r) for r in x] for x in example_refs]
        rule.term_spans = spans
        rule.terms = terms
    for entry, refs in zip(entries.values(), entry_links, strict=True):
        entry.refs = [Ref(*r) for r in refs]
        entry.rule_refs = list(dict.fromkeys(r.number for r in entry.refs))
    return True


def _vocabulary(
    kb: KnowledgeBase, lang: str, glossary: dict[str, GlossaryEntry] | None
) -> dict[str, list[str]]:
    """Glossary key -> the names to find in text: the glossary, completed by the term base.

    Entries about card wording that rules prose uses as plain words ("if", "during", "you") and
    pure redirects ("See Typecycling.") are not linked: every "if" is not an intervening-if clause.
    """
    vocabulary = {
        k: names
        for k, g in (glossary or {}).items()
        if not _is_redirect(g)
        and (names := [n for n in (g.term, *g.aliases) if n.lower() not in PLAIN_WORDS])
    }
    newest_en = kb.glossary_edition("en")
    english = kb.glossary[newest_en.id] if newest_en else {}
    # An English text with its own glossary names a concept by that glossary's entry first: its
    # terms are explained by its own edition, and its links do not change when a newer edition
    # is added (so an incremental build need not link every edition again).
    own = glossary if lang == "en" and glossary else {}
    for term in kb.terms:
        names = term.names(lang)
        if not names or not term.en:
            continue
        key = next(
            (n.lower() for n in term.en if n.lower() in own),
            next((n.lower() for n in term.en if n.lower() in english), term.en[0].lower()),
        )
        named_by = own if key in own else english
        if key in named_by and _is_redirect(named_by[key]):
            continue  # a redirect is never a term to link, whichever list names it
        if key not in vocabulary:
            vocabulary[key] = list(names)
    return vocabulary


#: Glossary entries (card wording) that rules prose uses as ordinary words.
PLAIN_WORDS = frozenset({"if", "during", "unless", "you", "your", "x", "y", "si", "pendant"})


def _is_redirect(entry: GlossaryEntry) -> bool:
    """An entry that only sends the reader elsewhere ("APNAP Order  See Active Player, …")."""
    text = entry.definition.strip()
    return text.startswith(("See ", "Voir ", "Cf. ")) and text.count(".") <= 1 and len(text) < 80


def _resolve(refs: list[Ref], table: dict[str, Rule]) -> list[Ref]:
    for ref in refs:
        ref.resolved = ref.number in table
    return refs


def canonicalise_refs(kb: KnowledgeBase) -> None:
    """After the concordance: each reference learns the canonical number of what it points to."""
    for table in kb.rules.values():
        for rule in table.values():
            for ref in [*rule.refs, *(r for refs in rule.example_refs for r in refs)]:
                target = table.get(ref.number)
                ref.canonical = target.canonical if target else None
    for ed_id, table in kb.glossary.items():
        for entry in table.values():
            for ref in entry.refs:
                target = kb.rules.get(ed_id, {}).get(ref.number)
                ref.canonical = target.canonical if target else None


def attach_commentary(kb: KnowledgeBase) -> None:
    """Point commentary at canonical rules: the numbers it names (in its page's numbering), and
    the rules that define the terms it is about (the JA page on 優先権 explains rule 117)."""
    defining: dict[str, list[str]] = {}
    for term in kb.terms:
        for lang in ("en", "fr", "ja"):
            for name in term.names(lang):
                defining.setdefault(name.casefold(), []).extend(term.rules)
    for c in kb.commentary:
        eds = [e for e in kb.editions.values() if c.source in e.sources]
        mapped = []
        for number in c.about_rules:
            canon = next(
                (kb.rules[e.id][number].canonical for e in eds if number in kb.rules[e.id]), None
            )
            mapped.append(canon or number)
        for term in c.about_terms:
            mapped.extend(defining.get(term.casefold(), []))
        c.about_rules = list(dict.fromkeys(mapped))


def count(kb: KnowledgeBase) -> None:
    """Per-edition counts for ``kb editions`` (rules: three-digit numbers, headings included)."""
    for ed_id, ed in kb.editions.items():
        table = kb.rules.get(ed_id, {})
        refs = [ref for r in table.values() for ref in r.refs]
        refs += [ref for g in kb.glossary.get(ed_id, {}).values() for ref in g.refs]
        ed.counts = {
            "rules": sum(1 for r in table.values() if r.kind != "section"),
            "examples": sum(len(r.examples) for r in table.values()),
            "glossary": len(kb.glossary.get(ed_id, {})),
            "unresolved_refs": sum(1 for ref in refs if not ref.resolved),
            "refs": len(refs),
        }


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
    With a ``cache`` (:class:`kb.buildcache.BuildCache`), unchanged files, editions and edition
    pairs are taken from the previous build instead of being read, linked and aligned again.
    """
    from kb.terms import load_terms, merge_harvested

    timings = timings if timings is not None else {}
    t0 = time.perf_counter()
    inputs = corpus_inputs(extra_paths)
    docs, problems = read_cached(inputs, progress, cache)
    timings["read"] = time.perf_counter() - t0
    t = time.perf_counter()
    kb = assemble(docs, problems)
    terms = load_terms(CORPUS_DIR / "terms.toml")
    pairs = [p for d in docs for p in d.term_pairs]
    del docs  # the records are in the knowledge base now: free them before linking (peak memory)
    kb.terms, messages = merge_harvested(terms, pairs)
    problems.extend(Problem(str(CORPUS_DIR / "terms.toml"), None, m) for m in messages)
    if progress:
        progress("linking references and terms", 1, 3)
    link(kb, cache)
    timings["link"] = time.perf_counter() - t
    t = time.perf_counter()
    if progress:
        progress("aligning editions", 2, 3)
    notes = concordance.compute(
        kb, concordance.load_overrides(CORPUS_DIR / "concordance-overrides.toml"), cache=cache
    )
    from kb.premodern import link_pre_m10  # editions before July 2009: linked to M10 by text

    notes += link_pre_m10(kb)
    canonicalise_refs(kb)
    attach_commentary(kb)
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


def display_path(path: str) -> str:
    """A corpus file relative to the project (``corpus/sources/…``), other files as given."""
    try:
        return str(Path(path).resolve().relative_to(CORPUS_DIR.parent.resolve()))
    except ValueError:
        return path


# ---- instance -------------------------------------------------------------------------------
def remembered_paths(instance: Path) -> list[Path]:
    """The corpus paths added to this instance by earlier ``kb build --corpus`` runs."""
    path = instance / CORPUS_FILE
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BuildError(f"{path}: unreadable list of added corpus paths ({exc})") from exc
    return [Path(p) for p in data.get("paths", [])]


def check_corpus_path(path: Path) -> Path:
    """A path given to ``--corpus``, resolved; :class:`BuildError` naming what is wrong with it."""
    path = Path(path).expanduser()
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise BuildError(f"{path}: no such file or folder (corpus path not added)") from None
    except OSError as exc:
        raise BuildError(f"{path}: cannot read: {exc.strerror} (corpus path not added)") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = (
            "a named pipe (FIFO)"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        raise BuildError(
            f"{path}: is {kind}, not a file or folder of rule texts (corpus path not added)"
        )
    return path.resolve()


def build(
    instance: Path,
    extra_paths: Iterable[Path] = (),
    *,
    force: bool = False,
    progress: Progress | None = None,
    run_examples_too: bool = True,
) -> BuildReport:
    """Build the instance (kb.sqlite, search index) unless its inputs are unchanged.

    One build of an instance runs at a time (a second one gets :class:`BuildError` at once); what
    killed builds left behind is removed first.
    """
    started = time.perf_counter()
    instance = Path(instance)
    added = [check_corpus_path(p) for p in extra_paths]
    try:
        with layout.lock(instance):
            layout.clean_stale(instance)
            return _build_locked(instance, added, force, progress, run_examples_too, started)
    except layout.InstanceBusy as exc:
        raise BuildError(str(exc)) from None


def _build_locked(
    instance: Path,
    added: list[Path],
    force: bool,
    progress: Progress | None,
    run_examples_too: bool,
    started: float,
) -> BuildReport:
    paths = list(dict.fromkeys([*remembered_paths(instance), *added]))
    for p in paths:
        if not p.exists():
            raise BuildError(f"{p}: a corpus path remembered by {instance} no longer exists")
    inputs = corpus_inputs(paths)
    digest = content_hash(inputs)
    current = read_build_info(instance)
    if not force and current.get("content_hash") == digest and (instance / KB_FILE).is_file():
        report = BuildReport(instance, True, digest)
        report.editions = current.get("editions", [])
        report.totals = current.get("totals", {})
        report.problems = current.get("problems", [])
        return report

    timings: dict[str, float] = {}
    cache = BuildCache(instance / layout.CACHE_DIR)
    kb, problems, notes = build_kb(
        paths, run_examples_too=run_examples_too, progress=progress, timings=timings, cache=cache
    )
    kb.content_hash = digest
    report = BuildReport(instance, False, digest, timings=timings, notes=notes)
    report.problems = [str(p) for p in problems]
    report.editions = [
        {"id": e.id, "lang": e.lang, "date": e.date, "kind": e.kind, **e.counts}
        for e in sorted(kb.editions.values(), key=lambda e: (e.lang, e.date or "", e.id))
    ]
    report.totals = totals(kb)

    staging = layout.new_staging(instance)
    try:
        t = time.perf_counter()
        store.write(kb, staging / KB_FILE)
        write_history(staging / KB_FILE)  # the rule pages' history and word diffs (kb.history)
        timings["save"] = time.perf_counter() - t
        t = time.perf_counter()
        if progress:
            progress("building the search index", 1, 1)
        stats = _build_index(kb, staging / INDEX_DIR, layout.current_build(instance))
        report.notes.append(
            f"search index: {stats['docs']} documents, {stats['bytes'] / 1e6:.1f} MB, "
            f"{stats['seconds']:.2f} s"
        )
        timings["index"] = time.perf_counter() - t
        (staging / CORPUS_FILE).write_text(
            json.dumps({"paths": [str(p) for p in paths]}, indent=1), encoding="utf-8"
        )
        report.seconds = time.perf_counter() - started
        info = {
            "content_hash": digest,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": round(report.seconds, 3),
            "timings": {k: round(v, 3) for k, v in timings.items()},
            "editions": report.editions,
            "totals": report.totals,
            "problems": report.problems,
        }
        (staging / BUILD_FILE).write_text(
            json.dumps(info, indent=1, ensure_ascii=False), encoding="utf-8"
        )
        layout.publish(instance, staging, digest)
        cache.prune()
    except BaseException:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        raise
    return report


def _build_index(kb: KnowledgeBase, index_dir: Path, previous_build: Path | None) -> dict[str, Any]:
    """The search index, reusing the previous build's where the indexer can
    (``previous=``, when :func:`kb.search.build_index` takes it)."""
    import inspect

    from kb.search import build_index

    previous = previous_build / INDEX_DIR if previous_build else None
    if previous is not None and previous.is_dir():
        try:
            accepts = "previous" in inspect.signature(build_index).parameters
        except (TypeError, ValueError):
            accepts = False
        if accepts:
            return build_index(kb, index_dir, previous=previous)
    return build_index(kb, index_dir)


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
        return read_build_info(instance).get("content_hash") != content_hash(inputs)
    except (BuildError, SourceError):
        return True


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
