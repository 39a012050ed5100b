"""The Markdown extension refuses a ``base_url`` that is not a URL (found by the new-user trial:
``base_url: "notaurl"`` wrote ``href="notaurl/en/rules/117.3b"``), with the check the static
export's ``--base-url`` uses."""

from __future__ import annotations

import markdown
import pytest

from kb.base.urlcheck import base_url_problem
from kb.export.runner import ExportError, check_base_url
from kb.markdown import RuleRefExtension

REFUSED = [
    "notaurl",
    "rules.example.org",
    "javascript:alert(1)",
    "//evil.test",
    "ftp://a.test",
    "http://",
]


@pytest.mark.parametrize("base", REFUSED)
def test_a_base_url_that_is_not_a_url_is_refused(base: str) -> None:
    with pytest.raises(ValueError, match=r"base_url .*not an http\(s\) URL"):
        markdown.markdown(
            "rule 117.3b",
            extensions=["kb.markdown"],
            extension_configs={"kb.markdown": {"base_url": base}},
        )


@pytest.mark.parametrize(
    ("base", "href"),
    [
        ("", "/en/rules/117.3b"),
        ("https://rules.example.org", "https://rules.example.org/en/rules/117.3b"),
        ("https://example.org/kb/", "https://example.org/kb/en/rules/117.3b"),
        ("/kb", "/kb/en/rules/117.3b"),
    ],
)
def test_urls_and_root_paths_are_kept(base: str, href: str) -> None:
    html = markdown.markdown("rule 117.3b", extensions=[RuleRefExtension(base_url=base)])
    assert f'href="{href}"' in html


@pytest.mark.parametrize(
    "url",
    [
        *REFUSED,
        "https://rules.example.org",
        "http://127.0.0.1:8000/",
        "https://e.org/sub",
        "http://[::1",
    ],
)
def test_the_export_and_the_shared_check_agree(url: str) -> None:
    try:
        check_base_url(url)
        refused = False
    except ExportError:
        refused = True
    assert refused == (base_url_problem(url) is not None)
    for value in REFUSED:  # what the export refuses, the extension refuses too
        assert base_url_problem(value, embedded=True) is not None


@pytest.mark.parametrize("url", ["https://e.org/kb?x=1", "https://e.org/kb#top", "/kb?x=1"])
def test_the_extension_refuses_a_base_url_with_a_query_or_fragment(url: str) -> None:
    """Links add "/en/rules/…" after the base: after a query or fragment that is no page (the
    export refuses the same values through the same check)."""
    from kb.base.urlcheck import base_url_problem
    from kb.export.runner import ExportError, check_base_url

    assert base_url_problem(url, embedded=True)
    if url.startswith("http"):
        with pytest.raises(ExportError):
            check_base_url(url)
