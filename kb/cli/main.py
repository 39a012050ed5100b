"""The ``kb`` command: build the knowledge base, look rules up, search, run examples, serve the app.

Every command takes ``--instance DIR`` (default: ``$KB_INSTANCE`` or the project's ``instance/``).
Errors are one clear line on stderr and exit status 1, never a traceback. ``kb build`` exits with
3 when it wrote the build but left out files it could not read (each named on stderr).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kb import __version__
from kb.base.paths import default_instance
from kb.cli import types as cli_types

if TYPE_CHECKING:
    from kb.knowledge.model import Edition, KnowledgeBase

# Imports stay inside the commands: `kb rule` must answer in a fraction of a second, so it loads
# neither the build, nor Whoosh, Sudachi or Flask (tests/test_startup.py keeps it that way).

LANGS = ("en", "fr", "ja")
#: What ``kb search --kind`` accepts: the web's kinds and the rule kinds apart (kb.search's, copied
#: so that building the parser does not import Whoosh; a test keeps the two equal).
_RULE_KINDS = ("section", "rule", "subrule")
SEARCH_KINDS = ("rules", *_RULE_KINDS, "glossary", "commentary", "tournament", "example")
#: ``kb build`` exit status when the build is written but some files could not be read.
EXIT_LEFT_OUT = 3


class CommandError(Exception):
    """A user error: printed as one line, exit status 1 (with ``--json``: the error envelope).

    ``status`` is the HTTP status the web app answers the same request with (404: no such rule,
    entry or edition; 400: a request that cannot be answered), as in the envelope's ``status``.
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def json_error(message: str, status: int = 400) -> str:
    """The JSON error envelope of every ``--json`` command, as ``kb search --json`` and the web
    API print it: ``{"ok": false, "error": ..., "status": ...}`` on one line."""
    return json.dumps({"ok": False, "error": message, "status": status}, ensure_ascii=False)


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
    from kb.store.published import load

    return load(_ensure_built(args))


def _pinned_edition(kb: KnowledgeBase, lang: str, spec: str) -> Edition:
    """The one edition ``--edition`` names, else a :class:`CommandError` naming the known
    editions (none matches) or the candidates (a year or month that names several)."""
    found = kb.edition_matches(lang, spec)
    if not found:
        known = ", ".join(e.date or e.id for e in kb.editions_of(lang)) or "none"
        raise CommandError(f"no {lang} edition {spec!r} (known: {known})", 404)
    if len(found) > 1:
        names = ", ".join(e.date or e.id for e in found)
        raise CommandError(f"{spec!r} names {len(found)} {lang} editions ({names}): give one", 400)
    return found[0]


# ---- commands -------------------------------------------------------------------------------
def cmd_build(args: argparse.Namespace, out: TextIO) -> int:
    """``kb build``: read the corpus (plus added paths), build atomically, print the summary."""
    from kb.build import build, terminal_progress

    progress = None if args.quiet else terminal_progress()
    corpus, cards = [Path(p) for p in args.corpus], Path(args.cards) if args.cards else None
    report = build(
        _instance(args),
        corpus,
        force=args.force,
        progress=progress,
        cards=cards,
        forget=args.forget,
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
    from kb.knowledge.lookup import lineage_number, nearest_rules
    from kb.knowledge.printed import printed_rule
    from kb.knowledge.serialise import rule_json
    from kb.text.rulenum import RuleNumberError, parse

    kb = _kb(args)
    try:
        number = str(parse(args.number))
    except RuleNumberError as exc:
        raise CommandError(str(exc)) from exc
    lang = args.lang
    # The edition named (one of the language's, else an error naming them), or the newest.
    ed = _pinned_edition(kb, lang, args.edition) if args.edition else kb.edition(lang, None)
    rule = kb.rule(ed.id, number) if args.edition else kb.find(lang, number)
    if rule is None and not args.edition:
        # A current (canonical) number finds its text in any language: 117.3b is FR 116.3b.
        rule = kb.current(number, lang)
    fallback = None
    if rule is None and not args.edition and lang != "en":
        # Like the web: a rule the language's texts lack is shown in English, with a note.
        rule = kb.current(number, "en")
        fallback = rule is not None
    # A misprinted number (505.54 of 2010-06-18) names the rule that printed it.
    pinned = bool(args.edition) or rule is None  # a misprint names one edition's rule
    if rule is None:
        rule = printed_rule(kb, lang, number, ed.id if args.edition and ed else None)
    if rule is None:
        near = nearest_rules(kb, ed.id, number) if ed else []
        same = lineage_number(kb, ed.id, number) if ed else None
        was = f" (the current {number} is {same} there)" if same else ""
        hint = f"; nearest: {', '.join(near)}" if near else ""
        where = f"edition {args.edition}" if args.edition else f"any {lang} edition"
        raise CommandError(f"no rule {number} in {where}{was}{hint}", 404)
    data = rule_json(kb, rule)
    if args.json:
        _dump(data, out)
        return 0
    from kb.cli.text import write_rule

    if fallback:
        out.write(f"(rule {number} is not available in {lang}; the English text follows)\n")
    write_rule(kb, rule, data, out, pinned, lang)
    return 0


def cmd_glossary(args: argparse.Namespace, out: TextIO) -> int:
    """``kb glossary TERM``: a glossary entry by term or alias, case-insensitively."""
    from kb.knowledge.lookup import glossary_match, glossary_suggestions
    from kb.knowledge.serialise import glossary_json

    kb = _kb(args)
    # The web's lookup: the asked language's entry or term first, a term-base guess last.
    match = glossary_match(kb, args.term, args.lang)
    entry = match.entry if match else None
    via = match.via if match else None
    guessed = bool(match and match.guessed)
    near = glossary_suggestions(kb, args.term, args.lang) if entry is None else []
    if entry is None and len(near) == 1:
        # One entry the words begin or a typo away from (APNAP, stak): that is the answer.
        entry, via, guessed = near[0], near[0].term, True
    if entry is None:
        hint = f"; did you mean: {', '.join(e.term for e in near)}" if near else ""
        raise CommandError(f"no glossary entry {args.term!r} in {args.lang}{hint}", 404)
    if args.json:
        _dump({**glossary_json(entry), "found_as": via}, out)
        return 0
    if via:
        if guessed:
            out.write(f"(no entry {args.term!r}; showing “{via}”)\n")
        else:
            out.write(f"({args.term!r} is “{via}” in the term base)\n")
    flag = " (Obsolete)" if entry.obsolete else ""
    aliases = f" [{', '.join(entry.aliases)}]" if entry.aliases else ""
    out.write(f"{entry.term}{flag}{aliases}  [{entry.edition}]\n{entry.definition}\n")
    return 0


def cmd_editions(args: argparse.Namespace, out: TextIO) -> int:
    """``kb editions``: every edition with its date, source, numbering and counts."""
    from kb.build.read import left_out_rows
    from kb.knowledge.lookup import listed_editions
    from kb.knowledge.serialise import edition_json

    kb = _kb(args)
    rows = [edition_json(e) for lang in LANGS for e in listed_editions(kb, lang)]
    left_out = left_out_rows(kb.warnings)
    if args.json:
        _dump(rows + left_out, out)
        return 0
    from kb.cli.text import write_editions

    write_editions(rows, left_out, out)
    return 0


def cmd_concordance(args: argparse.Namespace, out: TextIO) -> int:
    """``kb concordance FROM TO``: moved / edited / created / deleted rules between two editions."""
    from kb.align.concordance import diff_editions

    kb = _kb(args)
    eds = []
    for spec in (args.old, args.new):
        ed = kb.resolve_edition(spec, None if spec[:3] in ("en-", "fr-", "ja-") else args.lang)
        if ed is None:
            known = ", ".join(e.id for e in kb.editions.values())
            raise CommandError(f"unknown edition {spec!r} (known: {known})", 404)
        eds.append(ed)
    from kb.knowledge.comparison import IncomparableEditions, check_comparable

    try:
        check_comparable(eds[0], eds[1])
    except IncomparableEditions as exc:
        raise CommandError(str(exc)) from None
    # Neighbouring full editions were compared at build time; any other pair is compared now.
    changes = kb.changes.get(f"{eds[0].id}..{eds[1].id}") or diff_editions(kb, eds[0].id, eds[1].id)
    # Against an excerpt, the rules it does not quote are set apart (the web's changes page too).
    from kb.knowledge.comparison import excerpt_sides, split_excerpt

    changes, apart = split_excerpt(eds[0], eds[1], changes)
    groups: dict[str, list[Any]] = {"moved": [], "edited": [], "created": [], "deleted": []}
    for c in changes:
        if c.change in groups:
            groups[c.change].append({"old": c.old, "new": c.new})
    sides = excerpt_sides(eds[0], eds[1])
    if args.json:
        extra = {
            "excerpt": list(sides),
            "not_compared": [{"change": c.change, "old": c.old, "new": c.new} for c in apart],
        }
        _dump({"from": eds[0].id, "to": eds[1].id, **groups, **extra}, out)
        return 0
    from kb.cli.text import write_concordance

    write_concordance(kb, (eds[0], eds[1]), groups, sides, len(apart), args.limit, out)
    return 0


def cmd_search(args: argparse.Namespace, out: TextIO) -> int:
    """``kb search QUERY``: the trilingual search, as text or JSON."""
    from kb.cli.search import run_search_command

    instance = _ensure_built(args)
    buffer = io.StringIO()
    status = run_search_command(
        instance,
        args.query,
        args.lang,
        args.edition,
        args.kind,
        args.limit,
        args.json,
        buffer,
        args.page,
    )
    if status == 0 or args.json:
        out.write(buffer.getvalue())  # JSON: the {"ok": false, ...} envelope says what is wrong
        return 0 if status == 0 else 1
    # A refused query is an error like any other command's: one line on stderr, exit status 1.
    raise CommandError(buffer.getvalue().strip().removeprefix("error: ") or "the search failed")


def cmd_examples(args: argparse.Namespace, out: TextIO) -> int:
    """``kb examples run [PATH]...``: run the executable examples on the priority engine."""
    from kb.engine import examples_cli

    return examples_cli(args.paths, trace=args.trace, out=out)


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """``kb serve``: build when missing or stale, then serve the web app on every core."""
    from kb.build import build, is_stale, terminal_progress
    from kb.web.serving import ServeError, bind, serve

    instance = _instance(args)
    sock = None
    try:  # a busy port is the one line to print, before any build or "serving" line
        # (Flask's reloader binds the port itself and runs this command again in a child.)
        if not args.debug:
            sock = bind(args.host, args.port)
    except ServeError as exc:
        raise CommandError(str(exc)) from None
    if is_stale(instance):
        print(f"kb: building {instance} first", file=sys.stderr)
        report = build(instance, progress=terminal_progress())
        print(report.summary().splitlines()[0], file=sys.stderr)
    try:
        serve(instance, args.host, args.port, workers=args.workers, debug=args.debug, sock=sock)
    except ServeError as exc:
        raise CommandError(str(exc)) from None
    return 0


def cmd_get(args: argparse.Namespace, out: TextIO) -> int:
    """``kb get PATH``: render one page or JSON of the web app without a server."""
    from kb.web import render_get

    _ensure_built(args)
    status, body = render_get(_instance(args), args.path)
    out.write(body if body.endswith("\n") else body + "\n")
    if status >= 400:
        # The page says what is wrong; a script reading stderr and the status learns it too.
        raise CommandError(f"{args.path}: HTTP {status}: {_error_of(body)}")
    return 0


def _error_of(body: str) -> str:
    """The message of an error page or of its JSON envelope."""
    import html  # here: its entity tables cost every other command's start

    try:
        data = json.loads(body)
    except ValueError:
        found = re.search(r'<p class="error">(.*?)</p>', body, re.S)
        return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip() if found else ""
    return str(data.get("error", "")) if isinstance(data, dict) else ""


def cmd_update(args: argparse.Namespace, out: TextIO) -> int:
    """``kb update``: add the newest official rules text from the publisher (``--check``: only
    say whether there is one: exit 0 up to date, 2 a newer edition is available, 1 an error;
    64 a usage error, see :data:`kb.cli.types.USAGE_ERROR`)."""
    from kb.build import terminal_progress
    from kb.build.update import UpdateError, rules_url, update

    try:
        rules_url(args.url)  # a malformed $KB_RULES_URL is named before any build or request
    except UpdateError as exc:
        raise CommandError(str(exc)) from exc
    instance = _ensure_built(args)
    progress = None if args.quiet or args.check else terminal_progress()
    try:
        result = update(
            instance, url=args.url, check=args.check, timeout=args.timeout, progress=progress
        )
    except UpdateError as exc:
        raise CommandError(str(exc)) from exc
    if progress:
        sys.stderr.write("\r" + " " * 90 + "\r")
    if not args.quiet or result.status == "updated":
        out.write(result.message() + "\n")
    return 2 if result.status == "available" else 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    """``kb export DIR``: the whole site as static files for any web host or CDN."""
    from kb.export.runner import ExportError, export

    instance = _ensure_built(args)
    try:
        report = export(
            instance,
            Path(args.dir),
            base_url=args.base_url,
            search=not args.no_search,
            quiet=args.quiet,
            jobs=args.jobs,
        )
    except ExportError as exc:
        raise CommandError(str(exc)) from exc
    except KeyboardInterrupt:
        msg = f"export interrupted: {args.dir} holds part of the site; run again to finish it"
        raise CommandError(msg) from None
    out.write(report.summary() + "\n")
    out.flush()
    return 0


# ---- parser ---------------------------------------------------------------------------------


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
    b.add_argument("--forget", metavar="PATH", action="append", default=[], help="forget PATH")
    b.add_argument("--force", action="store_true", help="rebuild even if the inputs are unchanged")
    b.add_argument("--json", action="store_true", help="print the summary as JSON")
    b.add_argument("--quiet", action="store_true", help="no progress bar; one summary line")
    b.set_defaults(func=cmd_build)
    from kb.cli.cards import add_parsers  # `kb card` and `kb build --cards`

    add_parsers(sub, common, b, CommandError, _ensure_built)

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
    c.add_argument(
        "--limit", type=cli_types.positive, default=20, help="items shown per list (text output)"
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_concordance)

    s = sub.add_parser("search", parents=[common], help="search rules, glossary and examples")
    s.add_argument("query")
    s.add_argument("--lang", choices=LANGS)
    s.add_argument("--edition", metavar="DATE")
    s.add_argument("--kind", choices=SEARCH_KINDS, help="what to search (default: everything)")
    s.add_argument("--limit", type=cli_types.positive, default=10, help="hits per page (1-100)")
    s.add_argument("--page", type=cli_types.page, default=1, help="which page of hits (from 1)")
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
    w.add_argument(
        "--port", type=cli_types.port, default=5000, help="TCP port, 1-65535 (default 5000)"
    )
    w.add_argument(
        "--workers",
        type=cli_types.positive,
        metavar="N",
        help="worker processes (default: one per core; gunicorn on Linux and macOS)",
    )
    w.add_argument("--debug", action="store_true", help="Flask's debugger and reloader")
    w.set_defaults(func=cmd_serve)

    gt = sub.add_parser("get", parents=[common], help="render a page or JSON of the app, no server")
    gt.add_argument("path", help="a URL path such as /en/rules/117.3b.json")
    gt.set_defaults(func=cmd_get)

    u = sub.add_parser(
        "update", parents=[common], help="add the newest official rules text from the publisher"
    )
    u.add_argument(
        "--check",
        action="store_true",
        help="only check: exit 0 up to date, 2 a newer edition is available, 1 an error "
        f"(any kb update: {cli_types.USAGE_ERROR} a usage error, such as a bad --url or --timeout)",
    )
    u.add_argument(
        "--url",
        type=cli_types.rules_url,
        help="the rules page linking the .txt (default: $KB_RULES_URL or the publisher's page)",
    )
    u.add_argument(
        "--timeout", type=cli_types.seconds, default=30.0, help="seconds per request (default 30)"
    )
    u.add_argument("--quiet", action="store_true", help="print only when an edition was added")
    u.set_defaults(func=cmd_update)
    cli_types.usage_errors_exit(u)  # argparse's 2 would read as "a newer edition is available"

    ex = sub.add_parser("export", parents=[common], help="write the site as static files")
    ex.add_argument("dir", metavar="DIR", help="output folder (files that did not change are kept)")
    ex.add_argument(
        "--base-url",
        metavar="URL",
        help="where the site will live (http or https), for its pages, sitemap and OpenSearch "
        "(default http://127.0.0.1:8000)",
    )
    ex.add_argument("--no-search", action="store_true", help="skip the Pagefind search index")
    ex.add_argument(
        "--jobs",
        type=cli_types.positive,
        metavar="N",
        help="pages rendered in N processes (default: cores, max 4)",
    )
    ex.add_argument("--quiet", action="store_true", help="no progress line")
    ex.set_defaults(func=cmd_export)
    return p


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the ``kb`` command; returns the exit status."""
    out = out or sys.stdout
    args = parser().parse_args(argv)
    if not hasattr(args, "instance"):
        args.instance = None
    try:
        return int(args.func(args, out) or 0)
    except CommandError as exc:
        _report(args, out, str(exc), exc.status)
        return 1
    except KeyboardInterrupt:
        print("kb: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `kb ... | head`: the reader left; nothing to say at exit either
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        return 0
    except Exception as exc:
        message = cli_types.user_error(exc)
        if message is None:
            raise
        _report(args, out, message, 400)
        return 1


def _report(args: argparse.Namespace, out: TextIO, message: str, status: int) -> None:
    """A user error: the JSON envelope on stdout for ``--json``, else one line on stderr."""
    if getattr(args, "json", False):
        out.write(json_error(message, status) + "\n")
    else:
        print(f"kb: error: {message}", file=sys.stderr)
