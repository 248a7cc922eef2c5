"""An imported formula that MathML cannot carry is shown as its LaTeX source, reported,
instead of stopping the first build; every other formula stays math."""

from __future__ import annotations

from coursesite.importers.formulas import settle_math

CELL = """Inline $\\href{https://example.com}{a}$ and fine $x^2$.

$$
\\frac{1}{
$$

$$
\\begin{eqnarray} a &=& b \\\\ c &=& d \\end{eqnarray}
$$
"""


def test_only_the_formulas_mathml_cannot_carry_become_source():
    notes: list[str] = []
    settled = settle_math(CELL, "cell 4", notes)
    assert "`$\\href{https://example.com}{a}$`" in settled and "fine $x^2$." in settled
    assert "```latex\n\\frac{1}{\n```" in settled
    assert "$$\n\\begin{eqnarray}" in settled  # MathJax's eqnarray renders: still math
    assert len(notes) == 2 and all(note.startswith("cell 4: the formula") for note in notes)


def test_a_cell_of_good_math_is_left_as_written():
    assert settle_math("$a + b$ and $$c$$", "cell 1", []) == "$a + b$ and $$c$$"
