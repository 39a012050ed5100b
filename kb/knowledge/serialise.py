"""Serialisation: knowledge-base nodes as the JSON shapes of the CLI (``--json``) and the web app's twins."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from kb.knowledge.model import Edition, GlossaryEntry, KnowledgeBase, Rule


def edition_json(ed: Edition) -> dict[str, Any]:
    """An edition with its counts (``kb editions``): lang, date, source, numbering and counts."""
    return {
        "id": ed.id,
        "lang": ed.lang,
        "date": ed.date,
        "kind": ed.kind,
        # File names only: a public server does not publish where its files live.
        "source": Path(ed.sources[0]).name if ed.sources else None,
        "sources": [Path(p).name for p in ed.sources],
        "numbering": ed.numbering,
        "version": ed.version,
        "translates": ed.translates,
        "fits": list(ed.fits),
        "title": ed.title,
        "rules": ed.counts.get("rules", 0),
        "examples": ed.counts.get("examples", 0),
        "glossary": ed.counts.get("glossary", 0),
        "unresolved_refs": ed.counts.get("unresolved_refs", 0),
    }


def translations(kb: KnowledgeBase, rule: Rule) -> dict[str, dict[str, Any]]:
    """The same rule in the other languages: newest edition of each that has it."""
    return {
        lang: {
            "edition": other.edition,
            "date": kb.editions[other.edition].date,
            "number": other.number,
            "title": other.title,
            "text": other.text,
        }
        for lang, other in kb.counterparts(rule).items()
    }


def rule_json(kb: KnowledgeBase, rule: Rule) -> dict[str, Any]:
    """Everything about one rule: tree, references, history, translations, terms, examples."""
    ed = kb.editions[rule.edition]
    lineage = rule.lineage or rule.canonical or ""
    refs = [asdict(r) for r in rule.refs]
    return {
        "number": rule.number,
        "lang": rule.lang,
        "edition": rule.edition,
        "edition_date": ed.date,
        "edition_kind": ed.kind,
        "kind": rule.kind,
        "title": rule.title,
        "text": rule.text,
        "examples": list(rule.examples),
        "parent": rule.parent,
        "children": list(rule.children),
        "refs": refs,
        "referenced_by": kb.referenced_by(rule),
        "canonical": rule.canonical,
        "deleted": rule.canonical is None,
        "change": rule.change,
        "history": kb.history(lineage, rule.lang) if lineage else [],
        "translations": translations(kb, rule),
        "terms": list(rule.terms),
        "engine_examples": [
            {
                "id": x.id,
                "title": x.title,
                "titles": dict(x.titles),  # by language (English too), for a translated page
                "rules": x.rules,
                "passed": x.passed,
                "trace": x.trace,
                "trace_text": x.trace_text,
            }
            for x in (kb.examples_for(rule.canonical) if rule.canonical else [])
        ],
        "source": {"file": Path(rule.source).name, "line": rule.line},
        "flags": list(rule.flags),
    }


def glossary_json(entry: GlossaryEntry) -> dict[str, Any]:
    """A glossary entry with its references."""
    data = asdict(entry)
    data["refs"] = [asdict(r) for r in entry.refs]
    data["source"] = Path(entry.source).name
    return data
