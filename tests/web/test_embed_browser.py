"""kb-embed.js in Chromium on a page of another origin: links, previews over CORS, nothing else
touched, no console error. The kb site and the host page are two servers on 127.0.0.1."""

from __future__ import annotations

import functools
import threading
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kb.web import create_app

from .conftest import open_tab, sample_kb

pytestmark = pytest.mark.browser

HOST_PAGE = """<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>Un forum de juges</title>
<script src="{kb}/static/kb-embed.js" defer></script>
</head>
<body>
<p id="en" lang="en-GB">The caster gets priority again (rule 117.3b); see rules 117.3a–b and CR 117.1.</p>
<p id="fr">Voir la « règle 117.3b » avant de répondre.</p>
<p id="ja" lang="ja">「ルール117.3b」と「117.3a」を参照。</p>
<p id="keep">Déjà lié : <a href="https://example.org/x">rule 117.3a</a>, et <code>rule 117.3b</code>.</p>
<pre id="pre">rule 117.3b
  CR 117.1</pre>
<form><textarea id="ta">rule 117.3b</textarea><input id="in" value="rule 117.3a"></form>
</body>
</html>
"""


def _wait(url: str) -> None:
    for _ in range(100):
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            threading.Event().wait(0.05)
    pytest.fail(f"{url} never answered")


@pytest.fixture(scope="module")
def kb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The kb site over the hand-made knowledge base, served by waitress."""
    from waitress import create_server

    app = create_app({"INSTANCE": tmp_path_factory.mktemp("inst"), "KB": sample_kb()})
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://127.0.0.1:{server.effective_port}"
    _wait(url + "/en/")
    yield url
    server.close()
    app.extensions["kb_search"].close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def host_page(tmp_path_factory: pytest.TempPathFactory, kb_server: str) -> Iterator[str]:
    """A static page that includes the script, served from another origin (another port)."""
    root = tmp_path_factory.mktemp("host")
    (root / "index.html").write_text(HOST_PAGE.format(kb=kb_server), encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=root))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    _wait(url)
    yield url
    server.shutdown()
    server.server_close()


def _open(browser, url: str, **context_args):  # type: ignore[no-untyped-def]
    context, tab, errors = open_tab(browser, **context_args)
    tab.goto(url)
    return context, tab, errors


def test_links_and_previews_on_another_origin(chromium_browser, host_page, kb_server) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    context, tab, errors = _open(chromium_browser, host_page)
    links = tab.locator("a.kb-ref")
    expect(links).to_have_count(6)
    found = [
        (a.get_attribute("href"), a.get_attribute("data-rules"), a.inner_text())
        for a in links.all()
    ]
    kb = kb_server
    assert found == [
        (f"{kb}/en/rules/117.3b", None, "117.3b"),
        (f"{kb}/en/rules/117.3a", "117.3a 117.3b", "117.3a–b"),
        (f"{kb}/en/rules/117.1", None, "117.1"),
        (f"{kb}/fr/rules/117.3b", None, "117.3b"),
        (f"{kb}/ja/rules/117.3b", None, "117.3b"),
        (f"{kb}/ja/rules/117.3a", None, "117.3a"),
    ]

    # Nothing changed inside links, code, pre and form fields.
    assert tab.locator("#keep a").evaluate("a => a.outerHTML") == (
        '<a href="https://example.org/x">rule 117.3a</a>'
    )
    assert tab.locator("#keep code").inner_html() == "rule 117.3b"
    assert tab.locator("#pre").inner_html() == "rule 117.3b\n  CR 117.1"
    assert tab.locator("#ta").input_value() == "rule 117.3b"
    assert tab.locator("#in").input_value() == "rule 117.3a"
    assert tab.locator("#keep a.kb-ref, pre a, textarea a, form a").count() == 0

    # Hover: the preview comes from the kb site (CORS), in the language of the text.
    tab.locator("#fr a.kb-ref").hover()
    preview = tab.locator("#kb-preview")
    expect(preview).to_be_visible()
    expect(preview.locator("strong")).to_have_text("Règle 117.3b")
    expect(preview.locator("span")).to_have_text(
        "Le joueur qui a lancé un sort reçoit ensuite la priorité."
    )
    assert preview.get_attribute("role") == "tooltip"
    tab.locator("#ja a.kb-ref").first.hover()
    expect(preview.locator("span")).to_have_text("呪文を唱えたプレイヤーはその後優先権を得る。")
    expect(preview.locator("span")).to_have_attribute("lang", "ja")
    tab.mouse.move(0, 0)
    expect(preview).to_be_hidden()

    # Keyboard: Tab reaches the first link, the preview opens and names it, Escape closes it.
    tab.keyboard.press("Tab")
    first = links.first
    expect(first).to_be_focused()
    expect(preview).to_be_visible()
    expect(preview.locator("strong")).to_have_text("Rule 117.3b")
    assert first.get_attribute("aria-describedby") == "kb-preview"
    tab.keyboard.press("Escape")
    expect(preview).to_be_hidden()
    assert first.get_attribute("aria-describedby") is None

    # A post the host adds later (a forum loading replies) is linked as it arrives.
    tab.evaluate(
        "() => { const p = document.createElement('p'); p.id = 'late';"
        " p.textContent = 'Late reply: see rule 117.5.'; document.body.append(p); }"
    )
    expect(tab.locator("#late a.kb-ref")).to_have_attribute("href", f"{kb}/fr/rules/117.5")
    expect(links).to_have_count(7)
    context.close()
    assert not errors, f"console errors: {errors}"


def test_a_tap_shows_the_preview_before_following(chromium_browser, host_page, kb_server) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    context, tab, errors = _open(
        chromium_browser, host_page, has_touch=True, viewport={"width": 390, "height": 800}
    )
    link = tab.locator("#fr a.kb-ref")
    link.tap()
    expect(tab.locator("#kb-preview")).to_be_visible()
    assert tab.url == host_page  # the first tap previews, it does not navigate
    link.tap()
    expect(tab).to_have_url(f"{kb_server}/fr/rules/117.3b")
    context.close()
    assert not errors, f"console errors: {errors}"
