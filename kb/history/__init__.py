"""A rule's history: its versions from edition to edition with word diffs, computed whole
(:mod:`.diffs`) or patched for one new edition (:mod:`.patch`).

May import :mod:`kb.knowledge`, :mod:`kb.text` and :mod:`kb.base`; the store writes it, the
build patches it and the pages show it.
"""
