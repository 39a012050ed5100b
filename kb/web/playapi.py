"""``POST /api/run``: run a playground scenario and answer its trace as JSON.

The body is JSON ``{"scenario": "...", "locale": "en"}`` (or the same as form fields). The run
goes through the same gate and worker processes as the playground page (:mod:`kb.web.playrun`):
a full gate answers 429 with ``Retry-After``, no worker 503, and a bad body 400, each in the
site's error envelope; what the scenario itself gets wrong (syntax, failed expectations, the CPU
limit) is a 200 whose ``problems`` and ``outcome`` say so.
"""

from __future__ import annotations

from flask import Blueprint, Response, g, jsonify, request

from kb.knowledge.model import LANGS
from kb.web.api import json_body, preflight
from kb.web.i18n import text as _
from kb.web.pages.base import PageError
from kb.web.pages.play import run

bp = Blueprint("play_api", __name__, url_prefix="/api")


@bp.after_request
def _retry_after(response: Response) -> Response:
    """A busy answer says when to come back."""
    if response.status_code in (429, 503):
        response.headers["Retry-After"] = str(g.get("retry_after", 1))
    return response


@bp.route("/run", methods=["POST", "OPTIONS"])
def run_scenario() -> Response:
    """Run one scenario: ``{"ok": true, "locale", "outcome", "passed", "problems", "events",
    "permalink", ...}`` (schema ``Run`` of ``/api/openapi.json``)."""
    g.is_json = True
    g.uncacheable = True
    if request.method == "OPTIONS":
        return preflight()
    payload = json_body() if request.is_json else request.form.to_dict()
    scenario = payload.get("scenario")
    locale = payload.get("locale", "en")
    if not isinstance(scenario, str):
        raise PageError(400, _("Missing 'scenario': the text of the scenario to run."))
    if not isinstance(locale, str) or locale not in LANGS:
        raise PageError(
            400, _("Unknown language “%(lang)s”: use en, fr or ja.", lang=str(locale)[:20])
        )
    g.locale = locale
    return jsonify({"ok": True, "locale": locale, **run(locale, scenario)})
