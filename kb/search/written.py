"""French words as a reader writes them: the index folds accents, so its corrections and
completions come out as ``priorite``; this maps them back to ``priorité`` from the corpus's own
words (the newest French texts, the term base and the examples' translations), for the web and the command line alike."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from kb.knowledge.model import KnowledgeBase
from kb.text.normal import fold_accents

_WORD = re.compile(r"\w+")
#: The editions of a language whose words give the written forms (the newest few suffice).
WRITTEN_EDITIONS = 2


def as_written(kb: KnowledgeBase, found: Iterable[str], lang: str) -> list[str]:
    """Suggestions as a reader writes them: the index's accent-folded words back in their written
    form (``resolution`` -> ``résolution``), and each once whatever its case (``Legend`` and
    ``legend``: the first)."""
    # Only French folds accents in its index (Japanese kana must keep their marks as typed).
    forms = written_forms(kb, lang) if lang == "fr" else {}
    out: dict[str, str] = {}
    for text in found:
        written = _WORD.sub(lambda m: forms.get(m.group(0).lower(), m.group(0)), text)
        out.setdefault(written.casefold(), written)
    return list(out.values())


def written_forms(kb: KnowledgeBase, lang: str) -> dict[str, str]:
    """Folded word -> its most frequent written form, where that form has accents, from the
    newest texts of ``lang`` and the term base (built once per knowledge base and language)."""
    cache = kb.__dict__.setdefault("_written_forms", {})
    forms = cache.get(lang)
    if forms is None:
        counts: Counter[str] = Counter()
        for ed in list(reversed(kb.editions_of(lang)))[:WRITTEN_EDITIONS]:
            for rule in kb.rules.get(ed.id, {}).values():
                counts.update(w.lower() for w in _WORD.findall(f"{rule.title or ''} {rule.text}"))
        for term in kb.terms:
            for name in term.names(lang):
                counts.update(w.lower() for w in _WORD.findall(name))
        for ex in kb.examples:  # the examples' translations are searched too ("résolve")
            text = f"{ex.titles.get(lang, '')} {ex.prose.get(lang, '')}"
            counts.update(w.lower() for w in _WORD.findall(text))
        # Every spelling competes, the plain one included: "a" stays "a" (far more frequent than
        # "à"), while "priorite", never written so, is "priorité".
        best: dict[str, str] = {}
        for word, _count in counts.most_common():
            best.setdefault(fold_accents(word), word)
        forms = {folded: word for folded, word in best.items() if folded != word}
        cache[lang] = forms
    return forms
