"""Defects of the static export found by a new user's trial (each test failed before its fix)."""

from __future__ import annotations

import pytest

from kb.export.runner import ExportError, check_base_url


@pytest.mark.parametrize(
    "url", ["https://example.org/?q=1", "https://example.org?q=1", "https://example.org/#top"]
)
def test_base_url_with_a_query_or_fragment_is_refused(url: str) -> None:
    with pytest.raises(ExportError, match=r"query .* or a fragment"):
        check_base_url(url)


def test_base_url_of_a_root_is_accepted() -> None:
    assert check_base_url("https://example.org/") == "https://example.org"
    assert check_base_url("http://localhost:8000") == "http://localhost:8000"


def test_cli_search_takes_the_web_kind_rules(embedded_instance) -> None:
    """``kb search --kind rules`` (the web's and the API's word) searches rules of every level."""
    import json
    from contextlib import redirect_stdout
    from io import StringIO

    from kb.cli.main import main

    out = StringIO()
    with redirect_stdout(out):
        code = main(
            [
                "--instance",
                str(embedded_instance),
                "search",
                "priority",
                "--kind",
                "rules",
                "--json",
            ]
        )
    assert code == 0
    hits = json.loads(out.getvalue())["hits"]
    assert hits and {h["kind"] for h in hits} <= {"section", "rule", "subrule"}
