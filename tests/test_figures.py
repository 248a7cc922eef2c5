"""Figure data becomes an SVG whose text is the author's text."""

from coursesite.figures import render_svg


def test_dollar_signs_in_labels_are_text_not_math():
    data = {
        "kind": "bar",
        "labels": ["costs $5", "b"],
        "xlabel": "price in $",
        "series": [{"label": "a", "values": [1, 2]}],
        "ylabel": "$ per run",
    }
    svg = render_svg(data, "Bar chart of prices")
    for text in ("costs $5", "price in $", "$ per run"):
        assert f">{text}</text>" in svg.replace("\n", "") or f">{text}\n" in svg, text
