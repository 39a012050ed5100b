"""A French correction comes back from the accent-folded index as a reader writes it."""

from __future__ import annotations

from kb.search.written import as_written


def test_french_did_you_mean_keeps_its_accents(searcher) -> None:
    result = searcher.search("pirorité", lang="fr")
    assert result.suggestion == "priorité"


def test_written_forms_fold_case_duplicates_and_leave_english_alone(searcher) -> None:
    kb = searcher.kb
    assert as_written(kb, ["Legend", "legend", "legends"], "en") == ["Legend", "legends"]
    assert as_written(kb, ["priorite"], "en") == ["priorite"]
    assert as_written(kb, ["priorite"], "fr") == ["priorité"]


def test_only_the_corrected_words_are_rewritten(searcher) -> None:
    """The reader's own words stay as typed ("a" is not turned into "à"); the correction is
    written with its accents."""
    result = searcher.search("joueur a la prioritte", lang="fr")
    assert result.suggestion == "joueur a la priorité"


def test_a_plain_spelling_more_frequent_than_an_accented_one_stays_plain(searcher) -> None:
    from kb.search.written import written_forms

    forms = written_forms(searcher.kb, "fr")
    assert forms.get("priorite") == "priorité"
    assert "joueur" not in forms and all(k != v for k, v in forms.items())
