"""What an imported lesson is labelled with reads as prose: no MyST machinery or badge in
its summary, no "Step N", and a title's inline code is code on the page and text where no
markup may go."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from conftest import authoring_example
from coursesite.importers.titles import licence_notice, step_title, summary_of
from coursesite.markup.markdown import plain_text


def test_a_summary_skips_labels_comments_and_badges():
    understand = [
        "(pseudorandom-numbers)=\n% a MyST comment\n<!-- an HTML comment -->",
        "[![Open in Colab](https://colab.example/badge.svg)](https://colab.example/nb)",
        "Random numbers in JAX are explicit. Every key is used once.",
    ]
    assert summary_of(understand) == "Random numbers in JAX are explicit."


def test_a_summary_skips_a_line_of_links_and_keeps_roles_as_words():
    understand = ["[Open in Colab](https://colab.example/nb)", "Use {func}`jax.jit` to compile."]
    assert summary_of(understand) == "Use {func}`jax.jit` to compile."
    assert plain_text(summary_of(understand)) == "Use jax.jit to compile."
    assert step_title("{func}`~jax.vmap` also maps over one axis.", "f()") == (
        "vmap also maps over one axis"
    )


def test_step_titles_come_from_the_prose_leading_in_or_from_the_code():
    assert step_title("Let's first check some cases:", "f(1)") == "Let's first check some cases"
    long = "We now compile the function and time it against the plain Python version."
    assert step_title(long, "g()") == "We now compile the function and time it…"
    assert step_title("", "import jax\ndef f(x):\n    return x") == "Define f"
    assert step_title("", "import jax\nkey = jax.random.key(0)") == "Compute key"
    assert step_title("", "%timeit f(x)\ndisplay(key)") == "Show key"
    assert step_title("", "import jax, numpy as np") == "Import jax, numpy"
    assert step_title("(label)=", "pass") == "Run the code"
    # An indented block is code (nbconvert's Markdown keeps the last cell's output so):
    # the prose before it titles the step, never its text.
    output = "Flattening gives:\n\n    ['bias'].value: [0. 0.]\n    ['kernel'].value: [[0.1]]"
    assert step_title(output, "pass") == "Flattening gives"
    assert summary_of([output, "A sentence that says what it is."]) == (
        "A sentence that says what it is."
    )


def test_a_title_cut_short_keeps_its_code_and_math_whole():
    prose = (
        "Consider a function $f: \\mathbb{C} \\to \\mathbb{C}$ that `jax.grad` differentiates well."
    )
    assert step_title(prose, "f()") == (
        "Consider a function $f: \\mathbb{C} \\to \\mathbb{C}$ that `jax.grad` differentiates well"
    )


def test_plain_text_keeps_the_words_of_inline_markdown():
    assert plain_text("Advanced `Dataset` usage") == "Advanced Dataset usage"
    assert plain_text("A **bold** [link](https://example.com) & more") == "A bold link & more"


def test_a_title_with_inline_code_is_code_on_the_page_and_text_elsewhere(course_folder):
    from conftest import RecordingProgress
    from coursesite.pipeline import build

    text = authoring_example().replace(
        "title: Count what a batch holds", "title: Count what a `Batch` holds"
    )
    course_folder.write(text)
    build(course_folder.options(), RecordingProgress())
    site = course_folder.root / "site"
    page = BeautifulSoup(next(site.rglob("count-batches/index.html")).read_text(), "html.parser")
    assert page.select_one("h1 code").get_text() == "Batch"
    assert page.title.get_text() == "01.01 Count what a Batch holds · Test course"
    assert "`" not in page.select_one(".sidebar").get_text()
    assert page.select_one("article")["data-lesson-title"] == "Count what a Batch holds"
    home = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    assert "`" not in home.get_text()


def test_a_long_summary_is_cut_after_a_whole_word_never_inside_one_or_its_code():
    sentence = (
        "JAX's random number generation differs from NumPy's in important ways, because "
        "NumPy's global state makes it hard to produce sequences of numbers that are "
        "reproducible across `jax.jit`, `jax.vmap` and `jax.pmap` calls."
    )
    summary = summary_of([sentence])
    assert len(summary) <= 160 and summary.endswith("…") and not summary.endswith(" …")
    kept = summary[:-1]
    assert sentence.startswith(kept) and sentence[len(kept)] in " ,"
    spanned = summary_of(["word " * 30 + "then `a code span that is long` and more words."])
    assert spanned == ("word " * 30).strip() + " then…"  # its code span is not cut in half
    assert summary_of(["A short one. And more."]) == "A short one."


def _cells(*sources: str) -> list:
    from coursesite.importers.notebooks import Cell

    return [
        Cell(
            "code" if source.startswith("!code ") else "markdown",
            source.removeprefix("!code "),
            f"cell {number}",
        )
        for number, source in enumerate(sources, start=1)
    ]


def test_a_title_is_the_first_heading_of_the_highest_level_before_any_prose():
    from coursesite.importers.lessonimport import convert, notebook_title

    cells = _cells(
        "(checkpointing)=\n## Gradient checkpointing with `jax.checkpoint`\n\n% a comment",
        "In this tutorial, you will learn how to control saved values.",
        "### Details\n\nMore.",
        "!code print(1)",
    )
    title = notebook_title(cells, "gradient checkpointing")
    assert title == "Gradient checkpointing with `jax.checkpoint`"
    imported = convert(cells, title, "nb.md", "nb.expected.yaml")
    assert "## Gradient checkpointing" not in imported.text and "## Details" in imported.text
    assert any("cell 1: the title, 'Gradient" in n and "level 2" in n for n in imported.notes)
    # Prose before the first heading: no heading is a title, and the report says so.
    untitled = _cells("Some prose first.", "## A section", "!code print(1)")
    assert notebook_title(untitled, "basic stderr") == "Basic stderr"
    assert notebook_title(_cells("# Quickstart with Optax.", "!code x = 1"), "q") == (
        "Quickstart with Optax"
    )


def test_a_licence_notice_before_the_title_is_kept_but_never_the_title_or_summary():
    from coursesite.importers.lessonimport import convert, notebook_title

    apache = (
        'Licensed under the Apache License, Version 2.0 (the "License");\n'
        "you may not use this file except in compliance with the License."
    )
    google = _cells(
        f"Copyright 2023 Google LLC\n\n{apache}",
        "# ResNet on CIFAR with Flax.\n\nIn this notebook, we train a residual network.",
        "!code print(1)",
    )
    title = notebook_title(google, "resnet flax")
    assert title == "ResNet on CIFAR with Flax"
    imported = convert(google, title, "nb.md", "nb.expected.yaml")
    assert "summary: In this notebook, we train a residual network.\n" in imported.text
    assert "Copyright 2023 Google LLC" in imported.text and apache in imported.text
    assert not any("no heading" in note for note in imported.notes)
    # TensorFlow's: a small heading of copyright over a cell of licence comments.
    tensorflow = _cells(
        "##### Copyright 2019 The TensorFlow Authors.",
        f"!code #@title {apache.replace(chr(10), chr(10) + '# ')}",
        "# Load images\n\nThis tutorial shows how to load images.",
        "!code print(1)",
    )
    assert notebook_title(tensorflow, "images") == "Load images"
    mit = _cells("© 2020 Ada\n\nLicensed under the MIT License.", "## Sorting", "Prose.")
    assert notebook_title(mit, "x") == "Sorting"
    # Prose that only mentions a copyright is prose: no title is taken from after it.
    assert notebook_title(_cells("The copyright law is old.", "# A"), "x") == "X"
    assert not licence_notice(_cells("!code # Licensed under the MIT License\nx = 1")[0])
    assert licence_notice(_cells("!code # Licensed under the MIT License")[0])


def test_a_notebook_without_prose_gets_a_summary_never_a_todo():
    from coursesite.importers.lessonimport import convert

    bare = convert(_cells("!code print(1)"), "Basic stderr", "nb.ipynb", "nb.expected.yaml")
    assert "summary: Basic stderr.\n" in bare.text and "TODO: one line" not in bare.text
    assert any("no heading" in note and "'Basic stderr'" in note for note in bare.notes)
    assert any("the summary repeats the title" in note for note in bare.notes)
    later = convert(
        _cells("!code print(1)", "[^1]: A note.", "Here:", "Streams are merged in order here."),
        "Merge streams",
        "nb.ipynb",
        "nb.expected.yaml",
    )
    assert "summary: Streams are merged in order here.\n" in later.text


def test_a_summary_prefers_a_sentence_that_says_something():
    assert summary_of(["Let's see:", "## Setup\nGrain loads data in order."]) == (
        "Grain loads data in order."
    )
    assert summary_of(["Short one."]) == "Short one."
    assert step_title("", "arr.sharding") == "Show arr.sharding"
    assert step_title("", "with ctx():\n    y = f(1)") == "Compute y"
    modules = "import pprint, dateutil.parser, grain, numpy, datasets, transformers"
    assert step_title("", modules) == "Import pprint, dateutil.parser, grain, numpy, datasets…"


def test_a_heading_as_a_title_loses_its_numbering_links_and_closing_period():
    from coursesite.importers.titles import heading_title

    assert heading_title("1. Automatic parallelism via `jit`") == "Automatic parallelism via `jit`"
    assert heading_title("Step 3: Use [Optax](https://optax.example/).") == "Use Optax"
    assert heading_title("2024 results") == "2024 results"
    assert heading_title("Wait...") == "Wait..."


def test_a_summary_left_to_write_is_a_warning_and_never_on_a_page(course_folder):
    text = authoring_example()
    text = re.sub(r"(?m)^summary: .*$", "summary: 'TODO: one line on what it builds'", text)
    course_folder.write(text)
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    assert "placeholder left to fill in: summary: 'TODO: one line" in built.stderr
    site = course_folder.root / "site"
    lesson = next(site.rglob("count-batches/index.html"))
    shown = [lesson, lesson.parent.parent / "index.html", site / "index.html"]
    shown += [lesson.with_name("lesson.md"), lesson.with_name("lesson.ipynb")]
    for page in shown:
        assert "TODO: one line" not in page.read_text(), page
    assert not BeautifulSoup(lesson.read_text(), "html.parser").select("p.summary")
    assert course_folder.cli("check").returncode == 1


def test_a_reference_style_link_reads_as_its_text_where_shown_alone():
    understand = [
        "MyST-NB caches outputs with [jupyter-cache] and [the docs][docs]; "
        "values stay in [0, 1] and `x[0]` is code.\n\n[jupyter-cache]: https://example.com"
    ]
    assert summary_of(understand) == (
        "MyST-NB caches outputs with jupyter-cache and the docs; "
        "values stay in [0, 1] and `x[0]` is code."
    )


def test_a_numbered_list_leading_into_a_step_titles_it_by_its_first_item():
    prose = "Here, we:\n\n1. Set up a model. In this case, an MLP.\n2. Make a step."
    assert step_title(prose, "main()") == "Set up a model"
    # A list is no summary, and a bulleted one (prerequisites, say) titles nothing.
    assert summary_of([prose, "Training only the last layer keeps the rest fixed."]) == (
        "Training only the last layer keeps the rest fixed."
    )
    assert step_title("Needs:\n\n- numpy\n- jax", "main()") == "Needs"


def test_an_introduction_after_the_opening_imports_is_still_understand():
    from coursesite.importers.lessonimport import convert

    cells = _cells(
        "# Optimistic descent",
        "!code import jax\nimport optax",
        "Consider a min-max problem.\n\nwhere $f$ is convex-concave.",
        "Define the objective.",
        "!code def f(x, y):\n    return x * y",
        "It has a saddle point.",
        "!code print(f(1, 2))",
    )
    text = convert(cells, "Optimistic descent", "nb.ipynb", "nb.expected.yaml").text
    understand, build_run = text.split("# Build & Run")
    assert "Consider a min-max problem." in understand and "convex-concave" in understand
    # The part that leads into the next step stays above it.
    assert "Define the objective." in build_run and "It has a saddle point." in build_run
    assert build_run.index("import jax") < build_run.index("Define the objective.")
    assert build_run.index("import jax") < build_run.index("def f(x, y)")
    assert ":::{step} 2. Define the objective" in build_run
    assert "summary: Consider a min-max problem.\n" in text
    assert summary_of(
        ["Consider the problem:\n\n$$f$$\n\nwhere $f$ is convex.", "It has a saddle."]
    ) == ("It has a saddle.")
    # Imports after the introduction began change nothing: the prose after them runs on.
    later = convert(
        _cells("Intro first.", "!code import jax", "Then this.", "!code print(1)"),
        "Later",
        "nb.ipynb",
        "nb.expected.yaml",
    ).text
    assert "Then this." in later.split("# Build & Run")[1]


def test_a_summary_keeps_a_links_text_and_is_never_cut_inside_it():
    sentence = (
        "In this guide, you will learn how Flax uses [JAX's explicit pseudorandom number "
        "generator (PRNG) keys](https://jax.readthedocs.io/en/latest/random-numbers.html) to "
        "make random numbers for initialisation, dropout and sampling, and how they split."
    )
    summary = summary_of([sentence])
    assert summary.startswith("In this guide, you will learn how Flax uses JAX's explicit")
    assert "[" not in summary and "](" not in summary and summary.endswith("…")
    assert len(summary) <= 160


def test_a_role_in_a_heading_is_its_words_in_the_title_and_the_slug():
    from coursesite.importers.lessonimport import lesson_slug
    from coursesite.importers.titles import heading_title

    title = heading_title("{index}`Matplotlib <single: Matplotlib>`")
    assert title == "Matplotlib" and lesson_slug(title) == "matplotlib"
    assert heading_title("Using {ref}`the model <model-label>` well") == "Using the model well"
    assert heading_title("{index}`NumPy`") == "NumPy"
    assert heading_title("Roots of {math}`x^2`") == "Roots of {math}`x^2`"


def test_code_above_the_title_is_setup_and_the_introduction_below_it_is_understand():
    """nx-guides' PageRank opens with a drawing helper, then its title and introduction:
    the helper is step 1, and the introduction is what Understand says, not Build & Run's
    text after it. The section that leads into the next step stays above it."""
    from coursesite.importers.lessonimport import convert

    cells = _cells(
        "!code def draw(graph):\n    return graph",
        "!code WIDTH = 3",
        "# PageRank\n\nPageRank ranks pages by the links to them.",
        "## Introduction\n\nA random surfer follows links.",
        "!code import math",  # imports: no section leads into them
        "Rank a small graph:",
        "!code print(draw(2) * WIDTH)",
    )
    text = convert(cells, "PageRank", "nb.ipynb", "nb.expected.yaml").text
    understand, build_run = text.split("# Build & Run")
    assert "PageRank ranks pages" in understand and "random surfer" in understand
    assert "Rank a small graph:" in build_run and "random surfer" not in build_run
    assert build_run.index("def draw") < build_run.index("WIDTH = 3") < build_run.index("Rank")
    assert "summary: PageRank ranks pages by the links to them.\n" in text


def test_a_heading_alone_in_its_cell_before_more_prose_is_kept():
    """A Markdown cell that ends with a heading holds it for the code below, as its step's
    title; when Markdown came next instead, the heading vanished without a word (QuantEcon's
    eigen_I: a mistyped front matter read as a heading, then the lecture's title)."""
    from coursesite.importers.lessonimport import convert, notebook_title
    from coursesite.importers.notebookcells import Cell

    cells = [
        Cell("markdown", "## Part one", "line 1"),
        Cell("markdown", "# Real title\n\nIntro prose here.", "line 3"),
        Cell("code", "x = 1", "line 6"),
        Cell("markdown", "More prose.\n\n## Part two", "line 9"),
        Cell("markdown", "Said between.", "line 12"),
        Cell("code", "y = 2", "line 14"),
    ]
    imported = convert(cells, notebook_title(cells, "nb"), "nb.md", "nb.expected.yaml")
    assert "## Part one\n\nIntro prose here." in imported.text
    assert "## Part two\n\nSaid between.\n\n:::{step} 2." in imported.text


def test_a_setext_heading_before_the_title_is_no_prose_that_hides_it():
    """`Part I` over `---` is a heading, which paragraphs() reads line by line as prose: a
    cell of it alone made the notebook's real title heading 'after its prose'."""
    from coursesite.importers.lessonimport import notebook_title
    from coursesite.importers.notebookcells import Cell

    cells = [
        Cell("markdown", "Part I\n---", "line 1"),
        Cell("markdown", "My Title\n========\n\nSome prose.", "line 3"),
        Cell("code", "x = 1", "line 6"),
    ]
    assert notebook_title(cells, "nb") == "My Title"
    cells[0] = Cell("markdown", "Part I\n---\n\nProse before the title.", "line 1")
    assert notebook_title(cells, "nb") == "Nb"
