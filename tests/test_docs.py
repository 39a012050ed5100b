"""The README documents every command and every URL (one table drives the docs and this test)."""

from __future__ import annotations

from pathlib import Path

from kb.cli.main import parser
from kb.web import URLS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_every_command_documented() -> None:
    sub = next(a for a in parser()._actions if a.dest == "command")
    for name in sub.choices:  # type: ignore[union-attr]
        assert f"`kb {name}" in README, f"kb {name} is not in the README's command table"


def test_every_url_documented() -> None:
    for url, what in URLS.items():
        assert f"| `{url}` | {what} |" in README, (
            f"{url} is not in the README's URL table as in URLS"
        )


def test_readme_opens_with_run_and_test_commands() -> None:
    blocks = README.split("```sh")[1:3]
    assert "kb serve" in blocks[0] and "pytest" in blocks[1]
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    test_command = blocks[1].split("```")[0].strip()
    assert test_command in ci, ".ci/run must run exactly the README's test command"
