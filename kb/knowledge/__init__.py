"""The knowledge base as a model: editions, rules, examples, glossary entries, terms and their
links (:mod:`.model`), the term base (:mod:`.terms`), printed and reused rule numbers
(:mod:`.printed`), lookups of a number or a name in an edition (:mod:`.lookup`), which editions
compare (:mod:`.comparison`) and the model as JSON (:mod:`.serialise`).

May import :mod:`kb.sources` (the records sources are read into), :mod:`kb.text` and
:mod:`kb.base`. Everything that builds, stores, searches or shows rules imports it.
"""
