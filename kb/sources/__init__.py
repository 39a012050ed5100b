"""Sources: reading every kind of rules text into records (:mod:`.records`). :mod:`.registry`
recognises a file by its content and hands it to its reader: the official English rules
(:mod:`.cr_text`), tournament rules (:mod:`.mtr`), and the wiki and site pages of the seeds
(:mod:`.wiki`, ``seed_*``); :mod:`.decode` reads any encoding.

Layer: may import :mod:`kb.text` and :mod:`kb.base` only. The knowledge base is made from what
it reads; nothing here knows the model.
"""
