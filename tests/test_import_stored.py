"""A notebook's stored output that the fresh run shows nothing of is not lost: the page
shows it under its step, labelled as the notebook's, and the build and `build.py check`
warn at the step's line, naming the notebook's cell (issue #26)."""

import base64

import nbformat
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from conftest import authoring_example, line_of

PIXEL = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
LESSON = "content/02-stored-outputs/01-stored-outputs.md"
PAGE = "site/stored-outputs/stored-outputs/index.html"


def image(mime="image/png", data=PIXEL):
    return new_output("display_data", data={mime: data, "text/plain": "<Figure>"})


def stored_notebook(path, extra_cells=()):
    notebook = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    notebook.cells = [
        new_markdown_cell("# Stored outputs\n\nWhat a notebook showed.\n\n## Shown and closed"),
        new_code_cell(  # cell 2: the notebook showed the figure once; the code closes it unseen
            "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])\n"
            "plt.close(fig)",
            outputs=[image()],
            metadata={"mystnb": {"image": {"alt": "A rising line"}}},
        ),
        new_markdown_cell("## Bold"),
        new_code_cell(  # cell 4: a display() in mid-cell, which the build's run shows too
            "from IPython.display import HTML, display\n"
            "display(HTML('<b>bold</b><script>alert(1)</script>'))\nx = 1",
            outputs=[
                new_output(
                    "display_data",
                    data={
                        "text/html": "<b>bold</b><script>alert(1)</script>",
                        "text/plain": "<IPython.core.display.HTML object>",
                    },
                )
            ],
        ),
        new_markdown_cell("## Stale"),
        new_code_cell(  # cell 6: its output is from code since changed
            "y = 5", outputs=[new_output("stream", name="stdout", text="five, once\n")]
        ),
        new_markdown_cell("## Warned once"),
        new_code_cell(  # cell 8: a message on stderr that this run does not write
            "z = y + 1",
            outputs=[new_output("stream", name="stderr", text="LibraryWarning: slow path\n")],
        ),
        new_markdown_cell("## Left open"),
        new_code_cell(  # cell 10: the fresh run draws the figure: nothing stored is shown
            "fig2, ax2 = plt.subplots()\nax2.plot([2, 1])\nplt.show()",
            outputs=[image()],
            metadata={"mystnb": {"image": {"alt": "A falling line"}}},
        ),
        *extra_cells,
    ]
    nbformat.write(notebook, path)


def imported(course_folder, extra_cells=()):
    course_folder.write(authoring_example())
    stored_notebook(course_folder.root / "stored.ipynb", extra_cells)
    result = course_folder.cli("import", "stored.ipynb", "--phase", "02")
    assert result.returncode == 0, result.stderr
    return (course_folder.root / LESSON).read_text()


def test_what_the_fresh_run_does_not_show_is_shown_labelled_as_stored(course_folder):
    text = imported(course_folder)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup((course_folder.root / PAGE).read_text(), "html.parser")
    stored = {n: page.select_one(f"#step-{n} .output-stored") for n in range(1, 6)}
    for n, cell in ((1, 2), (3, 6), (4, 8)):
        note = stored[n].select_one(".output-stored-note").get_text()
        assert f"Stored in the notebook stored.ipynb (cell {cell})" in note
        assert "not this build's output" in note
    # The figure the cell closed: the notebook's image, published beside the page, with
    # the step's alt text (which the build accepts though the code draws nothing).
    (img,) = stored[1].select("img")
    assert img["alt"] == "A rising line" and not page.select("#step-1 svg")
    published = course_folder.root / PAGE.rpartition("/")[0] / img["src"]
    assert published.read_bytes() == base64.b64decode(PIXEL)
    # The HTML a mid-cell display() showed, shown by the fresh run as the notebook showed
    # it (through the allowlist): nothing stored is shown for it.
    assert stored[2] is None
    fresh = page.select_one("#step-2 .output-stdout .output-html")
    assert fresh.select_one("b").get_text() == "bold"
    assert fresh.find("script") is None and "alert" not in fresh.get_text()
    # Text: printed output and stderr, each labelled as stored, apart from the run's own.
    assert stored[3].select_one(".output-stdout pre").get_text() == "five, once\n"
    assert "Stored output" in stored[3].select_one(".output-label").get_text()
    assert page.select("#step-3 .output-stdout") == stored[3].select(".output-stdout")
    assert stored[4].select_one(".output-stderr pre").get_text() == "LibraryWarning: slow path\n"
    # The step whose run shows its figure shows that, and nothing stored.
    assert stored[5] is None and page.select("#step-5 svg")

    # The build warns at each such step's code, naming the notebook's cell.
    for step, cell, what, code in (
        (1, 2, "displayed images or rich output", "import matplotlib.pyplot"),
        (3, 6, "printed output", "y = 5"),
        (4, 8, "messages on stderr", "z = y + 1"),
    ):
        message = (
            f"{LESSON}:{line_of(text, code)}: step {step} shows nothing of the {what} stored "
            f"in stored.ipynb (cell {cell}): the page shows the notebook's stored output"
        )
        assert message in built.stderr
    assert "step 5 shows nothing" not in built.stderr
    assert "step 2 shows nothing" not in built.stderr
    assert "-five, once" in built.stderr  # the text that changed, as a diff
    # build.py check fails on them, naming them the same way.
    checked = course_folder.cli("check")
    assert checked.returncode == 1
    assert f"{LESSON}:{line_of(text, 'y = 5')}: step 3 shows nothing" in checked.stderr
    assert "stored in stored.ipynb (cell 2)" in checked.stderr


def test_a_stored_image_the_page_cannot_show_stops_the_build_at_its_step(course_folder):
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    hostile = new_code_cell(
        "w = 2", outputs=[image("image/svg+xml", svg)], metadata={"mystnb": {"image": {"alt": "x"}}}
    )
    text = imported(course_folder, [new_markdown_cell("## Hostile"), hostile])
    built = course_folder.cli("-q")
    assert built.returncode == 1
    where = line_of(text, "w = 2")
    assert f"{LESSON}:{where}: a display step 6 stored in stored.ipynb cannot be shown" in (
        built.stderr
    )
    assert not (course_folder.root / "site").exists()


def test_a_stored_image_needs_the_steps_alt_text(course_folder):
    text = imported(course_folder).replace(":alt: A rising line\n", "")
    (course_folder.root / LESSON).write_text(text)
    built = course_folder.cli("-q")
    assert built.returncode == 1
    where = line_of(text, "import matplotlib.pyplot")
    assert (
        f"{LESSON}:{where}: step 1 shows an image stored in stored.ipynb, but has no text "
        "alternative"
    ) in built.stderr


def test_a_step_whose_stored_run_did_not_raise_is_said_to_meet_other_library_versions(
    course_folder,
):
    """An equinox model written for older optax fails deep inside optax with a 'pytree
    structure error' (Equinox's train_rnn): the notebook shows the cell ran, so the hint
    points at the versions, not only at the code."""
    changed = new_code_cell(  # cell 12: reshape refused as a newer library would refuse it
        "import numpy as np\nprint(np.ones(2).reshape(3))",
        outputs=[new_output("stream", name="stdout", text="[1. 1.]\n")],
    )
    again = new_code_cell(  # cell 14: the same, another cell: one cause, not two messages
        "print(np.ones(2).reshape(3), 'again')",
        outputs=[new_output("stream", name="stdout", text="[1. 1.] again\n")],
    )
    cells = [new_markdown_cell("## Reshaped"), changed, new_markdown_cell("## Again"), again]
    text = imported(course_folder, cells)
    built = course_folder.cli("-q")
    assert built.returncode == 1
    at = line_of(text, "print(np.ones(2).reshape(3))")
    (error,) = [line for line in built.stderr.splitlines() if line.startswith("error:")]
    repeated = line_of(text, "reshape(3), 'again'")
    assert f"| step 7 failed with the same error too, at line {repeated}" in built.stderr
    assert f":{at}: step" in error and "failed: ValueError: cannot reshape" in error
    hint = built.stderr.split(error, 1)[1].splitlines()[1]
    assert hint.startswith(
        "  hint: stored.ipynb (cell 12) ran this step without raising ValueError: the "
        "libraries it calls are likely other versions"
    ), hint
    assert ":raises: ValueError" in hint


def test_a_stored_progress_bar_is_kept_as_the_notebook_showed_it(course_folder):
    """A stream stored with its carriage returns (tqdm's redraws, in two outputs) is what a
    notebook shows of it: the last state of each line, not every redraw."""
    redraws = [
        new_output("stream", name="stderr", text="\r  0%|  | 0/2\r 50%|# | 1/2"),
        new_output("stream", name="stderr", text="\r100%|##| 2/2\nloaded\n"),
    ]
    cell = new_code_cell("w = 2", outputs=redraws)
    imported(course_folder, [new_markdown_cell("## Loaded"), cell])
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup((course_folder.root / PAGE).read_text(), "html.parser")
    stored = page.select_one("#step-6 .output-stored .output-stderr pre")
    assert stored.get_text() == "100%|##| 2/2\nloaded\n"


def test_a_stored_rich_display_the_fresh_run_printed_as_text_is_not_said_unshown(course_folder):
    """rich (and Flax's visualize_array_sharding through it) shows a table as HTML in a
    notebook and prints the same table as text elsewhere: the page shows the fresh run's
    text and not the stored HTML as if the run had shown none of it. An image the fresh
    run printed the text of is still unshown."""
    table = "┏━━━━━━━━┓\n┃ CPU 0  ┃\n┗━━━━━━━━┛"
    # The notebook stored rich's text with its colour codes, which a notebook shows as colour.
    coloured = table.replace("0", "\x1b[1;36m0\x1b[0m")
    stored_table = new_output(
        "display_data", data={"text/html": f"<pre>{table}</pre>", "text/plain": coloured + "\n"}
    )
    cells = [
        new_markdown_cell("## Printed"),
        new_code_cell(f"print({table!r})", outputs=[stored_table]),
        new_markdown_cell("## Figure as text"),
        new_code_cell("print('<Figure>')", outputs=[image()]),
    ]
    text = imported(course_folder, cells)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup((course_folder.root / PAGE).read_text(), "html.parser")
    assert page.select_one("#step-6 .output-stored") is None
    assert "┃ CPU 0  ┃" in page.select_one("#step-6 .output-stdout").get_text()
    assert "step 6 shows nothing" not in built.stderr
    assert "output of step-6 differs" not in built.stderr
    assert page.select_one("#step-7 .output-stored img") is not None
    figure_line = line_of(text, "print('<Figure>')")
    assert f"{LESSON}:{figure_line}: step 7 shows nothing" in built.stderr


def test_a_cell_the_notebook_ran_to_show_a_syntax_error_is_shown_with_it_never_run(
    course_folder,
):
    """PDSH's hierarchical indexing runs `data.loc[(:, 1), (:, 'HR')]` to show that Python
    refuses a slice in a tuple: no step can hold it (main.py must compile), so it is shown
    with the error the notebook stored, and the lesson builds."""
    refused = new_code_cell(
        "rows = {'a': 1}\nrows[(:, 1)]",
        outputs=[
            new_output(
                "error",
                ename="SyntaxError",
                evalue="invalid syntax (3311942670.py, line 2)",
                traceback=["  File /var/folders/xc/T/ipykernel_86488/3311942670.py, line 2"],
            )
        ],
    )
    after = new_code_cell("print(slice(None), 1)")  # the cells after it run as ever
    cells = [new_markdown_cell("## A slice in a tuple"), refused, after]
    text = imported(course_folder, cells)
    shown = "```python norun\nrows = {'a': 1}\nrows[(:, 1)]\n```"
    stored = "not run here):\n\n```text\nSyntaxError: invalid syntax\n```"
    assert shown in text and stored in text and "3311942670" not in text
    assert text.count("rows[(:, 1)]") == 1 and ":raises: SyntaxError" not in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = (course_folder.root / PAGE).read_text()
    assert "SyntaxError: invalid syntax" in page
