"""The architecture's contracts (pyproject.toml's ``[tool.importlinter]``) hold: layers import
only downwards and no package's modules import each other in a cycle. Also no module grows past
600 lines, and the top of ``kb/`` holds only the entry points."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_lint_imports_keeps_every_contract() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(exe).exists():
        pytest.fail("lint-imports (import-linter, in the test extras) is not installed")
    done = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
    # Both kinds of contract are there (a removed contract would pass silently).
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'type = "layers"' in config and 'type = "acyclic_siblings"' in config


def test_no_module_over_600_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "kb").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert not long, long


def test_the_top_of_the_package_holds_only_entry_points() -> None:
    top = sorted(p.name for p in (ROOT / "kb").glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "markdown.py"], top


def test_every_package_says_what_it_owns_and_may_import() -> None:
    import ast

    for init in sorted((ROOT / "kb").glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "may import" in doc.lower(), f"{init}: its docstring does not say what it may import"
