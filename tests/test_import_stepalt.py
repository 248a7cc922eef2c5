"""What an imported step's code says of the images it shows, where its notebook stored no
run (a MyST notebook never does): a step that may draw gets the alt placeholder, which the
build accepts and `build.py check` lists; one it missed would be a refused build."""

from __future__ import annotations

import pytest

from coursesite.importers.notebookcells import Cell
from coursesite.importers.reportnotes import grouped_notes
from coursesite.importers.stepalt import ALT_PLACEHOLDER, alt_notes, drawing_functions, step_alt


@pytest.mark.parametrize(
    "code",
    [
        "p = plot(f, df, (x, -10, 10), show=False)\np.title = 'A plot'\np.show()",
        "plot3d_parametric_line(*alpha)",
        "sns.lineplot(data=frame)",
        "chart = make_chart(rows)\nchart.show()",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])",
        "nx.draw_planar(graph,\n    with_labels=True,\n)",  # NetworkX draws with matplotlib
        "nx.draw(graph)",
    ],
)
def test_code_that_plots_through_a_library_may_draw(code):
    assert step_alt(Cell("code", code, "line 3"), code) == ALT_PLACEHOLDER


@pytest.mark.parametrize(
    "code",
    [
        "import matplotlib.pyplot as plt\nplt.rcParams['figure.figsize'] = (11, 5)",
        "total = sum(values)\nprint(total)",
        "plotted = len(rows)\nshowing = plotted > 2",
        "card = random_draw(deck)\ndrawn = card",
        "def plot_path(path):\n    plt.plot(path)\n    plt.show()",
    ],
)
def test_code_that_draws_nothing_needs_no_alt(code):
    assert step_alt(Cell("code", code, "line 3"), code) == ""


def test_a_step_that_calls_a_drawing_function_of_the_notebook_may_draw():
    """Defining `plot_path` draws nothing; calling it, there or in a later step, may."""
    defined = "def plot_path(path):\n    plt.plot(path)"
    drawers = drawing_functions([defined])
    called = f"{defined}\nplot_path([1, 2])"
    assert step_alt(Cell("code", called, "line 3"), called, drawers) == ALT_PLACEHOLDER
    later = "plot_path([3, 4])"
    assert step_alt(Cell("code", later, "line 9"), later, drawers) == ALT_PLACEHOLDER
    assert step_alt(Cell("code", defined, "line 3"), defined, drawers) == ""


def test_a_step_that_hands_a_drawing_function_on_may_draw():
    """QuantEcon's matsuyama: `interact(interact_attraction_basis, rho=(0.0, 1.0, 0.05))`
    (ipywidgets) calls the function it is given at once, which draws; the step got no
    :alt: and the build refused the lesson. A step that only reads another name does not."""
    defined = "def draw_basin(rho=0.2):\n    fig, ax = plt.subplots()\n    plt.show()"
    drawers = drawing_functions([defined, "def wrapped():\n    interact(draw_basin)"])
    assert drawers == {"draw_basin", "wrapped"}
    handed = "fig = interact(draw_basin,\n               rho=(0.0, 1.0, 0.05))"
    assert step_alt(Cell("code", handed, "line 5"), handed, drawers) == ALT_PLACEHOLDER
    other = "rho = interact(print, rho=0.5)"
    assert step_alt(Cell("code", other, "line 7"), other, drawers) == ""


def test_the_cells_that_may_draw_are_one_line_of_the_report():
    """A lecture with twenty plots gets one line naming their places, not twenty."""
    notes = [
        note
        for where, code in (("line 4", "plt.plot(x)"), ("line 9", "ax.hist(y)"))
        for note in alt_notes(Cell("code", code, where), code)
    ]
    assert grouped_notes(notes) == [
        "line 4, line 9: it may show a figure or image: describe it in its step's :alt: "
        f"option, now '{ALT_PLACEHOLDER}' (`build.py check` lists each)"
    ]
