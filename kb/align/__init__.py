"""The same rule across editions: the concordance between two editions through every renumbering
(:mod:`.concordance`, its helpers in :mod:`.pairs`), merges and splits (:mod:`.merges`) and the
editions before July 2009, whose numbering differs (:mod:`.premodern`).

May import :mod:`kb.knowledge`, :mod:`kb.text` and :mod:`kb.base`; the store, the build and the
pages use it.
"""
