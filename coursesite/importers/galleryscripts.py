"""Read an example script in sphinx-gallery's format into cells, as scikit-learn's and
Matplotlib's galleries and tutorials are written: the module docstring is the title and
introduction; a line `# %%` (or a line of 20 or more `#`) followed by comment lines starts
a block of prose, which the comments hold; everything else is code. The prose is
reStructuredText, written as MyST (rstmyst) so the import reads it as a notebook's; each
cell is named by the script line it starts on.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from dataclasses import dataclass, field
from functools import partial

from coursesite.importers.rstmyst import rst_to_myst

_SEPARATOR = re.compile(r"^(#{20,}.*|# ?%%.*)$")
_COMMENT = re.compile(r"^#(?: |$)")
# sphinx-gallery's settings of a script (`# sphinx_gallery_thumbnail_number = 2`).
_SETTING = re.compile(r"^\s*#\s*sphinx_gallery_\w+")
# The one setting that is the code's meaning, not the page's: the block raises, as the
# `raises-exception` tag says of a notebook cell.
_EXPECTED_ERROR = re.compile(r"^\s*#\s*sphinx_gallery_expected_error\b")
# Lines sphinx-gallery runs without showing them; at the top level they can be a cell.
_IGNORE = re.compile(r"^#\s*sphinx_gallery_(start|end)_ignore\b")
# An RST section title: a line of text over a line of one punctuation character.
_RST_TITLE = re.compile(r"^\S.*\n([=\-~^*#+\"'`:.])\1{2,}\s*$", re.MULTILINE)
_BREAK = "coursesitecellbreak"


@dataclass
class _Block:
    kind: str  # "markdown" or "code"
    text: str
    line: int  # the script line it starts on
    raises: bool = False  # a code block marked `# sphinx_gallery_expected_error`
    hidden: bool = False  # code between `# sphinx_gallery_start_ignore` and its end


@dataclass
class _Code:
    """The block of code being read: its lines, the script line it starts at, its marks."""

    start: int
    lines: list[str] = field(default_factory=list)
    raises: bool = False
    hidden: bool = False

    def block(self) -> _Block:
        """The block, named by its first line that holds anything."""
        blank = next((n for n, text in enumerate(self.lines) if text.strip()), 0)
        text = "\n".join(self.lines).strip("\n")
        return _Block("code", text, self.start + blank, self.raises, self.hidden)


def is_gallery_script(text: str) -> bool:
    """Whether `text` is a sphinx-gallery example: a module docstring with a
    reStructuredText title, and no jupytext `# %% [markdown]` cells."""
    if re.search(r"^# ?%% \[markdown\]", text, re.MULTILINE):
        return False
    docstring = _docstring(text)
    return docstring is not None and bool(_RST_TITLE.search(docstring[0]))


def gallery_notebook(text: str) -> tuple[dict, list[str], list[str]]:
    """The script (one `is_gallery_script` accepts) as an nbformat 4 notebook, where each
    cell is ("line 12"), and notes on what it left out or docutils could not read."""
    blocks, notes = _blocks(text)
    notes += _prose_as_myst([block for block in blocks if block.kind == "markdown"])
    cells = [_cell(block) for block in blocks if block.text.strip()]
    places = [f"line {block.line}" for block in blocks if block.text.strip()]
    return {"nbformat": 4, "metadata": {}, "cells": cells}, places, notes


def _prose_as_myst(prose: list[_Block]) -> list[str]:
    """Write each block of prose as MyST, converted as one document (the script is one
    page, whose heading levels run through all its blocks); what docutils said of it."""
    joined, starts = _joined(prose)
    myst, problems = rst_to_myst(joined, place=lambda line: _script_line(line, starts))
    converted = re.split(rf"\n*^{_BREAK}\d+$\n*", myst, flags=re.MULTILINE)
    if len(converted) != len(prose) + 1:  # a construct ran over a mark: one block at a time
        problems = []
        for block in prose:
            block.text, said = rst_to_myst(block.text, place=partial(_block_line, block.line))
            problems += said
        return problems
    for block, text in zip(prose, converted, strict=False):
        block.text = text.strip()
    return problems


@functools.lru_cache(maxsize=4)  # asked by is_gallery_script, then by _blocks: parsed once
def _docstring(text: str) -> tuple[str, int, int, int] | None:
    """The module docstring, cleaned, with the script lines of its text's start, its
    closing quotes and its opening quotes; None without one (or when the script does not
    parse)."""
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    first = module.body[0] if module.body else None
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return None
    value = first.value.value
    leading = len(value) - len(value.lstrip("\n"))
    end = first.end_lineno or first.lineno
    return inspect.cleandoc(value), first.lineno + leading, end, first.lineno


def _blocks(text: str) -> tuple[list[_Block], list[str]]:
    lines = text.split("\n")
    docstring = _docstring(text)
    blocks, notes = [], []
    start = 0
    if docstring is not None:
        blocks.append(_Block("markdown", docstring[0], docstring[1]))
        start = docstring[2]
        before = [n for n, line in enumerate(lines[: docstring[3] - 1], 1) if line.strip()]
        if before:  # a licence, an encoding line: comments, as the docstring comes first
            notes.append(
                f"line {before[0]}: the comments above the docstring, which sphinx-gallery "
                "does not show either, are left out"
            )
    code = _Code(start + 1)
    number = start
    while number < len(lines):
        line = lines[number]
        if _SEPARATOR.match(line):
            blocks.append(code.block())
            prose_line, number = number + 2, number + 1
            prose = []
            while number < len(lines) and _COMMENT.match(lines[number]):
                prose.append(lines[number][2:])
                number += 1
            blocks.append(_Block("markdown", "\n".join(prose), prose_line))
            code = _Code(number + 1, hidden=code.hidden)
            continue
        if ignore := _IGNORE.match(line):
            blocks.append(code.block())
            code = _Code(number + 2, hidden=ignore.group(1) == "start")
            if code.hidden:
                notes.append(
                    f"line {number + 1}: the lines sphinx-gallery runs without showing them "
                    "(to sphinx_gallery_end_ignore) are a step of their own whose code the page "
                    "folds (hide-input): readers see every line main.py runs"
                )
        elif _EXPECTED_ERROR.match(line):
            code.raises = True
            notes.append(
                f"line {number + 1}: {line.strip()} is sphinx-gallery's raises-exception tag: the "
                "block's step declares that it raises"
            )
        elif _SETTING.match(line):
            notes.append(f"line {number + 1}: {line.strip()} {_left_out(line)}")
            blank_around = code.lines and not code.lines[-1].strip() and number + 1 < len(lines)
            if blank_around and not lines[number + 1].strip():
                number += 1  # one blank line where the setting stood between two, not two
        else:
            code.lines.append(line)
        number += 1
    blocks.append(code.block())
    return [block for block in blocks if block.text.strip()], notes


def _left_out(setting: str) -> str:
    if "_ignore" in setting:  # indented: inside a function, the lines cannot be a cell
        return "marks lines sphinx-gallery does not show; inside a block of code they stay shown"
    return "is a setting of sphinx-gallery's page: left out"


def _joined(prose: list[_Block]) -> tuple[str, list[tuple[int, int]]]:
    """The blocks of prose as one reStructuredText document, each followed by a paragraph
    that marks where it ends, and where each block starts, in the document and in the
    script."""
    parts, starts, line = [], [], 1
    for number, block in enumerate(prose):
        starts.append((line, block.line))
        part = f"{block.text}\n\n{_BREAK}{number}\n\n"
        parts.append(part)
        line += part.count("\n")
    return "".join(parts), starts


def _block_line(start: int, line: int) -> str:
    return f"line {start + line - 1}"


def _script_line(line: int, starts: list[tuple[int, int]]) -> str:
    """The script line of line `line` of the joined document."""
    document_start, script_start = max(
        (start for start in starts if start[0] <= line), default=(1, 1)
    )
    return f"line {script_start + line - document_start}"


def _cell(block: _Block) -> dict:
    cell: dict = {"cell_type": block.kind, "source": block.text, "metadata": {}}
    tags = ["raises-exception"] * block.raises + ["hide-input"] * block.hidden
    if tags:
        cell["metadata"]["tags"] = tags
    if block.kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell
