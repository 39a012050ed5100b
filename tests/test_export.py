"""``kb export``: the static site, served by ``python -m http.server``, answers like ``kb serve``:
same URLs, same HTML, same JSON; redirects become pages; an unchanged re-export rewrites nothing."""

from __future__ import annotations

import html
import json
import re
import shutil
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.export.runner import MANIFEST, ExportError, export, file_for, json_twin, pagefind_binary
from kb.web import create_app
from tests.conftest import static_host


# ---- layout ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "file"),
    [
        ("/", "index.html"),
        ("/en/", "en/index.html"),
        ("/en/rules/", "en/rules/index.html"),
        ("/en/rules/117.3b", "en/rules/117.3b/index.html"),
        ("/en/rules/117.3b.json", "en/rules/117.3b.json"),
        ("/fr/en-2019-06-14/rules/116.3b", "fr/en-2019-06-14/rules/116.3b/index.html"),
        ("/en/glossary/active%20player", "en/glossary/active player/index.html"),
        ("/en/opensearch.xml", "en/opensearch.xml"),
        ("/r/117", "r/117/index.html"),
    ],
)
def test_every_url_has_a_file_a_static_host_serves_with_the_right_type(url: str, file: str) -> None:
    assert file_for(url) == file


def test_paths_that_climb_out_are_refused() -> None:
    with pytest.raises(ExportError):
        file_for("/en/glossary/%2E%2E/%2E%2E/etc")


def test_json_twins_are_named_as_the_app_names_them() -> None:
    assert json_twin("/en/") == "/en/index.json"
    assert json_twin("/en/rules/") == "/en/rules.json"
    assert json_twin("/en/rules/117.3b") == "/en/rules/117.3b.json"


BASE = "https://rules.example.org"


# ---- one export of the embedded corpus, served by python -m http.server ------------------------
@pytest.fixture(scope="module")
def exported(embedded_instance: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "site"
    report = export(embedded_instance, out, base_url="https://rules.example.org")
    assert report.pages > 100 and report.json > 100 and report.redirects > 10
    assert report.written == report.files and report.unchanged == 0
    return out


@pytest.fixture(scope="module")
def static_server(exported: Path) -> Iterator[str]:
    """``python -m http.server`` over the export (the simplest static host there is)."""
    yield from static_host(exported)


@pytest.fixture(scope="module")
def flask_client(embedded_instance: Path):  # type: ignore[no-untyped-def]
    app = create_app({"INSTANCE": embedded_instance, "PAGE_CACHE": False})
    yield app.test_client()
    app.extensions["kb_search"].close()


def fetch(url: str) -> tuple[int, str, bytes, str]:
    """GET following redirects: status, content type, body and the final URL."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read(), response.url
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read(), url


def manifest(exported: Path) -> dict[str, int]:
    return json.loads((exported / MANIFEST).read_text(encoding="utf-8"))["files"]


def sitemap_paths(exported: Path) -> list[str]:
    xml = (exported / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]+)</loc>", xml)
    assert locs and all(loc.startswith("https://rules.example.org/") for loc in locs)
    return [html.unescape(loc).removeprefix("https://rules.example.org") for loc in locs]


@pytest.fixture(scope="module")
def export_client(embedded_instance: Path):  # type: ignore[no-untyped-def]
    """The app as the export asks it: a version's page links to the current rule's history."""
    app = create_app({"INSTANCE": embedded_instance, "PAGE_CACHE": False, "EXPORT": True})
    yield app.test_client()
    app.extensions["kb_search"].close()


_PINNED = re.compile(r"^/(en|fr|ja)/[^/]+/rules/[^/]+$")


def test_every_page_and_json_twin_is_the_servers(
    exported: Path, static_server: str, flask_client, export_client
) -> None:  # type: ignore[no-untyped-def]
    pages = sitemap_paths(exported)
    assert {"/en/", "/fr/rules/", "/ja/glossary/", "/en/editions/", "/fr/examples/"} <= set(pages)
    assert any(p.startswith("/ja/rules/117.") for p in pages)
    for path in pages:
        expected = (export_client if _PINNED.match(path) else flask_client).get(path, base_url=BASE)
        assert expected.status_code == 200, path
        status, ctype, body, final = fetch(static_server + path)
        assert status == 200, path
        assert ctype.startswith("text/html"), (path, ctype)
        # the playground says that its runs need the server, and nothing else differs
        body = re.sub(rb'\n<p class="notice export-note">[^<]*</p>', b"", body)
        assert body == expected.get_data(), path
        # a folder URL (/en/rules/117.3b -> /en/rules/117.3b/) is the only difference http.server makes
        assert urllib.parse.urlsplit(final).path in (path, path + "/")
    twins = [
        rel
        for rel in manifest(exported)
        if rel.endswith(".json") and rel[:3] in ("en/", "fr/", "ja/")
    ]
    assert len(twins) >= len(pages) - 10
    for rel in twins:
        path = "/" + urllib.parse.quote(rel)
        page = exported / rel.removesuffix(".json") / "index.html"
        stub = page.is_file() and 'name="kb-redirect"' in page.read_text(encoding="utf-8")
        if stub:  # the twin of a stub holds the JSON of the page it leads to
            target = re.search(r'rel="canonical" href="([^"]+)"', page.read_text("utf-8"))
            assert target is not None, rel
            path = html.unescape(target.group(1)) + ".json"
        client = export_client if _PINNED.match(path.removesuffix(".json")) else flask_client
        expected = client.get(path, follow_redirects=True, base_url=BASE)
        status, ctype, body, _ = fetch(static_server + path)
        assert (status, ctype) == (200, "application/json"), path
        assert body == expected.get_data(), path


def test_redirects_are_pages_that_go_where_the_server_sends(exported: Path, flask_client) -> None:  # type: ignore[no-untyped-def]
    redirects = 0
    for rel in manifest(exported):
        if not rel.endswith("index.html") or rel == "index.html" or rel.startswith("r/"):
            continue
        text = (exported / rel).read_text(encoding="utf-8")
        if 'name="kb-redirect"' not in text:
            continue
        redirects += 1
        url = "/" + urllib.parse.quote(rel.removesuffix("index.html").rstrip("/"))
        answer = flask_client.get(url)
        assert answer.status_code in (301, 302), url
        target = re.search(r'<link rel="canonical" href="([^"]+)"', text).group(1)  # type: ignore[union-attr]
        assert html.unescape(target) == answer.headers["Location"], url
        assert 'http-equiv="refresh"' in text and "export-redirect.js" in text
    assert redirects >= 1  # old numbers and glossary aliases


def test_permalinks_carry_each_language_and_the_editions_of_old_numbers(
    exported: Path, flask_client
) -> None:  # type: ignore[no-untyped-def]
    numbers = [p.name for p in (exported / "r").iterdir() if p.is_dir()]
    assert "117.3a" in numbers and "116.3b" in numbers
    for number in numbers:
        text = (exported / "r" / number / "index.html").read_text(encoding="utf-8")
        data = json.loads(
            html.unescape(re.search(r'name="kb-redirect" content="([^"]*)"', text).group(1))
        )  # type: ignore[union-attr]
        for loc in ("en", "fr", "ja"):
            answer = flask_client.get(f"/r/{urllib.parse.quote(number)}?lang={loc}")
            assert data["targets"][loc] == answer.headers["Location"], (number, loc)
        for ed_id, path in data["editions"].items():
            answer = flask_client.get(f"/r/{number}?lang=en&edition={ed_id}")
            assert answer.headers["Location"] == "/en/" + path
    old = (exported / "r/116.3b/index.html").read_text()
    data = json.loads(
        html.unescape(re.search(r'name="kb-redirect" content="([^"]*)"', old).group(1))
    )  # type: ignore[union-attr]
    assert data["targets"]["fr"] == "/fr/rules/117.3b"


def test_search_pages_opensearch_sitemap_and_root(exported: Path) -> None:
    for loc, word in (("en", "linkify"), ("fr", "linkify"), ("ja", "linkify")):
        page = (exported / loc / "search" / "index.html").read_text(encoding="utf-8")
        assert f'<html lang="{loc}">' in page
        assert 'id="export-search"' in page and "export-search.js" in page
        assert word in page and "kb serve" in page
        xml = (exported / loc / "opensearch.xml").read_text(encoding="utf-8")
        assert f"https://rules.example.org/{loc}/search?q={{searchTerms}}" in xml
        assert "suggest" not in xml  # suggestions need the server
    assert (exported / "opensearch.xml").is_file()
    root = (exported / "index.html").read_text(encoding="utf-8")
    assert "kb-redirect" in root and 'url=/en/"' in root
    assert "Sitemap: https://rules.example.org/sitemap.xml" in (exported / "robots.txt").read_text()
    assert (exported / "static" / "style.css").is_file()
    assert (exported / "static" / "export-redirect.js").is_file()
    assert "<html" in (exported / "404.html").read_text(encoding="utf-8")


@pytest.mark.skipif(pagefind_binary() is None, reason="pagefind[extended] is not installed")
def test_pagefind_indexes_each_language(exported: Path) -> None:
    bundle = exported / "pagefind"
    assert (bundle / "pagefind.js").is_file()
    metas = {p.name.split("_")[0] for p in bundle.glob("pagefind.*.pf_meta")}
    assert {"pagefind.en", "pagefind.fr", "pagefind.ja"} <= metas
    entry = json.loads((bundle / "pagefind-entry.json").read_text())
    assert entry["languages"]["ja"]["page_count"] > 10
    # only current rules, glossary entries and examples: not pinned editions nor indexes
    assert entry["languages"]["en"]["page_count"] < len(sitemap_paths(exported))


# ---- re-exports --------------------------------------------------------------------------------
def snapshot(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_an_unchanged_reexport_rewrites_nothing(
    embedded_instance: Path, exported: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(exported, site)
    before = snapshot(site)
    quick = export(embedded_instance, site, base_url="https://rules.example.org")
    assert quick.written == 0 and quick.removed == 0
    assert snapshot(site) == before
    # The same when the export cannot take the shortcut (another build stamp): every file is
    # rendered again, compared, and none rewritten.
    data = json.loads((site / MANIFEST).read_text())
    data["seed"] = "another build"
    (site / MANIFEST).write_text(json.dumps(data))
    before = snapshot(site)
    full = export(embedded_instance, site, base_url="https://rules.example.org")
    assert full.written == 0 and full.unchanged == full.files and full.removed == 0
    after = snapshot(site)
    del before[str(site / MANIFEST)], after[str(site / MANIFEST)]
    assert after == before


def test_a_reexport_repairs_and_prunes_only_its_own_files(
    embedded_instance: Path, exported: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(exported, site)
    (site / "en" / "rules" / "117.3b" / "index.html").write_text("damaged")
    stale = site / "en" / "rules" / "999.9z.json"
    stale.write_text("{}")
    data = json.loads((site / MANIFEST).read_text())
    data["files"]["en/rules/999.9z.json"] = 2
    (site / MANIFEST).write_text(json.dumps(data))
    mine = site / "CNAME"
    mine.write_text("rules.example.org\n")
    report = export(embedded_instance, site, base_url="https://rules.example.org")
    assert report.written == 1 and report.removed == 1
    assert (site / "en/rules/117.3b/index.html").read_bytes() == (
        exported / "en/rules/117.3b/index.html"
    ).read_bytes()
    assert not stale.exists() and mine.read_text() == "rules.example.org\n"


def test_a_tampered_manifest_never_removes_files_outside_the_folder(
    embedded_instance: Path, exported: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(exported, site)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    data = json.loads((site / MANIFEST).read_text())
    data["files"]["../precious.txt"] = 7
    data["files"][str(outside)] = 7
    (site / MANIFEST).write_text(json.dumps(data))
    export(embedded_instance, site, base_url="https://rules.example.org")
    assert outside.read_text() == "keep me"


def test_cli_export(
    embedded_instance: Path, exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    shutil.copytree(exported, out)
    args = ["--instance", str(embedded_instance), "--base-url", "https://rules.example.org"]
    assert main(["export", str(out), *args, "--quiet"]) == 0
    summary = capsys.readouterr().out
    assert re.search(r"Exported to .* \d+ files, [\d.]+ MB .* 0 written", summary), summary
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["export", str(blocker), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kb: error: ") and "not a folder" in err and err.count("\n") == 1
    inside = embedded_instance / "site"
    assert main(["export", str(inside), *args]) == 1
    assert "inside the instance" in capsys.readouterr().err
    assert not inside.exists()


def test_every_absolute_url_of_the_pages_uses_the_base_url(exported: Path) -> None:
    page = (exported / "en/rules/117.3b/index.html").read_text()
    assert f'<link rel="canonical" href="{BASE}/en/rules/117.3b"' in page
    assert re.search(rf'property="og:url" content="{re.escape(BASE)}/', page), page[:2000]
    assert f"{BASE}/api/oembed" in page or f"{BASE}/api/oembed".replace("/", "%2F") in page
    for rel in manifest(exported):
        if rel.endswith((".html", ".json", ".xml")):
            text = (exported / rel).read_text(encoding="utf-8")
            assert "//localhost" not in text, rel


@pytest.mark.parametrize(
    "url",
    [
        "notaurl",
        "ftp://rules.example.org",
        "https://",
        "example.org",
        "http://[::1",  # urllib raises on it
        "https://rules.example.org:port",
        "https://u.github.io/proj",  # the pages link from the host's root
    ],
)
def test_a_base_url_without_http_scheme_and_host_is_refused(
    embedded_instance: Path, tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert main(["export", str(out), "--instance", str(embedded_instance), "--base-url", url]) == 1
    err = capsys.readouterr().err
    assert "--base-url" in err and repr(url) in err and err.count("\n") == 1
    assert not out.exists()


def test_a_folder_no_export_wrote_is_refused_and_left_alone(
    embedded_instance: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    args = ["--instance", str(embedded_instance), "--quiet", "--no-search"]
    assert main(["export", str(theirs), *args]) == 1
    err = capsys.readouterr().err
    assert str(theirs) in err and "not empty" in err and MANIFEST in err
    assert sorted(p.name for p in theirs.iterdir()) == ["notes.txt"]
    with pytest.raises(ExportError, match="no kb export wrote it"):
        export(embedded_instance, theirs, search=False)
    assert sorted(p.name for p in theirs.iterdir()) == ["notes.txt"]


def test_no_exported_page_links_to_a_url_the_export_lacks(exported: Path, flask_client) -> None:  # type: ignore[no-untyped-def]
    from kb.export.pages import internal_links
    from kb.export.redirects import StaticHost

    host = StaticHost(exported)
    links: set[str] = set()
    for page in exported.rglob("*.html"):
        if page.is_relative_to(exported / "pagefind"):
            continue
        links.update(link.split("?")[0] for link in internal_links(page.read_text("utf-8")))
    assert len(links) > 1000
    dead = []
    for link in sorted(links):
        if link.startswith(("/static/", "/pagefind/")) or host.final(link)[0] == 200:
            continue
        server = flask_client.get(link, base_url=BASE, follow_redirects=True).status_code
        if server != 404:  # a rule the corpus lacks is a dead end on the server too
            dead.append((link, server))
    assert dead == []


def test_the_playground_and_compare_pages_are_exported(exported: Path) -> None:
    for loc, word in (("en", "static copy"), ("fr", "copie statique"), ("ja", "静的コピー")):
        play = (exported / loc / "play" / "index.html").read_text(encoding="utf-8")
        assert "export-note" in play and word in play and "kb serve" in play
        assert (exported / loc / "compare" / "117.3b" / "index.html").is_file()
        assert (exported / loc / "compare" / "117.3b.json").is_file()
