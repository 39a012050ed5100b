"""``kb export``: the site as static files a CDN can serve. :mod:`.runner` runs an export,
:mod:`.pages` walks the pages the server answers, :mod:`.files` writes them and :mod:`.static`
adds the static search (Pagefind).

May import :mod:`kb.web` and every layer below it; only :mod:`kb.cli.main` imports it.
"""
