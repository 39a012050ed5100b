"""``kb export`` of several editions: one page per version of a rule, every URL the server answers
present (a page, a stub page or a ``_redirects`` pattern), a search index of the current text,
and an interrupted export that the next run finishes."""

from __future__ import annotations

import gzip
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.export.pages import Site
from kb.export.redirects import REDIRECTS, StaticHost
from kb.export.runner import MANIFEST, export, pagefind_binary
from tests.export_urls import candidate_urls, compare

BASE = "https://rules.example.org"
BOTH = "If both players pass in succession, the top object of the stack resolves."
ALL = "If all players pass in succession, the top object of the stack resolves."


@pytest.fixture(scope="module")
def two_editions(tmp_path_factory: pytest.TempPathFactory, write_edition) -> Path:  # type: ignore[no-untyped-def]
    """The embedded corpus and two editions: 117.4 changed between them, the rest did not."""
    from kb.build import build

    folder = tmp_path_factory.mktemp("two-editions")
    write_edition(folder, "2031-02-01", "February 1, 2031", marker=BOTH)
    write_edition(folder, "2031-03-01", "March 1, 2031", marker=ALL)
    instance = tmp_path_factory.mktemp("two") / "instance"
    build(instance, [folder])
    return instance


@pytest.fixture(scope="module")
def exported(two_editions: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export-two") / "site"
    export(two_editions, out, base_url=BASE)
    return out


@pytest.fixture(scope="module")
def site(two_editions: Path) -> Site:
    return Site(two_editions, BASE)


def test_one_page_per_version_of_a_rule(exported: Path, site: Site) -> None:
    # 100.1 reads the same in both editions: one page, the first edition's
    first = exported / "en/en-2031-02-01/rules/100.1/index.html"
    assert first.read_bytes() == site.get("/en/en-2031-02-01/rules/100.1").body
    assert not (exported / "en/en-2031-03-01/rules/100.1/index.html").exists()
    assert not (exported / "en/en-2031-03-01/rules/100.1.json").exists()
    # 117.4 changed: a page in each edition; and 117 too, whose page shows 117.4
    for ed in ("en-2031-02-01", "en-2031-03-01"):
        for number in ("117.4", "117"):
            assert (exported / f"en/{ed}/rules/{number}/index.html").is_file()
            assert (exported / f"en/{ed}/rules/{number}.json").is_file()
    # an English edition's pages are in English only: the other locales redirect to them
    assert not (exported / "fr/en-2031-02-01/rules/117.4/index.html").exists()
    host = StaticHost(exported)
    # the edition's pattern sends an unchanged rule to the edition before, which has its page
    assert host.answer("/en/en-2031-03-01/rules/100.1") == (301, "/en/en-2031-02-01/rules/100.1")
    assert host.final("/ja/en-2031-03-01/rules/100.1.json") == (
        200,
        "/en/en-2031-02-01/rules/100.1.json",
    )
    assert host.final("/fr/en-2031-03-01/rules/117.4/") == (200, "/en/en-2031-03-01/rules/117.4/")
    assert host.final("/fr/en-2031-03-01/rules/100.1") == (200, "/en/en-2031-02-01/rules/100.1")


def test_every_url_the_server_answers_is_in_the_export(exported: Path, site: Site) -> None:
    urls = candidate_urls(site.kb, exported)
    answered, absent = compare(site, exported, urls)
    assert answered > 2000
    assert absent == []
    # _redirects holds patterns, a few per edition, never a line per rule: the server's other
    # redirects are stub pages (and the JSON they lead to)
    lines = (exported / REDIRECTS).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 10 * len(site.kb.editions)
    assert all(
        line.startswith("#") or "/rules/* " in line or "rules.json" in line for line in lines
    )
    host = StaticHost(exported)
    assert host.answer("/en/rules/R1173a") == (302, "/en/rules/117.3a")
    assert host.final("/fr/glossary/priorit%C3%A9") == (200, "/fr/glossary/priority")
    assert host.final("/fr/glossary/priorit%C3%A9.json") == (200, "/fr/glossary/priorit%C3%A9.json")


def fragments(out: Path) -> dict[str, str]:
    """Pagefind's indexed text of each page: URL -> content."""
    found = {}
    for path in (out / "pagefind" / "fragment").glob("*.pf_fragment"):
        data = gzip.decompress(path.read_bytes()).removeprefix(b"pagefind_dcd")
        fragment = json.loads(data)
        found[fragment["url"]] = fragment["content"]
    return found


@pytest.mark.skipif(pagefind_binary() is None, reason="pagefind[extended] is not installed")
def test_search_indexes_the_current_text_only(exported: Path) -> None:
    text = fragments(exported)
    current = text["/en/rules/117.4/"]
    assert "all players pass" in current and "both" not in current  # no history diff
    assert "bothall" not in " ".join(text.values())
    # no pinned page is indexed: an older version is found from its current rule
    assert not [u for u in text if u.count("/") == 5 and "/rules/" in u]
    page = (exported / "en/en-2031-02-01/rules/117.4/index.html").read_text(encoding="utf-8")
    assert 'href="/en/rules/117.4"' in page  # the old version leads to the current rule
    # no engine script ("? step: ...") nor navigation in the indexed text
    # (an expectation line "? stack: empty"; French prose puts a space before its own "?")
    script = re.compile(r"(?:^|\s)\? ?[a-z]+(?: [A-Z][a-z]+)?: ")
    assert not [url for url, content in text.items() if script.search(content)]


def test_an_interrupted_export_says_so_and_the_next_run_finishes_it(
    two_editions: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    command = [sys.executable, "-m", "kb", "export", str(out), "--instance", str(two_editions)]
    command += ["--no-search", "--jobs", "2"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(out.rglob("*.json"))) < 20:
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode != 0
    assert "Traceback" not in err and "interrupted" in err, err
    assert json.loads((out / MANIFEST).read_text())["partial"] is True
    # the next run takes the folder back and finishes the export
    again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stderr
    assert "partial" not in json.loads((out / MANIFEST).read_text())
    assert (out / "en/en-2031-03-01/rules/117.4/index.html").is_file()


def test_an_export_piped_to_a_reader_that_leaves_says_no_traceback(
    two_editions: Path, exported: Path, tmp_path: Path
) -> None:
    import shutil

    out = tmp_path / "site"
    shutil.copytree(exported, out)
    command = [sys.executable, "-m", "kb", "export", str(out), "--instance", str(two_editions)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # `| head -0`: the reader is gone before the summary
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=300) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err, err
