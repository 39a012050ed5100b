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
