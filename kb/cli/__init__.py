"""The ``kb`` command: argument parsing and each command (:mod:`.main`), the text the commands
print (:mod:`.text`), argument types (:mod:`.types`) and ``kb search`` (:mod:`.search`).

The top layer: may import every other package; none imports it.
"""
