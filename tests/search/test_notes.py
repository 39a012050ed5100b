"""Notes: what the search tells its reader, as codes with params, and the English message made of them."""

from __future__ import annotations

import pytest

from kb.search import Note, SearchError
from kb.search.notes import TEXTS, message
from kb.search.query import parse


def codes(notes: list[Note]) -> list[str]:
    return [n.code for n in notes]


@pytest.mark.parametrize(
    ("query", "code", "params"),
    [
        ('"x y', "unbalanced_quote", {}),
        ("title:priority", "field_syntax", {"token": "title:priority"}),
        ("a)", "unmatched_paren", {}),
        ("((a)", "unclosed_paren", {}),
        ("ab*", "short_wildcard", {"token": "ab*", "min": 3}),
        ("x" * 600, "query_cut", {"limit": 500}),
        (" ".join(f"w{i}" for i in range(70)), "too_many_words", {"limit": 64}),
    ],
)
def test_query_repairs_are_notes_with_params(query: str, code: str, params: dict) -> None:
    notes = parse(query).notes
    assert Note(code, params) in notes
    assert all(n.text == TEXTS[n.code].format(**n.params) for n in notes)


def test_a_repair_is_told_once() -> None:
    assert codes(parse('"a" "b').notes + parse("a) b)").notes) == [
        "unbalanced_quote",
        "unmatched_paren",
    ]


def test_message_is_the_notes_in_english(searcher) -> None:
    result = searcher.search("title:priority", lang="en")
    assert codes(result.notes) == ["field_syntax"]
    assert (
        result.message == "field syntax is not supported: searched 'title:priority' as plain words"
    )
    data = result.to_json()
    assert data["notes"] == [
        {"code": "field_syntax", "params": {"token": "title:priority"}, "text": result.message}
    ]


def test_renumbered_rule_note(searcher) -> None:
    result = searcher.search("116.3b", lang="en", edition="2016-11-11")
    (note,) = result.notes
    assert note.code == "renumbered"
    assert note.params["number"] == "116.3b" and note.params["canonical"] == "117.3b"
    assert result.message == note.text and "117.3b" in note.text and note.params["title"]


def test_unknown_number_notes_name_the_neighbours(searcher) -> None:
    result = searcher.search("117.9z", lang="en")
    assert codes(result.notes) == ["no_rule_in_lang", "nearby"]
    assert result.notes[0].params == {"number": "117.9z", "lang": "en"}
    near = result.notes[1].params["numbers"]
    assert isinstance(near, list) and result.suggestion == near[0]
    assert result.message == "No rule 117.9z in the en editions. Nearby: " + ", ".join(near) + "."


def test_no_results_and_nothing_to_search(searcher) -> None:
    empty = searcher.search("zzzzqqq", lang="en")
    assert empty.hits == [] and codes(empty.notes)[0] == "no_results"
    assert codes(searcher.search("-priority", lang="en").notes) == ["nothing_to_search"]
    stop = searcher.search('"the', lang="en")
    assert codes(stop.notes) == ["unbalanced_quote", "nothing_to_search"]
    # A stopping note follows the repairs as one sentence.
    assert stop.message == "; ".join(n.text for n in stop.notes)
    assert codes(searcher.search("  ", lang="en").notes) == ["empty_query"]
    assert codes(searcher.search("priority", kind="card").notes) == ["unknown_kind"]


def test_page_beyond_the_last_is_its_own_note(searcher) -> None:
    result = searcher.search("priority", lang="en", page=999)
    (note,) = result.notes
    assert note.code == "no_results_on_page" and note.params["page"] == 999
    assert note.params["pages"] == result.pages


def test_refusals_carry_a_note(searcher) -> None:
    with pytest.raises(SearchError) as bad_lang:
        searcher.search("priority", lang="de")
    assert bad_lang.value.note.code == "unknown_language"
    assert bad_lang.value.note.params == {"lang": "de", "langs": ["en", "fr", "ja"]}
    assert str(bad_lang.value) == "unknown language 'de' (use one of en, fr, ja)"
    with pytest.raises(SearchError) as bad_ed:
        searcher.search("priority", lang="en", edition="1999-01-01")
    assert bad_ed.value.note.code == "unknown_edition_in_lang"
    assert bad_ed.value.note.params["known"] and "1999-01-01" in str(bad_ed.value)


def test_unknown_code_is_refused_and_empty_lists_read_none() -> None:
    with pytest.raises(ValueError, match="unknown note code"):
        Note("no_such_code")
    assert Note("unknown_edition", {"edition": "x", "known": []}).text.endswith("(known: none)")
    assert message([Note("no_results"), Note("did_you_mean", {"suggestion": "a"})]) == (
        "No results. Did you mean “a”?"
    )
