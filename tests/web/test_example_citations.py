"""An example's trace cites rules; a citation links only where a page answers it. The embedded
corpus holds no 103.8a, so its examples' citations of it were links to a 404 (1,110 such links in
the embedded export)."""

from __future__ import annotations

import re
from pathlib import Path

from kb.web import create_app


def test_every_cited_rule_link_on_example_pages_answers(embedded_instance: Path) -> None:
    app = create_app({"INSTANCE": embedded_instance, "TESTING": True})
    client = app.test_client()
    try:
        page = client.get("/en/examples/103-8a-no-draw-on-first-turn").get_data(as_text=True)
        # cited, shown as a number, not a link to a page that is missing
        assert '<span class="ref">103.8a</span>' in page
        assert 'href="/en/rules/103.8a"' not in page
        index = client.get("/en/examples/").get_data(as_text=True)
        hrefs = set(re.findall(r'<a class="ref" href="([^"]+)"', page + index))
        assert any(h.startswith("/en/rules/117") for h in hrefs)  # rules it has are links
        for href in sorted(hrefs):
            assert client.get(href).status_code < 400, href
    finally:
        app.extensions["kb_search"].close()
