"""Cards: the model of a card and its faces (:mod:`kb.cards.model`), the rules a card uses
computed from its text (:mod:`kb.cards.rules_used`) and names resolved to cards in English,
French and Japanese (:mod:`kb.cards.names`). Card files are read by :mod:`kb.sources.cards`."""
