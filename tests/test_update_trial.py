"""``kb update``: a link with a raw space is fetched, and a usage error never exits 2, which
``--check`` documents as "a newer edition is available" (found by the new-user trial)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.build.update import _get, find_rules_link
from kb.cli.main import main
from kb.cli.types import USAGE_ERROR
from tests.test_update import NEW, Publisher, page

needs_new = pytest.mark.skipif(not NEW.exists(), reason=f"official text absent: {NEW}")


def test_a_raw_space_in_the_link_is_quoted() -> None:
    link = find_rules_link(
        "https://pub.example.test/en/rules", page("MagicCompRules 20260101.txt").decode()
    )
    assert link.url == "https://pub.example.test/en/MagicCompRules%2020260101.txt"
    assert link.date == "2026-01-01"


def test_escapes_already_written_are_kept_and_other_characters_escaped() -> None:
    hrefs = ["/d/MagicCompRules%2020251114.txt", "/d/Règles 20240101.txt?v=1 2#top"]
    links = [find_rules_link("https://p.test/en/rules", page(h).decode()).url for h in hrefs]
    assert links == [
        "https://p.test/d/MagicCompRules%2020251114.txt",
        "https://p.test/d/R%C3%A8gles%2020240101.txt?v=1%202",
    ]


@needs_new
def test_the_quoted_link_is_downloaded() -> None:
    server = Publisher()
    try:
        server.html("/en/rules", page("/downloads/MagicCompRules 20251114.txt"))
        server.text("/downloads/MagicCompRules%2020251114.txt", NEW)
        link = find_rules_link(
            f"{server.base}/en/rules", page("/downloads/MagicCompRules 20251114.txt").decode()
        )
        answer = _get(link.url, 10)
        assert answer.status == 200 and answer.body == NEW.read_bytes()
    finally:
        server.close()


@pytest.mark.parametrize(
    "args",
    [
        ["--check", "--url", "notaurl"],
        ["--check", "--timeout", "0"],
        ["--check", "--timeout", "soon"],
        ["--check", "--bogus"],
        ["--check", "--timeout"],
    ],
)
def test_a_usage_error_is_not_the_newer_edition_status(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["update", "--instance", str(tmp_path / "none"), *args])
    assert exit_.value.code == USAGE_ERROR != 2
    err = capsys.readouterr().err
    assert "kb update: error:" in err and "Traceback" not in err


def test_the_help_documents_the_usage_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["update", "--help"])
    assert exit_.value.code == 0
    assert f"{USAGE_ERROR} a usage error" in " ".join(capsys.readouterr().out.split())


def test_other_commands_keep_argparse_status(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["search", "x", "--limit", "0", "--instance", str(tmp_path)])
    assert exit_.value.code == 2


def test_a_link_that_is_no_url_is_skipped() -> None:
    """urljoin raises on "http://[x/a.txt" (no IPv6 host): that link is passed over."""
    html = '<a href="http://[x/a.txt">bad</a> <a href="MagicCompRules 20260101.txt">rules</a>'
    link = find_rules_link("https://p.test/en/rules", html)
    assert link.url == "https://p.test/en/MagicCompRules%2020260101.txt"
