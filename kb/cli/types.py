"""The command line's value types (argparse ``type=``): each turns a typed word into a value or
says in one line what is wrong with it, so that ``kb`` answers a usage error, not a stack trace."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kb.base.limits import MAX_LIMIT

#: The exit status of a usage error (a bad or unknown option) of a command whose own statuses
#: give 2 a meaning (``kb update --check``: 2 says a newer edition is available); sysexits'
#: EX_USAGE. Other commands keep argparse's 2.
USAGE_ERROR = 64


def usage_errors_exit(parser: argparse.ArgumentParser, status: int = USAGE_ERROR) -> None:
    """Make a (sub)command's parser answer every usage error, a bad option value or an option it
    does not know, with ``status`` instead of argparse's 2; the message is argparse's own."""

    def error(message: str) -> Any:
        parser.print_usage(sys.stderr)
        parser.exit(status, f"{parser.prog}: error: {message}\n")

    known = parser.parse_known_args

    def parse_known_args(args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = known(args, namespace)
        if extras:  # left for the main parser, which would exit with 2
            error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    parser.error = error  # type: ignore[method-assign]
    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def seconds(text: str) -> float:
    """An argparse type: a number of seconds from 0.1 to 600."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.1 <= value <= 600:
        raise argparse.ArgumentTypeError(f"must be between 0.1 and 600 seconds, not {text}")
    return value


def rules_url(text: str) -> str:
    """An argparse type: an http(s) URL with a host (``kb update --url``)."""
    from kb.build.update import url_problem

    problem = url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text!r}: {problem}")
    return text


def port(text: str) -> int:
    """An argparse type: a TCP port from 1 to 65535."""
    return _whole(text, 1, 65535, "port must be 1–65535, not {}")


def positive(text: str) -> int:
    """An argparse type: a whole number from 1 to :data:`MAX_LIMIT`."""
    return _whole(text, 1, MAX_LIMIT, f"must be between 1 and {MAX_LIMIT}, not {{}}")


def page(text: str) -> int:
    """An argparse type: a page of search hits, from 1 to 1000."""
    return _whole(text, 1, 1000, "must be between 1 and 1000, not {}")


def _whole(text: str, low: int, high: int, outside: str) -> int:
    """``text`` as a whole number from ``low`` to ``high``; ``outside`` says what is wrong else."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(outside.format(value))
    return value


def user_error(exc: Exception) -> str | None:
    """The one-line message of an error that is the user's to fix (None: a bug, re-raised).

    The error classes are looked up only in modules already imported: an exception cannot come
    from a module that was never loaded, and importing them all would slow every command.
    """
    for module, name in (
        ("kb.base.instance", "BuildError"),
        ("kb.search.analysis", "JaAnalyzerError"),
    ):
        cls = getattr(sys.modules.get(module), name, None)
        if cls is not None and isinstance(exc, cls):
            return str(exc)
    cls = getattr(sys.modules.get("kb.sources.records"), "SourceError", None)
    if cls is not None and isinstance(exc, cls):
        return str(exc.problem)  # type: ignore[attr-defined]
    return None
