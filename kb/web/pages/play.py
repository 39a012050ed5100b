"""The playground: ``/<locale>/play``, where anyone writes a scenario in the example language,
runs it on the engine and reads the trace with its rules linked.

The scenario travels three ways: in the page's address as a permalink (``?s=``: the text
deflated, raw, and written in base64url, at most :data:`MAX_CODE` characters so the whole
address stays under the app's 2,048), from an example (``?example=<id>&block=N``: the "Try it"
link of every example page), and in a form posted to the same address (no script needed; the
page's script, ``play.js``, posts to ``/api/run`` instead and keeps the address at the
permalink). Runs go through :mod:`kb.web.playrun`: worker processes bounded in CPU time and
memory, and a gate that answers "busy" rather than take the threads the rule pages need.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from typing import Any

from flask import Response, current_app, g, render_template, request

from kb.engine.playground import MAX_CHARS, MAX_LINES
from kb.knowledge.model import LANGS, ExampleInfo
from kb.web.i18n import Text
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, bp, respond, twin
from kb.web.pages.examples import _GAME, local_title
from kb.web.playrun import Busy, RunPool, Unavailable
from kb.web.resources import get_kb
from kb.web.urls import url_for

#: The longest permalink code (``?s=``): the app refuses addresses over 2,048 characters.
MAX_CODE = 1_900
_CODE = re.compile(r"[A-Za-z0-9_-]*\Z")
#: A sample to start from when the page is opened with nothing.
SAMPLE = """players: Alice, Bob
turn: Alice, precombat main, turn 2
Alice has: hand [Lightning Bolt]; battlefield [Mountain]
Alice taps Mountain for {R}
Alice casts Lightning Bolt targeting Bob
? stack: Lightning Bolt
Alice passes
Bob passes
? life Bob: 17
"""


# ---- permalinks --------------------------------------------------------------------------------
def encode(scenario: str) -> str | None:
    """The permalink code of a scenario, or None when it would be longer than :data:`MAX_CODE`."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = deflate.compress(scenario.encode("utf-8")) + deflate.flush()
    code = base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")
    return code if len(code) <= MAX_CODE else None


def decode(code: str) -> str:
    """The scenario of a permalink code; a :class:`PageError` (400) saying what is wrong with a
    damaged one. Decompression stops past :data:`MAX_CHARS` characters' worth of bytes, so a
    small code cannot inflate into a large text."""
    if len(code) > MAX_CODE or not _CODE.match(code):
        raise PageError(
            400,
            _(
                "This playground link is damaged: ?s= holds letters, digits, - "
                "and _ only, at most %(limit)s of them.",
                limit=MAX_CODE,
            ),
        )
    try:
        data = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        inflate = zlib.decompressobj(-15)
        raw = inflate.decompress(data, MAX_CHARS * 4 + 1)
        if inflate.unconsumed_tail or len(raw) > MAX_CHARS * 4 or not inflate.eof:
            raise ValueError("too long or cut short")
        text = raw.decode("utf-8")
    except (binascii.Error, zlib.error, ValueError):
        raise PageError(
            400,
            _(
                "This playground link is damaged: its scenario cannot be read. "
                "Copy the whole link again."
            ),
        ) from None
    return text


def play_url(locale: str, scenario: str) -> str | None:
    """The permalink of a scenario in ``locale`` (None: too long for an address)."""
    code = encode(scenario)
    return None if code is None else f"{url_for('pages.play', locale=locale)}?s={code}"


# ---- runs ----------------------------------------------------------------------------------------
def pool() -> RunPool:
    """This process's pool (made on the first run, from the app's ``PLAY_*`` settings)."""
    app = current_app
    found = app.extensions.get("kb.play")
    if found is None:
        c = app.config
        found = app.extensions.setdefault(
            "kb.play",
            RunPool(
                size=c.get("PLAY_WORKERS", 1),
                queue=c.get("PLAY_QUEUE", 1),
                wait=c.get("PLAY_WAIT", 2.0),
                timeout=c.get("PLAY_TIMEOUT", 10.0),
                cpu_ms=c.get("PLAY_CPU_MS", 200),
                memory_mb=c.get("PLAY_MEMORY_MB", 512),
                nice=c.get("PLAY_NICE", 10),
            ),
        )
    return found  # type: ignore[no-any-return]


def _summary(answer: dict[str, Any], cpu_ms: int) -> Text:
    outcome = answer.get("outcome")
    if outcome == "cpu":
        return _("The run used more than %(ms)s ms of CPU time and was stopped.", ms=cpu_ms)
    if outcome == "memory":
        return _("The run used too much memory and was stopped.")
    if outcome == "ended":
        return _(
            "The run took its worker process past the limits of memory or CPU time and was stopped."
        )
    if outcome == "timeout":
        return _("The run took too long and was stopped; try again in a moment.")
    if outcome == "error":
        return _("The engine failed on this scenario; the problem is logged.")
    if answer.get("passed"):
        return _("The scenario ran and every expectation held.")
    count = len(answer.get("problems") or [])
    return _("The scenario has %(count)s problem(s): see the lines named below.", count=count)


def run(locale: str, scenario: str) -> dict[str, Any]:
    """Run a scenario for a reader of ``locale``: the worker's answer shaped for the page and
    the API (events with their rule links, a summary in English and in ``locale``, the
    permalink). Raises :class:`PageError` 429 when busy, 503 when no worker can start."""
    if len(scenario) > MAX_CHARS:
        answer: dict[str, Any] = {
            "outcome": "done",
            "passed": False,
            "started": False,
            "events": [],
            "events_left_out": 0,
            "lines": 0,
            "cpu_ms": 0,
            "problems": [
                {
                    "line": 0,
                    "message": f"the scenario is too long: {len(scenario):,} "
                    f"characters, at most {MAX_CHARS:,}",
                }
            ],
        }
    else:
        rule_url = url_for("pages.rule", locale=locale, number="000").replace("000", "{}")
        try:
            answer = pool().run(scenario, rule_url)
        except Busy as busy:
            g.uncacheable = True
            g.retry_after = busy.retry_after
            raise PageError(
                429,
                _(
                    "The playground is busy: every worker is running a scenario. Try again in "
                    "%(seconds)s s.",
                    seconds=busy.retry_after,
                ),
                retry_after=busy.retry_after,
            ) from None
        except Unavailable:
            g.uncacheable = True
            g.retry_after = 5
            raise PageError(503, _("The playground cannot run scenarios right now.")) from None
    if answer.get("outcome") in ("timeout", "ended", "error", "memory"):
        g.uncacheable = True
    cpu_limit = current_app.config.get("PLAY_CPU_MS", 200)
    summary = _summary(answer, cpu_limit)
    events = []
    for event in answer.get("events") or []:
        where = (
            f"{event.get('active') or '-'} {event.get('turn')} {event.get('step')}"
            if event.get("step")
            else "setup"
        )
        events.append(
            {
                "seq": event.get("seq"),
                "where": where,
                "text": event.get("text", ""),
                "rules": event.get("links") or [],
            }
        )
    link = play_url(locale, scenario)
    return {
        "outcome": answer.get("outcome", "error"),
        "passed": bool(answer.get("passed")),
        "started": bool(answer.get("started")),
        "message": summary.english(),
        "message_local": summary.local(locale),
        "problems": [
            {"line": int(p.get("line", 0)), "message": str(p.get("message", ""))}
            for p in answer.get("problems") or []
        ],
        "events": events,
        "events_left_out": int(answer.get("events_left_out") or 0),
        "cpu_ms": answer.get("cpu_ms"),
        "cpu_limit_ms": cpu_limit,
        "permalink": link,
    }


# ---- the page ------------------------------------------------------------------------------------
def _example(example_id: str, block: str | None) -> tuple[ExampleInfo, list[str], int]:
    """An example by id, its game blocks, and the block asked for (1-based)."""
    for ex in get_kb().examples:
        if ex.id == example_id:
            blocks = [b.rstrip() for b in _GAME.findall(ex.markdown)]
            number = int(block) if block and block.isdigit() and len(block) < 4 else 1
            if not 1 <= number <= len(blocks):
                raise PageError(
                    404,
                    _(
                        "Example “%(id)s” has no scenario %(n)s.",
                        id=example_id[:60],
                        n=(block or "1")[:8],
                    ),
                )
            return ex, blocks, number
    raise PageError(404, _("No example “%(id)s”.", id=example_id[:60]))


def play_page(locale: str, scenario: str | None, source: dict[str, Any] | None) -> Page:
    """The playground with ``scenario`` in its editor and, when one was given, its run."""
    result, notice, status, error = None, None, 200, None
    if scenario is not None:
        try:
            result = run(locale, scenario)
        except PageError as busy:  # busy or unavailable: the page keeps the scenario to run later
            if busy.status not in (429, 503):
                raise
            notice, status, error = busy.text.local(locale), busy.status, busy.text
    data = {
        "notice": notice,
        "scenario": SAMPLE if scenario is None else scenario,
        "source": source,
        "result": result,
        "limits": {
            "chars": MAX_CHARS,
            "lines": MAX_LINES,
            "cpu_ms": current_app.config.get("PLAY_CPU_MS", 200),
        },
        "run_url": url_for("play_api.run_scenario"),
        "examples_url": url_for("pages.examples", locale=locale),
    }
    query = request.query_string.decode("latin-1")
    suffix = f"?{query}" if query and request.method == "GET" else ""
    return Page(
        "pages/play.html",
        data,
        status=status,
        error=error,
        alternates={loc: url_for("pages.play", locale=loc) + suffix for loc in LANGS},
    )


@twin("/<locale:locale>/play", "play")
def play(locale: str, fmt: str = "html") -> Page | Response:
    """The playground: empty (a sample), from a permalink (``?s=``) or an example (``?example=``)."""
    code, example_id = request.args.get("s"), request.args.get("example")
    if code is not None and example_id is not None:
        raise PageError(400, _("Give ?s= (a permalink) or ?example=, not both."))
    if code is not None:
        return _answer(play_page(locale, decode(code), None), fmt)
    if example_id is not None:
        ex, blocks, number = _example(example_id, request.args.get("block"))
        title, lang = local_title(ex, locale)
        source = {
            "id": ex.id,
            "title": title,
            "title_lang": lang,
            "url": url_for("pages.example", locale=locale, example_id=ex.id),
            "block": number,
            "blocks": [
                {
                    "number": n,
                    "url": f"{url_for('pages.play', locale=locale)}?example={ex.id}&block={n}",
                }
                for n in range(1, len(blocks) + 1)
            ]
            if len(blocks) > 1
            else [],
        }
        return _answer(play_page(locale, blocks[number - 1], source), fmt)
    return play_page(locale, None, None)


def _answer(page: Page, fmt: str) -> Response:
    """The page in the form asked for; a busy one says when to come back."""
    response = respond(page, fmt)
    if page.status in (429, 503):
        response.headers["Retry-After"] = str(g.get("retry_after", 1))
    return response


def play_post(locale: str) -> Response:
    """The form posted without the page's script: the same page, with the run."""
    g.uncacheable = True
    scenario = request.form.get("scenario")
    if scenario is None:
        raise PageError(400, _("Missing 'scenario': the text of the scenario to run."))
    page = play_page(locale, scenario, None)
    # Not respond(): its Link header names the twin of this endpoint, and the form has none.
    html = render_template(
        page.template,
        alternates=page.alternates,
        json_url=url_for("pages.play_json", locale=locale),
        **page.data,
    )
    response = Response(html, status=page.status, mimetype="text/html")
    if page.status in (429, 503):
        response.headers["Retry-After"] = str(g.get("retry_after", 1))
    return response


bp.add_url_rule("/<locale:locale>/play", "play_post", play_post, methods=["POST"])
