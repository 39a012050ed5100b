"""``kb update`` against a local HTTP server (127.0.0.1) playing the publisher: a rules page linking
official texts from ../shared/corpus-raw, the damaged archive file, a page with no link, an HTML error
page, a truncated download and a server too slow to answer. No test reaches the internet."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kb.build.update import UpdateError, check_text, downloads_dir, find_rules_link, update
from kb.cli.main import main
from tests.conftest import SHARED_RAW

CR_EN = SHARED_RAW / "cr-en"
ARCHIVE = SHARED_RAW / "cr-en-archive"
OLD = CR_EN / "MagicCompRules-2023-11-17.txt"
NEW = CR_EN / "MagicCompRules-2025-11-14.txt"
DAMAGED = ARCHIVE / "MagicCompRules-2013-02-01.txt"

pytestmark = pytest.mark.skipif(
    not (OLD.exists() and NEW.exists()), reason=f"official texts absent from {CR_EN}"
)

Route = Callable[[BaseHTTPRequestHandler], None]


def page(*hrefs: str) -> bytes:
    links = "".join(f'<li><a href="{h}">Comprehensive Rules (TXT)</a></li>' for h in hrefs)
    return (
        "<!doctype html><html><head><title>Rules</title></head><body><h1>Rules</h1>"
        f'<ul><li><a href="/docs/MTR.pdf">Tournament rules</a></li>{links}</ul></body></html>'
    ).encode()


class Publisher:
    """A tiny publisher: routes by path; text files answer ETag/Last-Modified conditionally."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[tuple[str, dict[str, str]]] = []
        publisher = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                publisher.hits.append((self.path, dict(self.headers.items())))
                route = publisher.routes.get(self.path)
                if route is None:
                    self.send_error(404)
                    return
                # the client may give up first (the timeout case)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    route(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def html(self, path: str, body: bytes, status: int = 200) -> None:
        def route(h: BaseHTTPRequestHandler) -> None:
            h.send_response(status)
            h.send_header("Content-Type", "text/html; charset=utf-8")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)

        self.routes[path] = route

    def text(self, path: str, file: Path, *, cut: int | None = None, delay: float = 0) -> None:
        data = file.read_bytes()
        etag = '"' + hashlib.sha1(data, usedforsecurity=False).hexdigest()[:16] + '"'
        modified = formatdate(1_700_000_000, usegmt=True)

        def route(h: BaseHTTPRequestHandler) -> None:
            if delay:
                time.sleep(delay)
            if h.headers.get("If-None-Match") == etag:
                h.send_response(304)
                h.send_header("ETag", etag)
                h.end_headers()
                return
            h.send_response(200)
            h.send_header("Content-Type", "text/plain")
            h.send_header("Content-Length", str(len(data)))
            h.send_header("ETag", etag)
            h.send_header("Last-Modified", modified)
            h.end_headers()
            h.wfile.write(data if cut is None else data[:cut])
            h.wfile.flush()
            if cut is not None:
                h.close_connection = True

        self.routes[path] = route

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def publisher() -> Iterator[Publisher]:
    server = Publisher()
    yield server
    server.close()


@pytest.fixture(scope="module")
def built_old(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An instance holding the embedded corpus and the 2023-11-17 edition, built once."""
    from kb.build import build

    instance = tmp_path_factory.mktemp("update-base") / "instance"
    build(instance, [OLD])
    return instance


@pytest.fixture
def instance(built_old: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "instance"
    shutil.copytree(built_old, copy)
    return copy


def snapshot(*folders: Path) -> dict[str, tuple[int, str]]:
    """Every file under the folders with its mtime and content digest."""
    out: dict[str, tuple[int, str]] = {}
    for folder in folders:
        if not folder.exists():
            continue
        for path in sorted(folder.rglob("*")):
            # a reader's own database side files and locks are not the instance's content
            if path.is_file() and not path.name.endswith(("-wal", "-shm", ".lock")):
                digest = hashlib.sha1(path.read_bytes(), usedforsecurity=False).hexdigest()
                out[str(path)] = (path.stat().st_mtime_ns, digest)
    return out


def held_dates(instance: Path) -> list[str]:
    from kb.build import load

    return sorted(e.date or "" for e in load(instance).editions_of("en", full_only=True))


def run(instance: Path, *args: str) -> int:
    return main(["update", "--instance", str(instance), *args])


# ---- the rules page ----------------------------------------------------------------------------
def test_finds_the_newest_dated_link_relative_to_the_page() -> None:
    html = page(
        "/downloads/MagicCompRules%2020231117.txt",
        "https://cdn.example.test/x/MagicCompRules%2020251114.txt?v=1",
        "MagicCompRules-2024-02-06.txt",
    ).decode()
    link = find_rules_link("https://pub.example.test/en/rules", html)
    assert link.url == "https://cdn.example.test/x/MagicCompRules%2020251114.txt?v=1"
    assert link.date == "2025-11-14"
    only = find_rules_link("https://pub.example.test/en/rules", page("rules.txt").decode())
    assert (only.url, only.date) == ("https://pub.example.test/en/rules.txt", None)


def test_a_page_with_no_link_is_one_error_naming_the_page() -> None:
    with pytest.raises(UpdateError) as info:
        find_rules_link("https://pub.example.test/en/rules", page().decode())
    assert str(info.value).startswith("https://pub.example.test/en/rules: ")
    assert "no rules text" in str(info.value)


# ---- checking a download -----------------------------------------------------------------------
def test_the_damaged_archive_file_is_refused() -> None:
    if not DAMAGED.exists():
        pytest.skip(f"{DAMAGED} is absent")
    with pytest.raises(UpdateError) as info:
        check_text("http://x.test/MagicCompRules-2013-02-01.txt", DAMAGED.read_bytes())
    message = str(info.value)
    assert message.startswith("http://x.test/MagicCompRules-2013-02-01.txt: ")
    assert "truncated" in message
    assert "\n" not in message


def test_a_complete_text_reads_with_zero_loss() -> None:
    doc = check_text("http://x.test/new.txt", NEW.read_bytes(), "text/plain")
    assert doc.date == "2025-11-14" and doc.kind == "cr"


@pytest.mark.parametrize(
    ("mangle", "expected"),
    [
        (lambda b: b"<!DOCTYPE html><html><body>Server error</body></html>", "HTML page"),
        (lambda b: b[: len(b) // 2], "truncated"),
        (lambda b: b"Just some notes.\r\nNothing about rules here.\r\n", "not a readable"),
        (lambda b: b"", "empty"),
    ],
    ids=["html", "half", "prose", "empty"],
)
def test_bad_texts_are_refused_with_a_reason(
    mangle: Callable[[bytes], bytes], expected: str
) -> None:
    with pytest.raises(UpdateError) as info:
        check_text("http://x.test/r.txt", mangle(NEW.read_bytes()))
    assert expected in str(info.value)


def test_a_reader_that_loses_a_rule_is_caught_by_the_raw_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The zero-loss check does not trust the reader: a rule dropped on reading is refused."""
    import kb.sources.registry as registry

    real = registry.read_source

    def lossy(path: Path, entry: object = None) -> list:
        docs = real(path)
        docs[0].rules = [r for r in docs[0].rules if r.number != "117.3b"]
        return docs

    monkeypatch.setattr(registry, "read_source", lossy)
    with pytest.raises(UpdateError) as info:
        check_text("http://x.test/r.txt", NEW.read_bytes())
    assert "reads with loss: " in str(info.value) and " rules in the text" in str(info.value)


# ---- whole updates against the local publisher -------------------------------------------------
def test_update_adds_the_newer_edition_then_has_nothing_to_do(
    instance: Path, publisher: Publisher, capsys: pytest.CaptureFixture[str]
) -> None:
    publisher.html("/en/rules", page("/downloads/MagicCompRules%2020251114.txt"))
    publisher.text("/downloads/MagicCompRules%2020251114.txt", NEW)
    url = f"{publisher.base}/en/rules"
    assert held_dates(instance) == ["2023-11-17"]

    assert run(instance, "--check", "--url", url) == 2
    assert "newer edition is available (2025-11-14" in capsys.readouterr().out
    assert held_dates(instance) == ["2023-11-17"]
    assert not downloads_dir(instance).exists(), "--check writes nothing"

    assert run(instance, "--url", url, "--quiet") == 0
    assert "added the edition of 2025-11-14" in capsys.readouterr().out
    assert held_dates(instance) == ["2023-11-17", "2025-11-14"]
    saved = downloads_dir(instance) / "MagicCompRules-2025-11-14.txt"
    assert saved.read_bytes() == NEW.read_bytes()
    from kb.build import load

    kb = load(instance)
    assert kb.find("en", "117.3b") is not None and kb.newest("en").date == "2025-11-14"

    before = snapshot(instance, downloads_dir(instance))
    downloads = len([p for p, _ in publisher.hits if p.endswith(".txt")])
    assert run(instance, "--check", "--url", url) == 0
    assert run(instance, "--url", url) == 0
    assert "up to date (newest held: 2025-11-14)" in capsys.readouterr().out
    assert snapshot(instance, downloads_dir(instance)) == before
    # the page names a date we hold: the text itself is not fetched again
    assert len([p for p, _ in publisher.hits if p.endswith(".txt")]) == downloads


def test_an_undated_link_is_fetched_conditionally(instance: Path, publisher: Publisher) -> None:
    """A link whose name carries no date: the ETag of the last download answers 304."""
    publisher.html("/rules", page("/current.txt"))
    publisher.text("/current.txt", OLD)  # the edition the instance already holds
    url = f"{publisher.base}/rules"
    assert update(instance, url=url).status == "current"
    first = [h for p, h in publisher.hits if p == "/current.txt"]
    assert "If-None-Match" not in first[-1]
    result = update(instance, url=url)
    assert result.status == "current" and result.notes == ["not modified since the last download"]
    second = [h for p, h in publisher.hits if p == "/current.txt"][-1]
    assert second["If-None-Match"].startswith('"') and "If-Modified-Since" in second
    assert held_dates(instance) == ["2023-11-17"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "case", ["offline", "no-link", "error-page", "404", "damaged", "truncated", "timeout"]
)
def test_failures_are_one_line_and_change_nothing(
    case: str, instance: Path, publisher: Publisher, capsys: pytest.CaptureFixture[str]
) -> None:
    link = "/downloads/MagicCompRules%2020260101.txt"
    publisher.html("/en/rules", page(link))
    url = f"{publisher.base}/en/rules"
    args = ["--url", url]
    if case == "offline":
        url = f"http://127.0.0.1:{closed_port()}/en/rules"
        args = ["--url", url]
        expected = (url, "cannot reach the server")
    elif case == "no-link":
        publisher.html("/en/rules", page())
        expected = (url, "links no rules text")
    elif case == "error-page":
        publisher.html(link, b"<!doctype html><html><body>Maintenance</body></html>")
        expected = (publisher.base + link, "HTML page")
    elif case == "404":
        expected = (publisher.base + link, "HTTP 404")
    elif case == "damaged":
        if not DAMAGED.exists():
            pytest.skip(f"{DAMAGED} is absent")
        publisher.text(link, DAMAGED)
        expected = (publisher.base + link, "truncated")
    elif case == "truncated":
        publisher.text(link, NEW, cut=200_000)
        expected = (publisher.base + link, "truncated download")
    else:
        publisher.text(link, NEW, delay=3)
        args += ["--timeout", "0.5"]
        expected = (publisher.base + link, "timed out")
    before = snapshot(instance, downloads_dir(instance))
    for extra in ([], ["--check"]):
        assert run(instance, *args, *extra) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith(f"kb: error: {expected[0]}: "), err
        assert expected[1] in err, err
        assert "Traceback" not in err
    assert snapshot(instance, downloads_dir(instance)) == before
    assert held_dates(instance) == ["2023-11-17"]


def test_the_url_setting_comes_from_the_environment(
    instance: Path, publisher: Publisher, monkeypatch: pytest.MonkeyPatch
) -> None:
    publisher.html("/elsewhere", page("/downloads/MagicCompRules%2020231117.txt"))
    monkeypatch.setenv("KB_RULES_URL", f"{publisher.base}/elsewhere")
    assert run(instance, "--check") == 0
    assert publisher.hits[0][0] == "/elsewhere"


def test_the_default_url_is_the_publishers_rules_page(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.build.update import DEFAULT_RULES_URL, rules_url

    monkeypatch.delenv("KB_RULES_URL", raising=False)
    assert rules_url() == DEFAULT_RULES_URL == "https://magic.wizards.com/en/rules"
    assert rules_url("http://127.0.0.1:1/x") == "http://127.0.0.1:1/x"
