"""The ground floor: where the package's files are, the instance folder's on-disk layout and lock,
the build cache, forked worker processes, a bounded memo, SQLite bulk writes and URL checks.

Owns nothing about Magic. May import only the standard library and third-party packages, never
another ``kb`` package: every layer above may use it.
"""
