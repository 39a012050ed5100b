"""Bounds that several layers apply to what users ask for, defined once: the search (a page of
hits), the CLI's ``--limit`` and the web's ``?limit=`` all cap at :data:`MAX_LIMIT`.

Kept here, importing nothing, so that the CLI's argument types load without the search engine.
"""

#: The most hits one page holds (``kb search --limit``, ``?limit=``); ``kb concordance``'s lists
#: use the same cap.
MAX_LIMIT = 100
