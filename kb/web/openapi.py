"""The OpenAPI 3.1 description of every JSON endpoint, generated from :data:`kb.web.URLS`.

The URL table drives the README's URL list and this document alike: a row that answers JSON is an
:class:`Endpoint` (a ``str``, its description, carrying what OpenAPI needs: the JSON path, method,
parameters, response schema), so the two cannot drift. Served at ``/api/openapi.json`` and, for
readers, at ``/api/`` (``templates/api.html``). This module holds data and one builder; it
imports nothing of Flask.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import kb
from kb.web.openapi_schemas import PATH_PARAMS, STR, _ref
from kb.web.openapi_schemas import schemas as _schemas

__all__ = ["Endpoint", "Param", "document", "json_paths"]

OPENAPI_VERSION = "3.1.0"


@dataclass(frozen=True)
class Param:
    """A query parameter of an endpoint (path parameters are described in :data:`PATH_PARAMS`)."""

    name: str
    description: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False


class Endpoint(str):
    """A row of the URL table whose JSON form is documented: the row's text (what the README
    prints) plus the JSON path (``.json`` twin or the URL itself), the method, the query
    parameters, the response schema and the statuses it may answer."""

    json_path: str
    method: str
    params: tuple[Param, ...]
    response: str
    statuses: tuple[int, ...]
    body: str | None
    envelope: bool

    def __new__(
        cls,
        what: str,
        *,
        json_path: str,
        response: str,
        method: str = "get",
        params: tuple[Param, ...] = (),
        statuses: tuple[int, ...] = (404,),
        body: str | None = None,
        envelope: bool = True,
    ) -> Endpoint:
        row = super().__new__(cls, what)
        row.json_path = json_path
        row.method = method
        row.params = params
        row.response = response
        row.statuses = statuses
        row.body = body
        row.envelope = envelope
        return row


_PARAM = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")


def json_paths(urls: Mapping[str, str]) -> dict[str, Endpoint]:
    """The documented JSON paths (OpenAPI templates, ``/{locale}/rules/{number}.json``) and the
    rows they come from."""
    return {
        _PARAM.sub(r"{\1}", row.json_path): row
        for row in urls.values()
        if isinstance(row, Endpoint)
    }


def _operation(path: str, row: Endpoint) -> dict[str, Any]:
    params: list[dict[str, Any]] = []
    for name in re.findall(r"{([a-z_]+)}", path):
        description, schema = PATH_PARAMS[name]
        params.append(
            {"name": name, "in": "path", "required": True, "description": description,
             "schema": schema}
        )  # fmt: skip
    for p in row.params:
        params.append(
            {"name": p.name, "in": "query", "required": p.required, "description": p.description,
             "schema": p.schema}
        )  # fmt: skip
    body = _ref(row.response)
    if row.envelope:
        body = {"allOf": [_ref("Envelope"), body]}
    responses: dict[str, Any] = {
        "200": {"description": "OK", "content": {"application/json": {"schema": body}}}
    }
    for status in row.statuses:
        if status in (301, 302):
            responses[str(status)] = {
                "description": "Redirect to the JSON form of the page the URL names "
                "(another spelling, an old number, an alias).",
                "headers": {"Location": {"schema": STR}},
            }
        elif (
            status == 503 and row.response == "SearchResults"
        ):  # the error envelope, with the search's own data (available: false)
            schema = {"allOf": [_ref("Error"), _ref(row.response)]}
            responses["503"] = {
                "description": _STATUS_TEXT_503,
                "content": {"application/json": {"schema": schema}},
            }
        else:
            responses[str(status)] = {"$ref": f"#/components/responses/E{status}"}
    op: dict[str, Any] = {
        "operationId": re.sub(r"[^A-Za-z0-9]+", "_", f"{row.method} {path}").strip("_"),
        "summary": str(row)[:120],
        "description": str(row),
        "parameters": params,
        "responses": responses,
    }
    if row.body:
        op["requestBody"] = {
            "required": True,
            "content": {
                "application/json": {"schema": _ref(row.body)},
                "application/x-www-form-urlencoded": {"schema": _ref(row.body)},
            },
        }
    return op


_STATUS_TEXT = {
    400: "A bad parameter or body: the envelope names it.",
    404: "No such page, rule, entry, comparison or example; suggestions when some are near.",
    405: "Method not allowed.",
    413: "The body is too large.",
    429: "Too many runs at once: the playground's workers and waiting line are full; the "
    "Retry-After header says when to try again.",
    503: "The service cannot answer now (the playground's workers cannot start).",
    501: "Not implemented (oEmbed formats other than JSON).",
}
_STATUS_TEXT_503 = (
    "Search is unavailable (no index, or a damaged one): the error envelope says why, with the "
    "search's data (available: false)."
)


def document(urls: Mapping[str, str], server: str = "") -> dict[str, Any]:
    """The OpenAPI document of the JSON rows of ``urls`` (:data:`kb.web.URLS`)."""
    from kb.search.notes import TEXTS

    paths: dict[str, Any] = {}
    for path, row in json_paths(urls).items():
        paths.setdefault(path, {})[row.method] = _operation(path, row)
    errors = {
        f"E{status}": {
            "description": text,
            "content": {"application/json": {"schema": _ref("Error")}},
        }
        for status, text in _STATUS_TEXT.items()
    }
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "kb: the Magic: The Gathering Comprehensive Rules in English, French and "
            "Japanese",
            "version": kb.__version__,
            "description": (
                "Every page under /{locale}/ has a JSON twin (the same URL with .json, or "
                'index.json for the home page). A success is {"ok": true, "locale", ...}; an '
                'error is the envelope {"ok": false, "error" (English), "error_local" (the '
                'URL\'s language), "status"}. Responses carry Access-Control-Allow-Origin: *, an '
                "ETag and Cache-Control; pages and twins link each other with Link: "
                'rel="alternate". Search notes (SearchResults.notes) carry a code of the Note '
                "schema's list; tools should match on the code, not the text."
            ),
        },
        "servers": [{"url": server or "/"}],
        "paths": paths,
        "components": {"schemas": _schemas(TEXTS), "responses": errors},
    }
