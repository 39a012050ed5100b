"""The web app never shows where the server keeps its files: file names or corpus paths only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PureWindowsPath
from typing import Any

from flask.testing import FlaskClient

from kb.base.paths import CORPUS_DIR

#: Keys whose values name files.
FILE_KEYS = {"source", "sources", "path", "file", "files"}
QUERIES = {"en": "priority", "fr": "priorit%C3%A9", "ja": "%E5%84%AA%E5%85%88%E6%A8%A9"}


def _strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every string of a JSON document with the key it is under."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)
    elif isinstance(value, str):
        yield key, value


def _urls(client: FlaskClient, instance: Path) -> Iterator[str]:
    """JSON of every kind of page: editions, spans, rules of every edition, glossary, examples,
    search hits of every kind (commentary and tournament rules have no page of their own)."""
    from kb.build import load

    kb = load(instance)
    for edition, rules in kb.rules.items():
        first = next(iter(rules.values()))
        yield f"/{first.lang}/{edition}/rules/{first.number}.json"
    editions = client.get("/en/editions.json").get_json()
    yield "/en/editions.json"
    for group in editions["languages"]:
        for ed in group["editions"]:
            if ed["page"]["changes_url"]:
                yield ed["page"]["changes_url"] + ".json"
    yield "/en/index.json"
    for locale in ("en", "fr", "ja"):
        yield f"/{locale}/rules/117.json"
        yield f"/{locale}/rules/117.3b.json"
        yield f"/{locale}/glossary.json"
        for kind in ("rules", "glossary", "example", "commentary", "tournament"):
            yield f"/{locale}/search.json?q={QUERIES[locale]}&kind={kind}"
    yield "/en/glossary/priority.json"
    for example in client.get("/en/examples.json").get_json()["examples"]:
        yield example["url"] + ".json"


def test_no_server_path_in_json_or_pages(web_instance: Path, real_client: FlaskClient) -> None:
    secrets = {str(CORPUS_DIR.parent), str(web_instance), "corpus-raw"}
    for url in _urls(real_client, web_instance):
        response = real_client.get(url)
        assert response.status_code == 200, url
        for key, text in _strings(response.get_json()):
            leaked = [s for s in secrets if s in text]
            assert not leaked, f"{url}: {key!r} shows a server path: {text[:120]}"
            if key in FILE_KEYS:
                absolute = Path(text).is_absolute() or PureWindowsPath(text).is_absolute()
                assert not absolute, f"{url}: {key!r} is an absolute path: {text}"
        page = real_client.get(url.replace(".json", "", 1)).get_data(as_text=True)
        assert str(CORPUS_DIR.parent) not in page, f"{url}: the page shows a server path"
