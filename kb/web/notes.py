"""The search's notes (:class:`kb.search.Note`) in the visitor's language.

Each note code has one message id here, with the note's params as named placeholders; the
catalogs translate them like any other interface string. The search's own English texts stay
the CLI's and the JSON ``message``; these are sentences for a page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kb.web.i18n import LanguageName, Text
from kb.web.i18n import text as _

if TYPE_CHECKING:  # the search package loads with the first search, not at start
    from kb.search import Note

#: The message of each note code (:data:`kb.search.notes.TEXTS` lists the codes).
NOTE_TEXTS: dict[str, Text] = {
    "query_cut": _("The query was cut to its first %(limit)s characters."),
    "unbalanced_quote": _("An unbalanced quote was closed at the end of the query."),
    "field_syntax": _("Field syntax is not supported: “%(token)s” was searched as plain words."),
    "unmatched_paren": _("An unmatched “)” was ignored."),
    "unclosed_paren": _("An unclosed “(” was closed at the end of the query."),
    "too_many_words": _("Only the first %(limit)s words were searched."),
    "short_wildcard": _("“%(token)s”: a wildcard needs at least %(min)s characters before “*”."),
    "empty_query": _("Type words, a rule number or a glossary term to search for."),
    "unknown_kind": _("Unknown kind “%(kind)s”: use one of %(kinds)s."),
    "nothing_to_search": _("Nothing to search for: only common words or exclusions were given."),
    "no_results": _("No results."),
    "no_results_on_page": _("No results on page %(page)s (there are %(pages)s)."),
    "did_you_mean": _("Did you mean “%(suggestion)s”?"),
    "no_rule": _("No rule %(number)s in any edition."),
    "no_rule_in_lang": _("No rule %(number)s in the %(lang)s editions."),
    "no_rule_in_edition": _("No rule %(number)s in %(edition)s."),
    "nearby": _("Nearby: %(numbers)s."),
    "range_missing": _("No rule holds these numbers of the range: %(numbers)s."),
    "renumbered": _("Rule %(number)s of %(edition)s is rule %(canonical)s (%(title)s) today."),
    "renumbered_untitled": _("Rule %(number)s of %(edition)s is rule %(canonical)s today."),
    "deleted": _("Rule %(number)s of %(edition)s is no longer in the rules."),
    "unknown_language": _("Unknown language “%(lang)s”: use one of %(langs)s."),
    "unknown_edition_in_lang": _("Unknown %(lang)s edition “%(edition)s” (known: %(known)s)."),
    "unknown_edition": _("Unknown edition “%(edition)s” (known: %(known)s)."),
}

#: Notes whose ``lang`` param is a language code to name in the reader's language.
_NAMES_A_LANGUAGE = frozenset({"no_rule_in_lang", "unknown_edition_in_lang"})


def note_text(note: Note, **changes: Any) -> Text:
    """The note as a :class:`Text` to render in any locale (``changes`` replace params: a
    title in the reader's language); an unknown code keeps its English text."""
    params = {**note.params, **changes}
    if note.code in _NAMES_A_LANGUAGE and isinstance(params.get("lang"), str):
        params["lang"] = LanguageName(params["lang"])
    known = NOTE_TEXTS.get(note.code)
    if known is None:
        return Text(note.text)
    return Text(known.msgid, params)


def join_sentences(texts: list[str], locale: str) -> str:
    """Sentences one after the other (Japanese puts no space between them)."""
    return ("" if locale == "ja" else " ").join(texts)
