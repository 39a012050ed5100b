"""The ``kb`` command: build the knowledge base, look rules up, search, run examples, serve the app.

Every command takes ``--instance DIR`` (default: ``$KB_INSTANCE`` or the project's ``instance/``).
Errors are one clear line on stderr and exit status 1, never a traceback. ``kb build`` exits with
3 when it wrote the build but left out files it could not read (each named on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kb import __version__
from kb.paths import default_instance

if TYPE_CHECKING:
    from kb.model import KnowledgeBase

# Imports stay inside the commands: `kb rule` must answer in a fraction of a second, so it loads
# neither the build, nor Whoosh, Sudachi or Flask (tests/test_startup.py keeps it that way).

LANGS = ("en", "fr", "ja")
#: What ``kb search --kind`` accepts: kb.search.indexer.KINDS, copied so that building the parser
#: does not import Whoosh (a test keeps the two equal).
SEARCH_KINDS = ("section", "rule", "subrule", "glossary", "commentary", "tournament", "example")
#: ``kb build`` exit status when the build is written but some files could not be read.
EXIT_LEFT_OUT = 3


class CommandError(Exception):
    """A user error: printed as one line, exit status 1."""


def _dump(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _instance(args: argparse.Namespace) -> Path:
    return Path(args.instance).expanduser() if args.instance else default_instance()


def _ensure_built(args: argparse.Namespace) -> Path:
    """The instance folder, built first when it is the default one and has no build yet.

    An instance named with ``--instance`` or ``$KB_INSTANCE`` must exist: a mistyped folder would
    otherwise be silently built from the embedded corpus alone.
    """
    from kb.store import DB_FILE

    instance = _instance(args)
    if (instance / DB_FILE).is_file() or (instance / "kb.json").is_file():
        return instance
    if args.instance or os.environ.get("KB_INSTANCE"):
        raise CommandError(f"no build in {instance}: run `kb build --instance {instance}` first")
    print(f"kb: no build in {instance} yet; building it first", file=sys.stderr)
    from kb.build import build, terminal_progress

    build(instance, progress=terminal_progress())
    return instance


def _kb(args: argparse.Namespace) -> KnowledgeBase:
    """The built knowledge base (see :func:`_ensure_built`), opened read-only."""
    from kb.instance import load

    return load(_ensure_built(args))


# ---- commands -------------------------------------------------------------------------------
def cmd_build(args: argparse.Namespace, out: TextIO) -> int:
    """``kb build``: read the corpus (plus added paths), build atomically, print the summary."""
    from kb.build import build, terminal_progress

    progress = None if args.quiet else terminal_progress()
    report = build(
        _instance(args), [Path(p) for p in args.corpus], force=args.force, progress=progress
    )
    if progress:
        sys.stderr.write("\r" + " " * 90 + "\r")
    if args.json:
        _dump(
            {
                "instance": str(report.instance),
                "skipped": report.skipped,
                "content_hash": report.content_hash,
                "seconds": round(report.seconds, 3),
                "timings": report.timings,
                "editions": report.editions,
                "totals": report.totals,
                "warnings": report.problems,
                "left_out": report.left_out,
                "notes": report.notes,
            },
            out,
        )
    elif args.quiet:
        out.write(report.summary().splitlines()[0] + "\n")
    else:
        out.write(report.summary() + "\n")
    if report.left_out:
        # The build is written (the rest of the corpus is usable), but a script must notice.
        for problem in report.left_out:
            print(f"kb: left out {problem}", file=sys.stderr)
        return EXIT_LEFT_OUT
    return 0


def cmd_rule(args: argparse.Namespace, out: TextIO) -> int:
    """``kb rule NUMBER``: one rule with its tree, references, history and translations."""
    from kb.rulenum import RuleNumberError, parse
    from kb.views import rule_json

    kb = _kb(args)
    try:
        number = str(parse(args.number))
    except RuleNumberError as exc:
        raise CommandError(str(exc)) from exc
    lang = args.lang
    if args.edition and kb.edition(lang, args.edition) is None:
        known = ", ".join(e.date or e.id for e in kb.editions_of(lang)) or "none"
        raise CommandError(f"no {lang} edition {args.edition!r} (known: {known})")
    rule = kb.find(lang, number, args.edition)
    if rule is None and not args.edition:
        # A current (canonical) number finds its text in any language: 117.3b is FR 116.3b.
        rule = kb.current(number, lang)
    if rule is None:
        near = kb.nearest(lang, number, args.edition)
        hint = f"; nearest: {', '.join(near)}" if near else ""
        where = f"edition {args.edition}" if args.edition else f"any {lang} edition"
        raise CommandError(f"no rule {number} in {where}{hint}")
    data = rule_json(kb, rule)
    if args.json:
        _dump(data, out)
        return 0
    head = f"{rule.number}. {rule.title}" if rule.title else rule.number
    out.write(f"{head}  [{rule.lang} {rule.edition}]\n")
    if rule.text:
        out.write(rule.text + "\n")
    for example in rule.examples:
        out.write(f"  Example: {example}\n")
    if rule.canonical and rule.canonical != rule.number:
        out.write(f"Now rule {rule.canonical}.\n")
    elif rule.canonical is None:
        out.write("This rule no longer exists in the newest English edition.\n")
    for child in rule.children:
        node = kb.rule(rule.edition, child)
        if node:
            out.write(f"  {child} {node.title or node.text[:90]}\n")
    if data["history"]:
        out.write(
            "History: "
            + "; ".join(f"{h['edition']} {h['number']} ({h['change']})" for h in data["history"])
            + "\n"
        )
    for lang_, tr in data["translations"].items():
        out.write(f"[{lang_} {tr['edition']}] {tr['number']} {tr['text'][:120]}\n")
    return 0


def cmd_glossary(args: argparse.Namespace, out: TextIO) -> int:
    """``kb glossary TERM``: a glossary entry by term or alias, case-insensitively."""
    from kb.terms import TermIndex
    from kb.views import glossary_json

    kb = _kb(args)
    entry = kb.glossary_lookup(args.term, args.lang)
    via = None
    if entry is None:
        # No entry of that name in that language: the term base knows the concept in English.
        for src in dict.fromkeys([args.lang, "en", "fr", "ja"]):
            for name in TermIndex(kb.terms).translate(args.term, src, "en"):
                entry = kb.glossary_lookup(name, args.lang) or kb.glossary_lookup(name, "en")
                if entry is not None:
                    via = name
                    break
            if entry is not None:
                break
    if entry is None:
        raise CommandError(f"no glossary entry {args.term!r} in {args.lang}")
    if args.json:
        _dump({**glossary_json(entry), "found_as": via}, out)
        return 0
    if via:
        out.write(f"({args.term!r} is “{via}” in the term base)\n")
    flag = " (Obsolete)" if entry.obsolete else ""
    aliases = f" [{', '.join(entry.aliases)}]" if entry.aliases else ""
    out.write(f"{entry.term}{flag}{aliases}  [{entry.edition}]\n{entry.definition}\n")
    return 0


def cmd_editions(args: argparse.Namespace, out: TextIO) -> int:
    """``kb editions``: every edition with its date, source, numbering and counts."""
    from kb.views import edition_json

    kb = _kb(args)
    rows = [edition_json(e) for lang in LANGS for e in kb.editions_of(lang)]
    if args.json:
        _dump(rows, out)
        return 0
    for r in rows:
        out.write(
            f"{r['lang']}  {r['date'] or '(undated)':<10}  {r['kind']:<7}  rules {r['rules']:>5}  "
            f"examples {r['examples']:>4}  glossary {r['glossary']:>4}  unresolved "
            f"{r['unresolved_refs']:>3}  {r['id']}  ({Path(r['source'] or '').name})\n"
        )
    return 0


def cmd_concordance(args: argparse.Namespace, out: TextIO) -> int:
    """``kb concordance FROM TO``: moved / edited / created / deleted rules between two editions."""
    from kb.concordance import diff_editions

    kb = _kb(args)
    eds = []
    for spec in (args.old, args.new):
        ed = kb.resolve_edition(spec, None if spec[:3] in ("en-", "fr-", "ja-") else args.lang)
        if ed is None:
            known = ", ".join(e.id for e in kb.editions.values())
            raise CommandError(f"unknown edition {spec!r} (known: {known})")
        eds.append(ed)
    # Neighbouring full editions were compared at build time; any other pair is compared now.
    changes = kb.changes.get(f"{eds[0].id}..{eds[1].id}") or diff_editions(kb, eds[0].id, eds[1].id)
    groups: dict[str, list[Any]] = {"moved": [], "edited": [], "created": [], "deleted": []}
    for c in changes:
        groups[c.change].append({"old": c.old, "new": c.new})
    if args.json:
        _dump({"from": eds[0].id, "to": eds[1].id, **groups}, out)
        return 0
    out.write(f"{eds[0].id} -> {eds[1].id}\n")
    for kind, items in groups.items():
        out.write(f"{kind} ({len(items)})\n")
        for item in items[: args.limit]:
            out.write(f"  {item['old'] or '-'} -> {item['new'] or '-'}\n")
        if len(items) > args.limit:
            out.write(f"  … {len(items) - args.limit} more (--limit, or --json for all)\n")
    return 0


def cmd_search(args: argparse.Namespace, out: TextIO) -> int:
    """``kb search QUERY``: the trilingual search, as text or JSON."""
    from kb.search import run_search_command

    instance = _ensure_built(args)
    return run_search_command(
        instance, args.query, args.lang, args.edition, args.kind, args.limit, args.json, out
    )


def cmd_examples(args: argparse.Namespace, out: TextIO) -> int:
    """``kb examples run [PATH]...``: run the executable examples on the priority engine."""
    from kb.engine import examples_cli

    return examples_cli(args.paths, trace=args.trace, out=out)


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """``kb serve``: build when missing or stale, then serve the web app with waitress."""
    from kb.build import build, is_stale, terminal_progress
    from kb.web import serve

    instance = _instance(args)
    if is_stale(instance):
        print(f"kb: building {instance} first", file=sys.stderr)
        report = build(instance, progress=terminal_progress())
        print(report.summary().splitlines()[0], file=sys.stderr)
    try:
        serve(instance, args.host, args.port, debug=args.debug)
    except OSError as exc:
        raise CommandError(
            f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}"
        ) from exc
    return 0


def cmd_get(args: argparse.Namespace, out: TextIO) -> int:
    """``kb get PATH``: render one page or JSON of the web app without a server."""
    from kb.web import render_get

    _ensure_built(args)
    status, body = render_get(_instance(args), args.path)
    out.write(body if body.endswith("\n") else body + "\n")
    return 0 if status < 400 else 1


# ---- parser ---------------------------------------------------------------------------------


def _positive(text: str) -> int:
    """An argparse type: a whole number from 1 to 100."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be between 1 and 100, not {value}")
    return value


def parser() -> argparse.ArgumentParser:
    """The argument parser of every command (also the source of ``kb --help``)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--instance",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="instance folder with the built artefacts (default: $KB_INSTANCE or ./instance)",
    )
    p = argparse.ArgumentParser(
        prog="kb",
        description="A trilingual knowledge base, search engine and priority engine for the "
        "Magic: The Gathering Comprehensive Rules.",
        parents=[common],
    )
    p.add_argument("--version", action="version", version=f"kb {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    b = sub.add_parser("build", parents=[common], help="build the knowledge base and search index")
    b.add_argument(
        "--corpus",
        metavar="PATH",
        action="append",
        default=[],
        help="add a rules file or folder (remembered by the instance); repeatable",
    )
    b.add_argument("--force", action="store_true", help="rebuild even if the inputs are unchanged")
    b.add_argument("--json", action="store_true", help="print the summary as JSON")
    b.add_argument("--quiet", action="store_true", help="no progress bar; one summary line")
    b.set_defaults(func=cmd_build)

    r = sub.add_parser("rule", parents=[common], help="show one rule")
    r.add_argument("number", help="rule number in any spelling: 117.3a, rule 117.3a, １１７．３ａ")
    r.add_argument("--lang", choices=LANGS, default="en")
    r.add_argument("--edition", metavar="DATE", help="a pinned edition: 2019-06-14, en-2011-09-30")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_rule)

    g = sub.add_parser("glossary", parents=[common], help="show a glossary entry")
    g.add_argument("term")
    g.add_argument("--lang", choices=LANGS, default="en")
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=cmd_glossary)

    e = sub.add_parser("editions", parents=[common], help="list the editions and their counts")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_editions)

    c = sub.add_parser("concordance", parents=[common], help="what changed between two editions")
    c.add_argument("old", metavar="FROM", help="edition: en-2019-06-14 or 2019-06-14")
    c.add_argument("new", metavar="TO")
    c.add_argument("--lang", choices=LANGS, default="en")
    c.add_argument("--limit", type=_positive, default=20, help="items shown per list (text output)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_concordance)

    s = sub.add_parser("search", parents=[common], help="search rules, glossary and examples")
    s.add_argument("query")
    s.add_argument("--lang", choices=LANGS)
    s.add_argument("--edition", metavar="DATE")
    s.add_argument("--kind", choices=SEARCH_KINDS, help="what to search (default: everything)")
    s.add_argument("--limit", type=_positive, default=10, help="hits per page (1-100)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_search)

    x = sub.add_parser("examples", parents=[common], help="executable examples")
    xs = x.add_subparsers(dest="action", metavar="ACTION", required=True)
    xr = xs.add_parser("run", parents=[common], help="run examples on the priority engine")
    xr.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: corpus/examples)"
    )
    xr.add_argument("--trace", action="store_true", help="print each example's full trace")
    xr.set_defaults(func=cmd_examples)

    w = sub.add_parser("serve", parents=[common], help="serve the web app (builds first if needed)")
    w.add_argument("--host", default="127.0.0.1")
    w.add_argument("--port", type=int, default=5000)
    w.add_argument("--debug", action="store_true", help="Flask's debugger and reloader")
    w.set_defaults(func=cmd_serve)

    gt = sub.add_parser("get", parents=[common], help="render a page or JSON of the app, no server")
    gt.add_argument("path", help="a URL path such as /en/rules/117.3b.json")
    gt.set_defaults(func=cmd_get)
    return p


def _user_error(exc: Exception) -> str | None:
    """The one-line message of an error that is the user's to fix (None: a bug, re-raised).

    The error classes are looked up only in modules already imported: an exception cannot come
    from a module that was never loaded, and importing them all would slow every command.
    """
    for module, name in (
        ("kb.instance", "BuildError"),
        ("kb.search.analysis", "JaAnalyzerError"),
    ):
        cls = getattr(sys.modules.get(module), name, None)
        if cls is not None and isinstance(exc, cls):
            return str(exc)
    cls = getattr(sys.modules.get("kb.sources.records"), "SourceError", None)
    if cls is not None and isinstance(exc, cls):
        return str(exc.problem)  # type: ignore[attr-defined]
    return None


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the ``kb`` command; returns the exit status."""
    out = out or sys.stdout
    args = parser().parse_args(argv)
    if not hasattr(args, "instance"):
        args.instance = None
    try:
        return int(args.func(args, out) or 0)
    except CommandError as exc:
        print(f"kb: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("kb: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        message = _user_error(exc)
        if message is None:
            raise
        print(f"kb: error: {message}", file=sys.stderr)
        return 1
