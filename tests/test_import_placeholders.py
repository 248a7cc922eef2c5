"""The `TODO:` placeholders an import writes are for the author: each is a build warning
and `build.py check` fails until it is filled, but no reader sees one, on a page, in a
download or in a meta tag."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from conftest import authoring_example, everything_readable


def test_no_placeholder_reaches_a_reader_while_the_build_warns_and_check_fails(course_folder):
    course_folder.write(authoring_example())
    book = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    book.cells = [
        new_markdown_cell("# Plots\n\nA line drawn."),
        new_markdown_cell("## Draw the line"),
        new_code_cell(
            "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
            "plt.plot([1, 2, 3])\nplt.show()"
        ),
        new_markdown_cell("## Count"),
        new_code_cell("print(sum(range(4)))"),
    ]
    nbformat.write(book, course_folder.root / "plots.ipynb")
    done = course_folder.cli("import", "plots.ipynb", "--phase", "02", "--slug", "plots")
    assert done.returncode == 0, done.stderr
    (path,) = (course_folder.root / "content").rglob("*plots.md")
    lesson = path.read_text()
    assert lesson.count("TODO:") >= 3, lesson
    # As the import writes a MyST {experiment} that lacks its required options.
    path.write_text(
        lesson.replace(
            "# Experiment\n",
            "# Experiment\n\n:::{experiment} Count again\n:predict: TODO: its predict\n"
            ":expected: TODO: its expected\n```python\nprint(sum(range(5)))\n```\n"
            "Counting is counting.\n:::\n",
        )
    )
    built = course_folder.cli()
    assert built.returncode == 0, built.stderr
    assert "placeholder left to fill in" in built.stdout + built.stderr
    # The example course's scaffold asks the learner to fill in its `# TODO:` lines.
    site = everything_readable(course_folder.root / "site")
    site = site.replace("# TODO: batches of three", "").replace("the TODOs", "")
    assert "TODO" not in site, site[site.index("TODO") - 300 : site.index("TODO") + 100]
    assert "Figure of step 1: Draw the line" in site
    checked = course_folder.cli("check")
    assert checked.returncode != 0
    assert "placeholder left to fill in" in checked.stdout + checked.stderr
