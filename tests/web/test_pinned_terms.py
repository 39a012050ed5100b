"""A rule of an old edition explains its terms as that edition's glossary did."""

from __future__ import annotations


def test_pinned_rule_uses_its_own_glossary(full_client) -> None:  # type: ignore[no-untyped-def]
    resp = full_client.get("/en/2011-09-30/rules/116.3b.json", follow_redirects=True)
    assert resp.status_code == 200, (resp.status_code, resp.headers.get("Location"))
    old = resp.get_json()
    new = full_client.get("/en/rules/117.3b.json").get_json()
    old_priority = next(t for t in old["page"]["terms"] if t["key"] == "priority")
    new_priority = next(t for t in new["page"]["terms"] if t["key"] == "priority")
    # 2011 sent readers to rule 116 (Timing and Priority then), 2025 to rule 117.
    assert "rule 116" in old_priority["definition"]
    assert "rule 117" in new_priority["definition"]
