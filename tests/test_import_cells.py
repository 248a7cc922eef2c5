"""A notebook's cell tags keep their meaning in the lesson, in MyST-NB's underscore spelling
(`remove_cell`) as in its hyphenated one."""

from __future__ import annotations

import json
from pathlib import Path

from coursesite.importers.lessonimport import convert
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
            code_cell("print('removed')", "remove_cell"),
            code_cell("print('folded')", "hide_input", "hide_output"),
            code_cell("print('whole')", "hide_cell"),
            code_cell("print('input')", "remove_input"),
            code_cell("raise ValueError('no')", "raises_exception"),
            code_cell("print('never run')", "skip_execution"),
        ],
    }
    path = tmp_path / "tags.ipynb"
    path.write_text(json.dumps(notebook))
    imported = convert(read_notebook(path), "Tags", "tags.ipynb", "tags.expected.yaml")
    assert "removed" not in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nprint('folded')" in imported.text
    assert ":tags: [hide-input, hide-output]\n```python\nprint('whole')" in imported.text
    assert ":tags: [hide-input]\n```python\nprint('input')" in imported.text
    assert ":raises: Exception\n```python\nraise ValueError" in imported.text
    assert "```python norun\nprint('never run')" in imported.text
    assert any("tagged remove-cell" in note for note in imported.notes)
