"""An imported notebook's references to its own documentation are settled by the import:
what points inside the notebook is kept, the rest becomes its text, each in the report."""

from __future__ import annotations

import nbformat
from bs4 import BeautifulSoup

from conftest import authoring_example
from coursesite.config.manifest import ReferenceSite
from coursesite.importers.references import NotebookLabels, OtherSites, settle_references
from coursesite.importers.reportnotes import grouped_notes

CELLS = [
    "(autodiff-linear logistic regression)=\n## Logistic regression\n\n(plain-label)=\n## Plain",
    "See {ref}`the regression <autodiff-linear logistic regression>`, {ref}`plain-label`, "
    "{ref}`jit-compilation`, {doc}`key-concepts`, {term}`tracing`, the {py:class}`jax.Array` "
    "docs, {download}`data.csv`, [Tracers](key-concepts-tracing), [the home](#plain-label), "
    "[JAX](https://docs.jax.dev) and {eq}`my-equation`.\n\n"
    "```python norun\n# {ref}`inside-code` and [a](b) stay as written\n```",
]


def settle(text: str, notes: list[str]) -> str:
    return settle_references(text, NotebookLabels.of(CELLS), "cell 2", notes)


def test_labels_of_any_myst_form_are_slugged_and_kept():
    notes: list[str] = []
    assert settle(CELLS[0], notes).splitlines()[0] == "(autodiff-linear-logistic-regression)="
    settled = settle(CELLS[1], notes)
    assert "{ref}`the regression <autodiff-linear-logistic-regression>`" in settled
    assert "{ref}`plain-label`" in settled


def test_references_outside_the_notebook_become_their_text_with_a_note_each():
    notes: list[str] = []
    settled = settle(CELLS[1], notes)
    for gone in ("{ref}`jit-compilation`", "{doc}", "{eq}", "{download}", "](key-"):
        assert gone not in settled.split("```")[0], gone
    prose = settled.split("```")[0]
    assert "jit compilation, key-concepts, {term}`tracing`," in prose  # a term shows its text
    assert "`data.csv`" in prose and "Tracers," in prose
    assert "{py:class}`jax.Array`" in prose  # a role lessons render is kept
    assert "[the home](#plain-label)" in prose and "[JAX](https://docs.jax.dev)" in prose
    assert len(notes) == 5 and all(note.startswith("cell 2: ") for note in notes)


def test_a_backtick_left_open_makes_no_code_of_the_paragraphs_after_it():
    """QuantEcon writes LaTeX's quotes (``solved'') and once closed a role with a quote: a
    code span ends with its paragraph, so the roles in later paragraphs are settled."""
    text = (
        "It had ``solved'' the problem.\n\nSee {eq}`my-equation' here.\n\n"
        "Then {ref}`jit-compilation` and {ref}`plain-label`."
    )
    settled = settle(text, [])
    assert settled.endswith("Then jit compilation and {ref}`plain-label`.")
    assert "``solved''" in settled
    # Within a paragraph a span may run over a line break: a role in it is code.
    assert settle("A ``x\n{ref}`jit-compilation` y``.", []) == "A ``x\n{ref}`jit-compilation` y``."


def test_a_role_whose_text_runs_over_a_line_break_is_settled_too():
    """QuantEcon's heavy_tails: {doc}`our lecture\non probability <prob_dist>`, which
    MyST reads as one role (a code span may hold a line break)."""
    notes: list[str] = []
    text = "As in {doc}`our lecture\non probability <prob_dist>`.\n\nNext {ref}`a\n\nb`."
    settled = settle(text, notes)
    assert settled.startswith("As in our lecture\non probability.\n\n"), settled
    assert settled.endswith("Next {ref}`a\n\nb`.")  # no role past its paragraph
    assert len(notes) == 1 and "{doc}" in notes[0]
    # A link's text too (QuantEcon's odu: "from section [looking\nforward](looking-forward)"):
    # left as written, the build refused it as a link to a file of the site.
    settled = settle("From [looking\nforward](plain-label).\n\n[a\n\nb](plain-label)", [])
    assert settled.startswith("From {ref}`looking\nforward <plain-label>`.\n\n"), settled
    assert settled.endswith("[a\n\nb](plain-label)")


def test_code_fences_are_left_as_written():
    settled = settle(CELLS[1], [])
    assert "# {ref}`inside-code` and [a](b) stay as written" in settled


def test_text_around_fences_keeps_its_lines():
    text = "```python norun\nx = 1\n```\nAfter {doc}`elsewhere`.\n\n"
    assert settle(text, []) == "```python norun\nx = 1\n```\nAfter elsewhere.\n\n"


def test_references_in_a_directive_body_are_settled_too():
    notes: list[str] = []
    text = "```{note}\nSee {ref}`prng-design-jep` for the design.\n```"
    assert settle(text, notes) == "```{note}\nSee prng design jep for the design.\n```"
    assert notes == [
        "cell 2: {ref}`prng-design-jep` points at a label outside this notebook: it became "
        "the text 'prng design jep'"
    ]


JAX = ReferenceSite(
    url="https://docs.jax.dev/en/latest/",
    labels={
        "key-concepts-tracing": "key-concepts.html#tracing",
        "jit-compilation": "jit-compilation.html",
    },
    pages=".html",
)
GRAIN = ReferenceSite(
    url="https://google-grain.readthedocs.io/en/latest/",
    labels={"jit-compilation": "elsewhere.html"},  # the same label on another site
)


def test_labels_and_pages_of_mapped_sites_become_links_with_a_note_each():
    notes: list[str] = []
    sites = OtherSites.of({"grain": GRAIN, "jax": JAX}, origin="jax")
    settled = settle_references(CELLS[1], NotebookLabels.of(CELLS), "cell 2", notes, sites)
    prose = settled.split("```")[0]
    jax = "https://docs.jax.dev/en/latest/"
    assert f"[jit compilation]({jax}jit-compilation.html)" in prose  # the origin's label
    assert f"[key-concepts]({jax}key-concepts.html)" in prose  # {doc} becomes its page
    assert f"[Tracers]({jax}key-concepts.html#tracing)" in prose  # a link naming a label
    assert "{ref}`plain-label`" in prose  # the notebook's own labels stay references
    assert f"cell 2: {{ref}}`jit-compilation` became a link to {jax}jit-compilation.html" in notes
    assert sum("became a link to" in note for note in notes) == 3


def test_relative_page_links_point_at_the_site_the_notebook_came_from():
    text = "See [the JIT page](../jit-compilation.md#caching) and [data](data.csv)."
    notes: list[str] = []
    sites = OtherSites.of({"jax": JAX}, origin=None)  # the one site that names its pages
    settled = settle_references(text, NotebookLabels(), "cell 1", notes, sites)
    assert "[the JIT page](https://docs.jax.dev/en/latest/jit-compilation.html#caching)" in (
        settled
    )
    # A file that is not a page of the site is not guessed at: it becomes its text.
    assert "and data." in settled
    without_pages = OtherSites.of({"grain": GRAIN}, origin=None)
    assert settle_references(text, NotebookLabels(), "cell 1", [], without_pages) == (
        "See the JIT page and data."
    )


def test_a_label_of_no_mapped_site_still_becomes_its_text():
    notes: list[str] = []
    sites = OtherSites.of({"jax": JAX}, origin="jax")
    assert settle_references("{ref}`nowhere-known`", NotebookLabels(), "cell 3", notes, sites) == (
        "nowhere known"
    )
    assert notes == [
        "cell 3: {ref}`nowhere-known` points at a label outside this notebook: it became "
        "the text 'nowhere known'"
    ]


def test_code_spans_and_indented_code_are_never_rewritten():
    notes: list[str] = []
    text = (
        "Call `vjp(f, x)[1](1.0)` or ``a `{ref}`b` [c](d.md)`` to see it; {ref}`gone`.\n\n"
        "    [1](1.0) and {doc}`page`\n\n"
        "But [`jit`](jit.md) is a link."
    )
    settled = settle(text, notes)
    assert "`vjp(f, x)[1](1.0)`" in settled
    assert "``a `{ref}`b` [c](d.md)``" in settled
    assert "    [1](1.0) and {doc}`page`" in settled
    assert "; gone." in settled and "But `jit` is a link." in settled
    assert len(notes) == 2  # {ref}`gone` and the link to jit.md: nothing in code


def test_rst_roles_are_read_as_the_myst_role_of_the_same_name_with_a_note_each():
    notes: list[str] = []
    text = (
        "(see :ref:`key-concepts-tracing`), :func:`jax.jit`, :py:class:`jax.Array`, "
        ":ref:`the regression <plain-label>`; `` :ref:`code` `` stays.\n"
        ":class: dropdown"
    )
    settled = settle(text, notes)
    assert settled == (
        "(see key concepts tracing), {func}`jax.jit`, {py:class}`jax.Array`, "
        "{ref}`the regression <plain-label>`; `` :ref:`code` `` stays.\n"
        ":class: dropdown"
    )
    assert notes[:3] == [
        "cell 2: the reStructuredText role :ref:`key-concepts-tracing` became "
        "{ref}`key-concepts-tracing`",
        "cell 2: the reStructuredText role :func:`jax.jit` became {func}`jax.jit`",
        "cell 2: the reStructuredText role :py:class:`jax.Array` became {py:class}`jax.Array`",
    ]
    assert any("key-concepts-tracing` points at a label outside" in note for note in notes)


def test_a_directive_closing_fence_does_not_turn_the_prose_after_it_into_code():
    text = "```{note}\nA note.\n```\n\nSee {ref}`elsewhere` and [the guide](guide.md)."
    settled = settle(text, [])
    assert settled.endswith("See elsewhere and the guide.")


def test_a_longer_fence_holds_a_shorter_one_and_both_are_left_as_written():
    example = "````md\n```{note}\nThen {ref}`inside` and [a](b.md).\n```\n````"
    text = f"{example}\n\nOutside: {{ref}}`outside`."
    settled = settle(text, [])
    assert settled.startswith(example + "\n")
    assert settled.endswith("Outside: outside.")


def test_a_link_in_a_markdown_example_fence_is_left_as_written():
    example = "```md\n[internal reference](render/output/markdown)\n```"
    text = f"```{{note}}\nA note.\n```\n{example}\n\n[there](render/x.md)"
    assert settle(text, []) == f"```{{note}}\nA note.\n```\n{example}\n\nthere"


def test_an_info_string_line_does_not_close_a_fence():
    text = "```md\n```python\n{ref}`kept`\n```\n\n{ref}`gone`"
    assert settle(text, []) == "```md\n```python\n{ref}`kept`\n```\n\ngone"


def test_links_and_labels_in_a_colon_directive_are_settled_and_slash_labels_slugged():
    cells = ["(render/output/images)=\n## Images", ":::{seealso}\n[](render/output/customise)\n:::"]
    labels = NotebookLabels.of(cells)
    notes: list[str] = []
    assert settle_references(cells[0], labels, "cell 1", notes).startswith(
        "(render-output-images)="
    )
    fenced = "```{note}\nThis.\n```\n" + cells[0]
    assert "(render-output-images)=" in settle_references(fenced, labels, "cell 1", notes)
    settled = settle_references(cells[1], labels, "cell 2", notes)
    assert "](" not in settled and "render/output/customise" in settled


def test_a_role_written_in_a_code_span_does_not_hide_the_role_after_it():
    assert settle("Write `{ref}` as in {ref}`elsewhere`.", []) == "Write `{ref}` as in elsewhere."


def test_a_link_to_a_label_whose_text_holds_code_stays_a_link_to_the_anchor():
    # A role's text cannot hold a code span: `{ref}` with it broke the lesson's build.
    notes: list[str] = []
    settled = settle("So it can be [converted to `.ipynb` files](plain-label).", notes)
    assert settled == "So it can be [converted to `.ipynb` files](#plain-label)."
    assert notes == [
        "cell 2: the link [converted to `.ipynb` files](plain-label) became "
        "[converted to `.ipynb` files](#plain-label)"
    ]


def test_a_reference_link_to_no_definition_of_the_notebook_becomes_its_text():
    # MkDocs' autorefs write `[`equinox.partition`][]`; the page would show the brackets.
    cells = [
        "Split with [`equinox.partition`][] and [the docs][docs]; see [kept][Kept Link], "
        "a[i][j] and `x[1][2]`.",
        "[kept link]: https://example.com/kept",
    ]
    notes: list[str] = []
    settled = settle_references(cells[0], NotebookLabels.of(cells), "cell 4", notes)
    assert settled == (
        "Split with `equinox.partition` and the docs; see [kept][Kept Link], a[i][j] and `x[1][2]`."
    )
    assert notes == [
        f"cell 4: the reference link {link} names no link the notebook defines (another "
        "tool's cross-reference): it became its text"
        for link in ("[`equinox.partition`][]", "[the docs][docs]")
    ]


def test_a_label_another_lesson_has_is_renamed_with_its_references(course_folder):
    """Labels are the course's: two tutorials of sister books that both say (bellman)= both
    import, the second's label and its references renamed, and the course builds."""
    from conftest import authoring_example

    course_folder.write(authoring_example())
    for name in ("first", "second"):
        (course_folder.root / f"{name}.md").write_text(
            "---\nkernelspec:\n  name: python3\n  language: python\n---\n\n"
            f"# The {name} cake\n\nWe eat a cake, the {name} way.\n\n(bellman)=\n"
            "## The Bellman equation\n\nIt is recursive.\n\n"
            "```{code-cell} python3\nprint('cake')\n```\n\n"
            "As {ref}`the equation <bellman>` and {ref}`bellman` and [it](#bellman) say.\n"
        )
        done = course_folder.cli("import", f"{name}.md", "--phase", "02")
        assert done.returncode == 0, done.stderr
    second = next((course_folder.root / "content").rglob("*-the-second-cake.md")).read_text()
    assert "(the-second-cake-bellman)=" in second and "(bellman)=" not in second
    assert "{ref}`the equation <the-second-cake-bellman>`" in second
    assert "{ref}`the-second-cake-bellman`" in second and "](#the-second-cake-bellman)" in second
    assert "the label bellman names a place in another lesson" in done.stdout
    first = next((course_folder.root / "content").rglob("*-the-first-cake.md")).read_text()
    assert "(bellman)=" in first
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_references_to_a_labelled_formula_reach_it_and_say_equation():
    """MyST labels display math after its closing `$$`; {eq} to it becomes a {ref} showing
    the label's words in brackets, where a book shows its number, a label with spaces
    slugged on the formula and the reference alike. In code it is no label."""
    cells = [
        "$$\nY = K^a\n$$ (eq:prodfn)\n\n$$\nD = 1\n$$  (budget line)\n\n```text\n$$ (in-code)\n```",
        "By {eq}`eq:prodfn`, {eq}`budget line` and {eq}`in-code`.",
    ]
    labels = NotebookLabels.of(cells)
    notes: list[str] = []
    assert "$$  (budget-line)" in settle_references(cells[0], labels, "cell 1", notes)
    assert settle_references(cells[1], labels, "cell 2", notes) == (
        "By {ref}`(prodfn) <eq:prodfn>`, {ref}`(budget line) <budget-line>` and in code."
    )
    # A formula of another page (QuantEcon's calvo_abreu cites calvo's eq_old6): no role
    # lessons lack, a label this notebook has not.
    assert "cell 2: {eq}`in-code` points at a label outside this notebook" in notes[-1]
    # QuantEcon's lectures refer to forty formulas: the report says so once, at each line.
    said = [note for note in grouped_notes(notes) if "{eq} became {ref}" in note]
    assert said == [
        "cell 2: {eq} became {ref}, which shows the target's title or label in place of its "
        "number: lessons number no equations, figures or tables"
    ]


def test_a_label_a_heading_above_it_took_as_its_anchor_is_renamed_with_its_references():
    """QuantEcon's inequality: '## Top shares', then a formula labelled top-shares. Sphinx
    keeps the two apart; a page has one set of anchors, and the build refused the label."""
    from coursesite.importers.courselabels import distinct_labels, heading_anchors

    text = "## Top shares\n\n(top-shares)=\n$$x$$\n\nSee {ref}`top-shares`.\n\n(own)=\n## Own\n"
    taken = heading_anchors(text)
    assert taken == {"top-shares"}  # a label above its own heading is that heading's
    renamed, notes = distinct_labels(text, taken, "ineq", "a heading of the lesson")
    assert "(ineq-top-shares)=\n$$x$$" in renamed and "{ref}`ineq-top-shares`" in renamed
    assert notes == [
        "the label top-shares names a heading of the lesson already: here it is "
        "ineq-top-shares, and so are this lesson's references to it"
    ]


def test_a_doc_reference_without_text_shows_the_title_of_the_page_beside_it(tmp_path):
    """Sphinx shows {doc}`linear_algebra` as that page's title: a QuantEcon checkout holds
    the other lectures beside the one imported, so the import reads the title there."""
    from coursesite.importers.doctitles import titled_doc_roles
    from coursesite.importers.notebooks import read_notebook

    (tmp_path / "linear_algebra.md").write_text("(la)=\n# Linear Algebra\n\nText.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "svd.ipynb").write_text(
        '{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# 2. The SVD."]}],'
        ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    lecture = tmp_path / "lecture.md"
    lecture.write_text(
        "# Circulant\n\nSee {doc}`linear_algebra`, {doc}`sub/svd`, {doc}`gone`, "
        "{doc}`the basics <linear_algebra>` and `{doc}`linear_algebra``. As QuantEcon "
        "writes it: {doc}`<linear_algebra>` and {doc}`<intro:gone>`.\n\n"
        "```{code-cell} ipython3\nx = 1\n```\n"
    )
    cells = read_notebook(lecture)
    titled_doc_roles(cells, lecture)
    assert (
        cells[0]
        .source.rstrip()
        .endswith(
            "See {doc}`Linear Algebra <linear_algebra>`, {doc}`The SVD <sub/svd>`, {doc}`gone`, "
            "{doc}`the basics <linear_algebra>` and `{doc}`linear_algebra``. As QuantEcon "
            "writes it: {doc}`Linear Algebra <linear_algebra>` and {doc}`<intro:gone>`."
        )
    )
    notes: list[str] = []
    assert (
        settle(cells[0].source, notes)
        .rstrip()
        .endswith(
            "See Linear Algebra, The SVD, gone, the basics and `{doc}`linear_algebra``. As "
            "QuantEcon writes it: Linear Algebra and intro:gone."
        )
    )


def test_an_empty_html_anchor_on_its_line_is_a_target_its_links_reach(course_folder):
    """Notebooks mark link targets with `<a id="x"></a>` above a heading (QuantEcon's
    likelihood lecture, tables of contents): it was shown as two code spans, and `(#end)`
    reached nothing. A target line says the same; one inside a line of prose stays HTML."""
    notebook = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Py"}}
    )
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            "# Anchors\n\nContents: [the setup](#setup), [the end](#end).\n\n"
            "<a id='setup'></a>\n## Setup\n\nWe set up, inline <a id='mid'></a> too."
        ),
        nbformat.v4.new_code_cell("x = 1\nprint(x)"),
        nbformat.v4.new_markdown_cell(
            'A paragraph\n<a name="end"></a>\n\n## The end\n\n```html\n<a id="code"></a>\n```'
        ),
        nbformat.v4.new_code_cell("print(x + 1)"),
    ]
    course_folder.write(authoring_example())
    nbformat.write(notebook, course_folder.root / "anchors.ipynb")
    done = course_folder.cli("import", "anchors.ipynb", "--phase", "01")
    assert done.returncode == 0, done.stderr
    assert "cell 1: the empty anchor <a id='setup'></a> became the MyST target (setup)=" in (
        done.stdout
    )
    text = next((course_folder.root / "content").rglob("*anchors.md")).read_text()
    assert "(setup)=\n## Setup" in text and "A paragraph\n\n(end)=\n" in text
    assert "`<a id='mid'>`" in text  # inside prose: inline HTML, shown as code
    assert '```html\n<a id="code"></a>\n```' in text and "(code)=" not in text
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    page = BeautifulSoup(
        next((course_folder.root / "site").rglob("anchors/index.html")).read_text(),
        "html.parser",
    )
    for name in ("setup", "end"):
        assert page.find(id=name) is not None
        assert page.find("a", href=f"#{name}") is not None
