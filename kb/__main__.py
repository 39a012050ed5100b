"""``python -m kb``: the same as the ``kb`` command."""

from kb.cli.main import main

raise SystemExit(main())
