"""A snippet's window is widened to word boundaries by searches, as a step per character
would widen it: the same window for any text, marks and width."""

from __future__ import annotations

from bisect import bisect_left

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.search.highlight import _merge, _window, highlight


def _window_by_steps(text: str, spans: list[tuple[int, int]], width: int) -> tuple[int, int]:
    """The window, widened one character at a time (the long way)."""
    if len(text) <= width:
        return 0, len(text)
    best_start, best_count = 0, -1
    starts = [s for s, _ in spans]
    for i, s in enumerate(starts):
        count = bisect_left(starts, s + width, i) - i
        if count > best_count:
            best_start, best_count = s, count
    start = max(0, best_start - width // 4) if best_count > 0 else 0
    end = min(len(text), start + width)
    start = max(0, end - width)
    while start > 0 and not text[start - 1].isspace() and best_start - start < width // 2:
        start -= 1
    while end < len(text) and not text[end].isspace() and end - start < width + 30:
        end += 1
    return start, end


_TEXT = st.text(alphabet=st.sampled_from("ab c\n\t\u3000優先\xa0é"), max_size=400)


@settings(max_examples=500, deadline=None)
@given(_TEXT, st.lists(st.tuples(st.integers(0, 399), st.integers(1, 8))), st.data())
def test_the_window_is_the_step_by_step_one(
    text: str, marks: list[tuple[int, int]], data: st.DataObject
) -> None:
    width = data.draw(st.sampled_from([220, 40, 10, 3, 1]))
    spans = _merge(sorted((s, min(len(text), s + n)) for s, n in marks if s < len(text)))
    assert _window(text, spans, width) == _window_by_steps(text, spans, width)


def test_a_long_japanese_text_is_cut_within_its_limits() -> None:
    text = "優先権" * 200
    snippet = highlight(text, {"優先"}, [], marks=[(300, 302)])
    body = snippet.strip("…").replace("<mark>", "").replace("</mark>", "")
    assert "<mark>優先</mark>" in snippet
    # No space to stop at: half a width before the mark, and the width after the first place.
    assert (snippet[0], snippet[-1]) == ("…", "…")
    assert body == text[300 - 110 : 300 - 55 + 220]
