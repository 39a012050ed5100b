"""Linking a knowledge base: cross-references and glossary terms of each edition (through the
build cache), canonical numbers on references, commentary placed on canonical rules, and counts."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping
from typing import Any

from kb.base import buildcache
from kb.base.buildcache import BuildCache
from kb.build import termsense
from kb.build.termfind import TermFinder
from kb.knowledge.model import GlossaryEntry, KnowledgeBase, Ref, Rule


def link(kb: KnowledgeBase, cache: BuildCache | None = None, *, background: bool = False) -> None:
    """Cross-references (resolved within their own edition) and glossary terms used by each rule.

    Terms are the glossary entries of the edition (or the newest glossary of its language), and
    the term base's names in that language, keyed by the English glossary entry: so the French and
    Japanese quotes, which have no glossary, still know which terms they use.

    With a ``cache``, an edition whose texts and vocabulary were linked before by the same code
    takes its links from there (most of an archive's rebuild); references are found once per
    distinct text (an archive prints the same rule text in dozens of editions). ``background``:
    the caller waits for the cache's background writes (:meth:`BuildCache.wait`), so an
    archive's entries may be written by a forked process.
    """
    from kb.text.references import find_refs

    refs_of: dict[tuple[str, str], list[tuple[Any, ...]]] = {}

    def ref_rows(text: str, lang: str) -> list[tuple[Any, ...]]:
        rows = refs_of.get((text, lang))
        if rows is None:
            rows = [(r.number, r.label, r.start, r.end) for r in find_refs(text, lang)]
            refs_of[(text, lang)] = rows
        return rows

    def refs(text: str, lang: str, table: Mapping[str, Rule]) -> list[Ref]:
        return [Ref(n, label, a, b, n in table) for n, label, a, b in ref_rows(text, lang)]

    vocabularies: dict[tuple[str, int], tuple[dict[str, list[str]], str]] = {}
    of_edition: dict[str, tuple[dict[str, list[str]], str]] = {}
    #: what each edition's glossary says of its terms' senses (kb.build.termsense)
    sense_of: dict[str, termsense.Senses] = {}
    for ed_id in kb.rules:
        ed = kb.editions[ed_id]
        own = kb.glossary.get(ed_id)
        newest = kb.glossary_edition(ed.lang)
        glossary = own or (kb.glossary[newest.id] if newest else {})
        vkey = (ed.lang, id(glossary))
        if vkey not in vocabularies:
            vocab = _vocabulary(kb, ed.lang, glossary)
            vocabularies[vkey] = (vocab, buildcache.digest(ed.lang, sorted(vocab.items())))
        of_edition[ed_id] = vocabularies[vkey]
        sense_of[ed_id] = termsense.senses(glossary)
    finders: dict[str, TermFinder] = {}
    for (lang, _), (vocab, _) in vocabularies.items():
        finder = finders.get(lang)
        if finder is None:
            finder = finders[lang] = TermFinder(lang)
        finder.learn(vocab)
    todo: list[tuple[str, str]] = []  # (edition, cache key) of the editions to link here
    for ed_id, table in kb.rules.items():
        ed = kb.editions[ed_id]
        entries = kb.glossary.get(ed_id, {})
        fp = ""
        if cache is not None:
            fp = buildcache.digest(
                ed.lang,
                of_edition[ed_id][1],
                buildcache.code_digest("link"),
                [(r.number, r.text, r.examples) for r in table.values()],
                [(g.key, g.definition) for g in entries.values()],
            )
            if _apply_links(cache.get("link", fp), table, entries):
                continue
        todo.append((ed_id, fp))

    def link_edition(ed_id: str) -> None:
        table, entries = kb.rules[ed_id], kb.glossary.get(ed_id, {})
        lang = kb.editions[ed_id].lang
        found = finders[lang].find_all(
            of_edition[ed_id][0],
            [rule.text for rule in table.values()],
            # Terms never overlap a rule reference: its span is skipped.
            lambda text: [(row[2], row[3]) for row in ref_rows(text, lang)],
        )
        sense = sense_of[ed_id]
        for rule, (spans, keys) in zip(table.values(), found, strict=True):
            rule.refs = refs(rule.text, lang, table)
            rule.example_refs = [refs(x, lang, table) for x in rule.examples]
            kept = termsense.keep(rule.text, spans, lang, sense)
            rule.term_spans = kept
            rule.terms = keys if kept is spans else list(dict.fromkeys(k for k, _, _ in kept))
        for entry in entries.values():
            entry.refs = refs(entry.definition, lang, table)
            # The references the build found are the entry's "See rule" numbers, in one grammar.
            entry.rule_refs = list(dict.fromkeys(r.number for r in entry.refs))

    for ed_id, _fp in todo:
        link_edition(ed_id)
    if cache is not None:
        # An archive's entries are written by a forked process while the build goes on (the
        # links are not changed after this: the concordance only adds canonical numbers to
        # references).
        cache.put_many(
            "link",
            ((fp, _links_of(kb.rules[ed_id], kb.glossary.get(ed_id, {}))) for ed_id, fp in todo),
            len(todo),
            background,
        )


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

    Entries about card wording that rules prose uses as plain words ("if", "during", "you"),
    pure redirects ("See Typecycling.") and the terms the glossary calls obsolete ("Remove from
    the Game": exile) are not linked: every "if" is not an intervening-if clause, and an
    obsolete term is linked only in the editions where it was current. Aliases that are common
    words ("Removed") are not linked alone (:data:`kb.build.termsense.PLAIN_ALIASES`).
    """
    plain = PLAIN_WORDS | termsense.PLAIN_ALIASES
    vocabulary = {
        k: names
        for k, g in (glossary or {}).items()
        if not _is_redirect(g)
        and termsense.linkable(g)
        and (names := [n for n in (g.term, *g.aliases) if n.lower() not in plain])
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
        if key in named_by and (
            _is_redirect(named_by[key]) or not termsense.linkable(named_by[key])
        ):
            continue  # a redirect or an obsolete term is never linked, whichever list names it
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


def recanonicalise(conn: sqlite3.Connection, moved: Mapping[str, Mapping[str, str | None]]) -> None:
    """References carry the canonical number of their target: rewrite those whose target's moved."""
    from kb.store.schema import _refs_json

    for ed_id, targets in moved.items():
        # Decode only what may cite a target: the rules whose references do (the refs table
        # says which), and those whose examples quote one of the numbers.
        names = re.compile("|".join(re.escape(json.dumps(n)) for n in targets)).search
        rows: dict[int, tuple[str, str]] = {}
        wanted = list(targets)
        for i in range(0, len(wanted), 500):
            batch = wanted[i : i + 500]
            marks = ",".join("?" * len(batch))
            rows.update(
                (rowid, (refs, example_refs))
                for rowid, refs, example_refs in conn.execute(
                    "SELECT rowid, refs, example_refs FROM rules WHERE edition = ? AND number IN "
                    f"(SELECT DISTINCT source FROM refs WHERE edition = ? AND target IN ({marks}))",
                    [ed_id, ed_id, *batch],
                )
            )
        # An example's references are not in the refs table: the rules having any (a quoted
        # reference list opens with '[["'), searched for the numbers.
        for rowid, refs, example_refs in conn.execute(
            "SELECT rowid, refs, example_refs FROM rules WHERE edition = ? "
            "AND instr(example_refs, '[[\"') > 0",
            (ed_id,),
        ):
            if rowid not in rows and names(example_refs):
                rows[rowid] = (refs, example_refs)
        out = []
        for rowid, (refs, example_refs) in rows.items():
            own = _decode(json.loads(refs))
            lists = [_decode(x) for x in json.loads(example_refs)]
            hits = [_move(own, targets), *(_move(x, targets) for x in lists)]
            if any(hits):
                out.append((_refs_json(own), "[" + ",".join(map(_refs_json, lists)) + "]", rowid))
        conn.executemany("UPDATE rules SET refs = ?, example_refs = ? WHERE rowid = ?", out)
        out = []
        for rowid, refs in conn.execute(
            "SELECT rowid, refs FROM glossary WHERE edition = ?", (ed_id,)
        ):
            if names(refs):
                own = _decode(json.loads(refs))
                if _move(own, targets):
                    out.append((_refs_json(own), rowid))
        conn.executemany("UPDATE glossary SET refs = ? WHERE rowid = ?", out)


def _decode(rows: list[list[Any]]) -> list[Ref]:
    return [Ref(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]


def _move(refs: list[Ref], targets: Mapping[str, str | None]) -> bool:
    """Give references to a moved target its new canonical number; True if any changed."""
    hit = False
    for ref in refs:
        if ref.number in targets and ref.canonical != targets[ref.number]:
            ref.canonical = targets[ref.number]
            hit = True
    return hit
