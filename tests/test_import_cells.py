"""A notebook's cells keep their meaning in the lesson: MyST-NB's cell tags in the underscore
spelling (`remove_cell`) as in the hyphenated one, and a setext heading as its title."""

from __future__ import annotations

import json
from pathlib import Path

from coursesite.importers.directives import settle_admonitions
from coursesite.importers.lessonimport import convert, notebook_title
from coursesite.importers.notebooks import read_notebook


def code_cell(source: str, *tags: str) -> dict:
    return {
        "cell_type": "code",
        "metadata": {"tags": list(tags)},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def test_underscore_tags_mean_what_the_hyphenated_ones_do(tmp_path: Path):
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Tags\n\nSome prose."},
            {
                **markdown_cell("For the documentation build only."),
                "metadata": {"tags": ["remove_cell"]},
            },
            code_cell("import math", "remove_cell"),  # later cells need what it defines
            code_cell("print('folded')", "hide_input", "hide_output"),
            code_cell("print('whole')", "hide_cell"),
            code_cell("print('input')", "remove_input"),
            code_cell("raise ValueError('no')", "raises_exception"),
            code_cell("print('never run')", "skip_execution"),
            markdown_cell("```{admonition} Toggled\n:class: toggle margin\nHidden.\n```"),
        ],
    }
    path = tmp_path / "tags.ipynb"
    path.write_text(json.dumps(notebook))
    imported = convert(read_notebook(path), "Tags", "tags.ipynb", "tags.expected.yaml")
    assert "documentation build only" not in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nimport math" in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nprint('folded')" in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nprint('whole')" in imported.text
    assert ":tags: [hide-input]\n```python\nprint('input')" in imported.text
    assert ":raises: Exception\n```python\nraise ValueError" in imported.text
    assert "```python norun\nprint('never run')" in imported.text
    assert any("tagged remove-cell" in note for note in imported.notes)
    assert "```{admonition} Toggled\n:class: toggle\nHidden.\n```" in imported.text


def markdown_cell(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def test_a_setext_heading_is_the_title_like_an_atx_one(tmp_path: Path):
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            markdown_cell(
                "Hiding cell\ncontents\n====\n\nSome prose.\n\n# Hiding code cells\n\nMore."
            ),
            markdown_cell("A section\n---------\n\nText.\n\n# Later\n\n---\n\nAfter a rule."),
            code_cell("print(1)"),
        ],
    }
    path = tmp_path / "setext.ipynb"
    path.write_text(json.dumps(notebook))
    cells = read_notebook(path)
    title = notebook_title(cells, "fallback")
    assert title == "Hiding cell contents"
    text = convert(cells, title, "setext.ipynb", "setext.expected.yaml").text
    body = text.split("# Understand", 1)[1]
    assert "contents" not in body and "====" not in body
    assert "## Hiding code cells" in text and "### A section" in text
    assert "## Later\n\n---\n\nAfter a rule." in text  # a rule under an ATX heading stays


def test_admonition_options_and_classes_lessons_lack_are_dropped_with_a_note_each():
    notes: list[str] = []
    text = (
        "````{admonition} Hidden with the toggle class\n:class: toggle margin tip\n"
        ":name: my-label\nThe body.\n````\n\n"
        ":::{note}\n:class: full-width\nA note.\n:::\n\n"
        "```{code-cell}\n:class: kept\n```\n\n"
        "````markdown\n```{tip} An example\n:class: margin\n```\n````"
    )
    assert settle_admonitions(text, "cell 3", notes) == (
        "````{admonition} Hidden with the toggle class\n:class: toggle tip\nThe body.\n````\n\n"
        ":::{note}\nA note.\n:::\n\n"
        "```{code-cell}\n:class: kept\n```\n\n"
        "````markdown\n```{tip} An example\n:class: margin\n```\n````"
    )
    assert notes == [
        "cell 3: the class 'margin' of {admonition} is not one lessons show: it was dropped",
        "cell 3: the option :name: of {admonition} is not one lessons take: it was dropped",
        "cell 3: the class 'full-width' of {note} is not one lessons show: it was dropped",
    ]
