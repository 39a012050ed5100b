"""Cards: the rules a card uses, computed from its text (:mod:`kb.cards.rules_used`) and names resolved to cards in English,
French and Japanese (:mod:`kb.cards.names`). Card files are read by :mod:`kb.sources.cards` into the
records of :mod:`kb.sources.card_model` (a card and its faces).

Layer: may import :mod:`kb.knowledge`, :mod:`kb.sources`, :mod:`kb.text` and :mod:`kb.base`; the
store, search, the build and the pages use it.
"""
