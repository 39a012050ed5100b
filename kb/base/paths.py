"""Where the project's files live: the embedded corpus, the templates and the default instance."""

from __future__ import annotations

import os
from pathlib import Path

#: The ``kb`` package folder (this module is in ``kb/base/``).
PACKAGE_DIR = Path(__file__).resolve().parent.parent
PROJECT_DIR = PACKAGE_DIR.parent


def _first_existing(*candidates: Path) -> Path:
    for path in candidates:
        if path.is_dir():
            return path
    return candidates[0]


#: The embedded corpus: ``corpus/`` of a checkout, or its copy shipped inside the wheel.
CORPUS_DIR = _first_existing(PROJECT_DIR / "corpus", PACKAGE_DIR / "_corpus")
#: Jinja templates of the web app.
TEMPLATES_DIR = _first_existing(PROJECT_DIR / "templates", PACKAGE_DIR / "_templates")
EXAMPLES_DIR = CORPUS_DIR / "examples"


def default_instance() -> Path:
    """``$KB_INSTANCE``, else ``instance/`` of a checkout, else a per-user data folder."""
    env = os.environ.get("KB_INSTANCE")
    if env:
        return Path(env).expanduser()
    if (PROJECT_DIR / "pyproject.toml").is_file():
        return PROJECT_DIR / "instance"
    base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "kb" / "instance"
