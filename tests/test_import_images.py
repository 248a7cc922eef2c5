"""A step's :alt: describes any image it shows, a displayed one as well as a figure
(issue #26): an imported cell that displays an image gets its text alternative from the
notebook's MyST-NB metadata, or the TODO placeholder the build accepts and `build.py
check` lists, and the build never refuses the import for it; an :alt: on a step that
shows no image at all is refused, saying so and how to show one."""

from __future__ import annotations

import base64

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from conftest import CourseFolder, authoring_example, line_of

PIXEL = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
LESSON = "content/02-shown-images/01-shown-images.md"
PAGE = "site/shown-images/shown-images/index.html"
ALT = "A single grey pixel, the whole of the picture"
REPR = "<IPython.core.display.Image object>"


MYST_HEADER = "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n"


def images_notebook(path) -> None:
    notebook = new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    notebook.cells = [
        new_markdown_cell("# Shown images\n\nWhat a notebook displays.\n\n## The pixel"),
        new_code_cell(  # cell 2: display(Image) with MyST-NB's alt, and its stored image
            "import base64\n"
            "from IPython.display import Image, display\n"
            f"PIXEL = base64.b64decode({PIXEL!r})\n"
            "display(Image(data=PIXEL))",
            outputs=[new_output("display_data", data={"image/png": PIXEL, "text/plain": REPR})],
            metadata={"mystnb": {"image": {"alt": ALT}}},
        ),
        new_markdown_cell("## Never run\n\nThe pixel again, in a cell the notebook never ran."),
        new_code_cell("Image(data=PIXEL)"),  # cell 4: no outputs, no metadata
        new_markdown_cell("## Its value"),
        new_code_cell(  # cell 6: the image as the cell's value, stored, with no metadata
            "picture = Image(data=PIXEL)\npicture",
            outputs=[
                new_output(
                    "execute_result",
                    data={"image/png": PIXEL, "text/plain": REPR},
                    execution_count=3,
                )
            ],
        ),
        new_markdown_cell("## A table"),
        new_code_cell(  # cell 8: a captioned table: MyST-NB's caption, but no image
            "from IPython.display import HTML\nHTML('<table><tr><td>1</td></tr></table>')",
            outputs=[
                new_output(
                    "execute_result",
                    data={
                        "text/html": "<table><tr><td>1</td></tr></table>",
                        "text/plain": "<IPython.core.display.HTML object>",
                    },
                    execution_count=4,
                )
            ],
            metadata={"mystnb": {"figure": {"caption": "Table 1: one record"}}},
        ),
    ]
    nbformat.write(notebook, path)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The notebook imported into a course, built and checked by the real command line."""
    folder = CourseFolder(tmp_path_factory.mktemp("images"))
    folder.write(authoring_example())
    images_notebook(folder.root / "images.ipynb")
    result = folder.cli("import", "images.ipynb", "--phase", "02")
    assert result.returncode == 0, result.stderr
    text = (folder.root / LESSON).read_text()
    built = folder.cli("-q")
    checked = folder.cli("check")
    return folder, result, text, built, checked


def test_a_displayed_image_is_the_steps_value_with_the_notebooks_alt_and_no_drift(imported):
    folder, _, text, built, checked = imported
    assert f":::{{step}} 1. The pixel\n:alt: {ALT}\n" in text
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup((folder.root / PAGE).read_text(), "html.parser")
    (img,) = page.select("#step-1 .output-display img")
    assert img["alt"] == ALT
    published = folder.root / PAGE.rpartition("/")[0] / img["src"]
    assert published.read_bytes() == base64.b64decode(PIXEL)
    assert page.select_one("#step-1 .output-stored") is None  # the fresh run shows it
    # The stored display is the step's value, as the import made it: no difference to
    # report, so neither the build nor check warns about step 1's output.
    where = f"{LESSON}:{line_of(text, 'import base64')}:"
    for output in (built.stderr, checked.stderr):
        assert f"{where} output of step-1 differs" not in output
        assert where not in output


def test_a_cell_that_shows_an_image_and_stored_nothing_gets_the_placeholder(imported):
    folder, result, text, built, checked = imported
    assert ":::{step} 2. Never run\n:alt: TODO: what the figure shows\n" in text
    assert "cell 4: it may show a figure or image: describe it in its step's :alt:" in (
        result.stdout
    )
    # The build accepts the placeholder and publishes the image; check lists it.
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup((folder.root / PAGE).read_text(), "html.parser")
    assert page.select("#step-2 .output-display img")
    where = line_of(text, ":alt: TODO: what the figure shows")
    placeholder = f"{LESSON}:{where}: placeholder left to fill in: :alt: TODO"
    assert placeholder in built.stderr
    assert checked.returncode == 1 and placeholder in checked.stderr


def test_an_image_stored_as_the_cells_value_needs_alt_text_too(imported):
    folder, result, text, built, checked = imported
    assert ":::{step} 3. Its value\n:alt: TODO: what the figure shows\n" in text
    assert "cell 6: it shows a figure or image: describe it in its step's :alt:" in (result.stdout)
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup((folder.root / PAGE).read_text(), "html.parser")
    (img,) = page.select("#step-3 .output-display img")
    assert img["alt"] == "Figure of step 3: Its value"  # readers never see the placeholder
    where = line_of(text, ":alt: TODO: what the figure shows", 2)
    assert f"{LESSON}:{where}: placeholder left to fill in: :alt: TODO" in checked.stderr


def test_a_caption_on_output_that_is_no_image_is_not_made_an_alt(imported):
    _, result, text, built, _ = imported
    assert ":::{step} 4. A table\n```python\n" in text  # no :alt:
    assert (
        "cell 8: its MyST-NB options describe an image ('Table 1: one record'), but its "
        "stored run showed none"
    ) in result.stdout
    assert built.returncode == 0, built.stderr
    assert "has an :alt: option" not in built.stderr


HAND_WRITTEN = """
:::{step} 3. Show the pixel
:alt: A single grey pixel.

```python
import base64

from IPython.display import Image, display

display(Image(data=base64.b64decode("PIXEL_DATA")))
```
:::
""".replace("PIXEL_DATA", PIXEL)


def test_an_alt_on_a_step_that_shows_no_image_says_so_and_how_to_show_one(course_folder):
    text = authoring_example().replace("# Experiment\n", HAND_WRITTEN.lstrip() + "\n# Experiment\n")
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 1
    where = line_of(text, "import base64")
    assert (
        f"{where}: step 3 has an :alt: option but shows no image: it drew no matplotlib "
        "figure and displayed no image"
    ) in built.stderr
    assert "end the block with the image as its value" in built.stderr
    assert "display(Image(...))" in built.stderr


def test_an_image_the_notebook_links_to_comes_from_beside_it_and_a_missing_one_is_named(
    course_folder,
):
    """A notebook imported from its repository's checkout brings the images it links to,
    at the same place relative to the lesson; one found nowhere is named with its path."""
    course_folder.write(authoring_example())
    repo = course_folder.root.parent / "tutorials"
    (repo / "docs").mkdir(parents=True)
    (repo / "_static").mkdir()
    (repo / "_static" / "logo.png").write_bytes(base64.b64decode(PIXEL))
    (repo / "docs" / "logos.md").write_text(
        MYST_HEADER + "# Logos\n\n"
        "The logo: ![the logo, a grey pixel](../_static/logo.png)\n\n"
        "And another: ![a lost picture](../_static/gone.png)\n\n"
        "```{code-cell} ipython3\nprint('logos')\n```\n\n"
        "The logo again: ![the logo once more](../_static/logo.png)\n"
    )
    imported = course_folder.cli("import", str(repo / "docs" / "logos.md"), "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.count("image ../_static/logo.png copied from beside the") == 1
    assert "logo.png is not beside" not in imported.stdout  # linked twice, copied once
    assert (
        "image ../_static/gone.png is not beside the lesson: copy it to content/_static/gone.png"
    ) in imported.stdout
    copied = course_folder.root / "content" / "_static" / "logo.png"
    assert copied.read_bytes() == base64.b64decode(PIXEL)
    built = course_folder.cli("-q")
    assert built.returncode == 1
    assert "gone.png' not found" in built.stderr and "logo.png" not in built.stderr


def test_an_image_path_from_the_projects_root_is_read_there_and_named_at_its_line(
    course_folder,
):
    """`/_static/x.png` in a Jupyter Book or Sphinx project starts at the project's root
    (the folder of its _config.yml), not the machine's: the import reads the image from
    there and names a missing one at its own line, where a refusal ("outside the course
    folder") stopped the whole import."""
    course_folder.write(authoring_example())
    repo = course_folder.root.parent / "book"
    (repo / "lectures").mkdir(parents=True)
    (repo / "_config.yml").write_text("title: A book\n")
    (repo / "_static").mkdir()
    (repo / "_static" / "logo.png").write_bytes(base64.b64decode(PIXEL))
    text = (
        MYST_HEADER + "# Logos\n\nSome words first.\n\nMore words.\n\n"
        "```{figure} /_static/logo.png\n:alt: the logo, a grey pixel\n\nThe logo.\n```\n\n"
        "Lost: ![a lost picture](/_static/gone.png)\n\n"
        "```{code-cell} ipython3\nprint('logos')\n```\n"
    )
    (repo / "lectures" / "logos.md").write_text(text)
    imported = course_folder.cli("import", str(repo / "lectures" / "logos.md"), "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    gone = line_of(text, "Lost: ![")
    assert f"line {gone}: image ../_static/gone.png is not beside the lesson" in imported.stdout
    assert "start at the project's root (.., from the notebook): they are read" in imported.stdout
    rooted = next(line for line in imported.stdout.splitlines() if "project's root" in line)
    assert str(repo.resolve()) not in rooted.partition("project's root")[2]  # no machine path
    copied = course_folder.root / "content" / "_static" / "logo.png"
    assert copied.read_bytes() == base64.b64decode(PIXEL)
    lesson = next((course_folder.root / "content").rglob("*-logos.md")).read_text()
    assert "{figure} ../_static/logo.png" in lesson and "(/_static" not in lesson


def test_an_image_the_notebooks_code_writes_is_listed_under_writes_and_published(course_folder):
    """A notebook that saves a figure into a folder its data files are in, then shows the
    file in its prose, imports as a lesson that builds at once: the image is listed under
    writes: (not reported missing), the folder is the data files' (no makedirs asked for),
    and the page shows what the run wrote."""
    course_folder.write(authoring_example())
    repo = course_folder.root.parent / f"{course_folder.root.name}-charts"
    (repo / "charts").mkdir(parents=True)
    (repo / "charts" / "rows.csv").write_text("1,2\n3,4\n")
    (repo / "charts.md").write_text(
        MYST_HEADER + "# Charts\n\n"
        "We draw the rows and save the chart beside them.\n\n"
        "```{code-cell} ipython3\nimport os\nimport numpy as np\nimport matplotlib\n"
        "matplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n\nDIR = 'charts'\n"
        "rows = np.loadtxt(os.path.join(DIR, 'rows.csv'), delimiter=',')\n"
        "plt.plot(rows[:, 0], rows[:, 1])\nplt.savefig(os.path.join(DIR, 'chart.png'))\n"
        "plt.close()\nprint(rows.sum())\n```\n\n"
        "The chart: ![a rising line through two points](charts/chart.png)\n"
    )
    imported = course_folder.cli("import", str(repo / "charts.md"), "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    assert (
        "image charts/chart.png is one the notebook's code writes: listed under writes:"
    ) in imported.stdout
    assert "not beside the lesson" not in imported.stdout
    assert "which no step makes before it" not in imported.stdout
    lesson = next((course_folder.root / "content").rglob("*-charts.md")).read_text()
    assert "writes:\n  - charts/chart.png\n" in lesson
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = course_folder.root / "site" / "charts" / "charts" / "index.html"
    [chart] = (page.parent / "images").glob("chart-*.png")
    assert chart.read_bytes().startswith(b"\x89PNG")
    assert f'src="images/{chart.name}"' in page.read_text()


def _imported_guide(course_folder, files: dict[str, str], guide: str) -> str:
    """The report of importing `guide` from a checkout beside the course that holds
    `files` (relative path: text; a path ending in / is a folder), after what the import
    said of its progress on stderr; the import must pass."""
    course_folder.write(authoring_example())
    repo = course_folder.root.parent / f"{course_folder.root.name}-checkout"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        if name.endswith("/"):
            (repo / name).mkdir(exist_ok=True)
        else:
            (repo / name).write_text(text)
    imported = course_folder.cli("import", str(repo / guide), "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    return imported.stderr + imported.stdout


def test_an_image_the_code_writes_outside_the_lesson_is_named_with_where_to_write_it(
    course_folder,
):
    """Matplotlib's constrained-layout guide saves a figure into its documentation's
    `_static/` (`../../../doc/_static/x.png`), then shows `/_static/x.png`: the report says
    the code writes it, where, and what to change, not "copy it" (there is nothing to copy)."""
    report = _imported_guide(
        course_folder,
        {
            "guide/layout.md": MYST_HEADER + "# Layout\n\nWe save the figure for the page.\n\n"
            "```{code-cell} ipython3\nimport matplotlib.pyplot as plt\nfig = plt.figure()\n"
            "try:\n    fig.savefig('../doc/_static/layout_1.png')\nexcept FileNotFoundError:\n"
            "    pass\n```\n\nIt looks like: ![the saved layout](_static/layout_1.png)\n"
        },
        "guide/layout.md",
    )
    assert (
        "image _static/layout_1.png is the file the notebook's code writes to "
        "../doc/_static/layout_1.png, outside the lesson's folder"
    ) in report
    assert "make the code write it to _static/layout_1.png" in report
    assert "copy it to" not in report


def test_a_figure_of_another_example_the_checkout_holds_is_drawn_by_running_it(course_folder):
    """Matplotlib's mplot3d guide shows `images/sphx_glr_subplot3d_001.png`, drawn by
    sphinx-gallery from galleries/examples/mplot3d/subplot3d.py when it builds the site: the
    import runs that example, as sphinx-gallery does, and keeps the figure the name asks
    for (the second here: each plt.show() and the end hand over what is drawn)."""
    report = _imported_guide(
        course_folder,
        {
            ".git/": "",  # the checkout's root: its examples are searched for there
            "examples/lines/plot_two.py": '"""\nTwo lines\n=========\n"""\n'
            "import matplotlib.pyplot as plt\nplt.plot([0, 1])\nplt.show()\n"
            "plt.close('all')\nplt.figure(figsize=(2, 1))\nplt.plot([1, 0])\n",
            "examples/lines/plot_broken.py": "raise ValueError('no data')\n",
            "guides/lines.md": MYST_HEADER
            + "# Lines\n\nTwo lines.\n\n```{code-cell} ipython3\nprint(1)\n```\n\n"
            "The second: ![a falling line](images/sphx_glr_plot_two_002.png)\n\n"
            "And: ![none](images/sphx_glr_plot_broken_001.png)\n",
        },
        "guides/lines.md",
    )
    assert (
        "image images/sphx_glr_plot_two_002.png is a figure sphinx-gallery draws from the "
        "example plot_two.py (its figure 2): drawn by running plot_two.py, as it does"
    ) in report
    # Said before the example runs, once however many of its figures are shown.
    assert report.count("running plot_two.py for its figures, as sphinx-gallery does\n") == 1
    assert report.index("running plot_two.py") < report.index("imported ")
    assert (
        "image images/sphx_glr_plot_broken_001.png is a figure sphinx-gallery draws from the "
        "example plot_broken.py (its figure 1): running plot_broken.py did not draw it (it "
        "failed: ValueError: no data)"
    ) in report
    [drawn] = (course_folder.root / "content").rglob("sphx_glr_plot_two_002.png")
    assert drawn.read_bytes().startswith(b"\x89PNG")
    width, height = (
        int.from_bytes(drawn.read_bytes()[16:20]),
        int.from_bytes(drawn.read_bytes()[20:24]),
    )
    assert (width, height) == (200, 100)  # the second figure, 2 by 1 inches at 100 dpi


def test_a_figure_sphinx_gallery_draws_from_another_example_is_named_as_such(course_folder):
    """Matplotlib's annotations guide shows figures of other examples by the names
    sphinx-gallery gives them when it builds the site (`sphx_glr_fancybox_demo_001.png`):
    no repository holds them, so "copy it" would send the author looking for nothing."""
    report = _imported_guide(
        course_folder,
        {
            "boxes.md": MYST_HEADER
            + "# Boxes\n\nFancy boxes.\n\n```{code-cell} ipython3\nprint(1)\n```\n\n"
            "See ![boxes](gallery/shapes/images/sphx_glr_fancybox_demo_001.png)\n"
        },
        "boxes.md",
    )
    assert (
        "image gallery/shapes/images/sphx_glr_fancybox_demo_001.png is a figure sphinx-gallery "
        "draws from the example fancybox_demo.py (its figure 1) when it builds its site"
    ) in report
    assert "copy it to" not in report


def test_an_html_img_becomes_a_markdown_image_and_one_without_alt_a_placeholder(course_folder):
    """A notebook's `<img>` tags (a centred block, one inside prose) show their images on
    the page, not their HTML as code; an image with no alt text gets the placeholder the
    build accepts and `check` lists, instead of a build that refuses it."""
    course_folder.write(authoring_example())
    repo = course_folder.root.parent / f"{course_folder.root.name}-pictures"
    repo.mkdir()
    for name in ("fractal.png", "icon.png", "bare.png"):
        (repo / name).write_bytes(base64.b64decode(PIXEL))
    (repo / "pictures.md").write_text(
        MYST_HEADER + "# Pictures\n\n"
        "The fractal we draw:\n\n"
        '<p align="center">\n<img src="fractal.png" alt="A grey fractal" width="400">\n</p>\n\n'
        'Click <img src="icon.png" alt="the run icon"> to run a cell, <b>then</b> wait.\n\n'
        "```{code-cell} ipython3\nprint('drawn')\n```\n\n"
        "A picture with no words: ![](bare.png)\n\n"
        '```html\n<img src="shown-as-code.png">\n```\n'
    )
    imported = course_folder.cli("import", str(repo / "pictures.md"), "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    assert "2 HTML <img> tag(s) became Markdown images" in imported.stdout
    assert "image bare.png has no alt text: describe it" in imported.stdout
    lesson = next((course_folder.root / "content").rglob("*-pictures.md")).read_text()
    assert "![A grey fractal](fractal.png)" in lesson and "<p align" not in lesson
    assert "Click ![the run icon](icon.png) to run a cell, **then** wait." in lesson
    assert "![TODO: describe bare.png](bare.png)" in lesson
    assert '<img src="shown-as-code.png">' in lesson  # code stays code
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup(
        (course_folder.root / "site" / "pictures" / "pictures" / "index.html").read_text(),
        "html.parser",
    )
    alts = {image["alt"] for image in page.select("main img")}
    assert {"A grey fractal", "the run icon", "TODO: describe bare.png"} <= alts
    checked = course_folder.cli("check")
    assert "placeholder left to fill in: A picture with no words: ![TODO: describe" in (
        checked.stderr + checked.stdout
    )


def test_a_caption_on_a_text_notebooks_table_is_no_alt_but_one_on_its_plot_is(course_folder):
    """A MyST notebook stores no outputs: what its code shows is all there is to go by."""
    course_folder.write(authoring_example())
    (course_folder.root / "captions.md").write_text(
        MYST_HEADER + "# Captions\n\n"
        "## Setup\n\n"
        "```{code-cell} ipython3\nimport matplotlib.pyplot as plt\n"
        "plt.rcParams['figure.figsize'] = (11, 5)\nplt.style.use('default')\n```\n\n"
        "## A table\n\n"
        "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: One record\n---\n"
        "from IPython.display import HTML\nHTML('<table><tr><td>1</td></tr></table>')\n```\n\n"
        "## A line\n\n"
        "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: A rising line\n---\n"
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "plt.plot([1, 2])\n```\n"
    )
    imported = course_folder.cli("import", "captions.md", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    assert (
        "its MyST-NB options describe an image ('One record'), but its code shows none"
    ) in imported.stdout
    text = next((course_folder.root / "content").rglob("*-captions.md")).read_text()
    # Importing pyplot and setting it up draws nothing: that step needs no alt text.
    assert ":::{step} 1. Setup\n```python\n" in text
    assert ":::{step} 2. A table\n```python\n" in text
    assert ":::{step} 3. A line\n:alt: A rising line\n" in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


JAVASCRIPT_STEP = """
:::{step} 3. Plot the sizes
:alt: Sizes rise with the batch.

```python
import LIBRARY

figure = LIBRARY.Figure()
figure.show()
```
:::
"""


@pytest.mark.parametrize(
    ("library", "said"),
    [
        ("plotly", "Plotly's fig.show() shows nothing outside a notebook"),
        ("bokeh", "Bokeh's show() writes an HTML file and opens a browser"),
        ("altair", "an Altair chart shows nothing outside a notebook"),
    ],
)
def test_an_alt_on_a_javascript_figure_says_pages_show_none_and_what_to_do(
    course_folder, library, said
):
    """Plotly's, Bokeh's and Altair's figures show nothing outside a notebook, and are
    JavaScript: the hint says why, and how the figure can reach the page (as an image file,
    by the library's own export), not how to keep a matplotlib figure open."""
    step = JAVASCRIPT_STEP.replace("LIBRARY", library)
    text = authoring_example().replace("# Experiment\n", step.lstrip() + "\n# Experiment\n")
    course_folder.write(text)
    # The library's own, as a module beside the lesson: its show() outside a notebook.
    (course_folder.lesson_path.parent / f"{library}.py").write_text(
        "class Figure:\n    def show(self):\n        pass\n"
    )
    built = course_folder.cli("-q")
    assert built.returncode == 1
    where = line_of(text, f"import {library}")
    assert f"{where}: step 3 has an :alt: option but shows no image" in built.stderr
    assert said in built.stderr and "save it as an image" in built.stderr
    assert "leave the figure open" not in built.stderr


def test_a_gallery_examples_image_paths_are_read_from_the_sphinx_source_beside_it(
    course_folder,
):
    """sphinx-gallery writes an example's page into the Sphinx source folder (`doc/`, beside
    `galleries/`), so Matplotlib's guides link `../../_static/anatomy.png` and
    `/_static/anatomy.png` from there: both are read from doc/ (the conf.py that sets
    sphinx_gallery_conf), copied once, and the lesson builds; before, each was "not beside
    the lesson"."""
    course_folder.write(authoring_example())
    repo = course_folder.root.parent / f"{course_folder.root.name}-checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / "doc" / "_static").mkdir(parents=True)
    conf = "sphinx_gallery_conf = {'examples_dirs': ['../galleries/users_explain']}\n"
    (repo / "doc" / "conf.py").write_text(conf)
    # Another project's gallery, which does not name the guide's folders: not its root.
    (repo / "api" / "_static").mkdir(parents=True)
    (repo / "api" / "_static" / "anatomy.png").write_bytes(b"not the image")
    (repo / "api" / "conf.py").write_text("sphinx_gallery_conf = {'examples_dirs': ['x']}\n")
    (repo / "doc" / "_static" / "anatomy.png").write_bytes(base64.b64decode(PIXEL))
    guide = repo / "galleries" / "users_explain" / "quick_start.py"
    guide.parent.mkdir(parents=True)
    guide.write_text(
        '"""\n===========\nQuick start\n===========\n\nThe parts of a figure:\n\n'
        ".. image:: ../../_static/anatomy.png\n   :alt: a figure's parts\n\n"
        'Again, from the root:\n\n.. image:: /_static/anatomy.png\n   :alt: the same parts\n"""\n'
        "# %%\nprint('parts')\n"
    )
    imported = course_folder.cli("import", str(guide), "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    assert ": 1 image path(s) climb out of the folder sphinx-gallery" in imported.stdout
    assert ": 1 image path(s) start at the project's root (../../doc, from" in imported.stdout
    assert "not beside" not in imported.stdout
    lesson = next((course_folder.root / "content").rglob("*-quick-start.md")).read_text()
    assert lesson.count("{image} ../../doc/_static/anatomy.png") == 2
    copied = course_folder.root / "doc" / "_static" / "anatomy.png"
    assert copied.read_bytes() == base64.b64decode(PIXEL)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
