"""Text as every layer reads it: Unicode normalisation and folding (:mod:`.normal`), rule numbers
and their spellings (:mod:`.rulenum`), rule references in prose (:mod:`.references`), matching a
term's words in a text (:mod:`.termmatch`) and word diffs (:mod:`.worddiff`).

May import :mod:`kb.base` only. The sources, the model and everything above read text through it.
"""
