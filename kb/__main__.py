"""``python -m kb``: the same as the ``kb`` command."""

from kb.cli import main

raise SystemExit(main())
