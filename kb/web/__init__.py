"""The web app: browse, search and link the rules in English, French and Japanese.

Public entry points: :func:`create_app` (the Flask factory), :func:`serve` (a production server)
and :func:`render_get` (render one URL without a server, for ``kb serve --get PATH``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from flask import Flask

from kb.web.app import create_app

__all__ = ["create_app", "render_get", "serve"]


def serve(instance: Path, host: str = "127.0.0.1", port: int = 8000, debug: bool = False) -> None:
    """Serve an instance with waitress (or Flask's reloading server with ``debug``)."""
    started = time.perf_counter()
    app = create_app({"INSTANCE": Path(instance)})
    pool = app.extensions["kb_search"]
    if pool.available:
        try:  # open the index now rather than on the first visitor's search
            pool.get()
        except Exception as exc:  # reported on the search page; the site still browses
            print(f"kb: search unavailable: {exc}", file=sys.stderr)
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"
    print(f"kb: serving {instance} at {url} (ready in {time.perf_counter() - started:.2f} s)")
    sys.stdout.flush()
    if debug:
        app.run(host=host, port=port, debug=True, use_reloader=True)
        return
    from waitress import serve as waitress_serve

    # Pages come from the in-process cache, so a few threads keep both cores busy.
    waitress_serve(app, host=host, port=port, threads=8, ident="kb", channel_timeout=30)


_apps: dict[Path, Flask] = {}


def render_get(instance: Path, path: str) -> tuple[int, str]:
    """Render one URL of an instance in-process: ``(status, body)``, like Datasette's ``--get``."""
    key = Path(instance).resolve()
    if key not in _apps:
        _apps[key] = create_app({"INSTANCE": key})
    with _apps[key].test_client() as client:
        response = client.get(path)
        return response.status_code, response.get_data(as_text=True)
