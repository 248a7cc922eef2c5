"""Math text in a figure's labels that the installed matplotlib cannot parse.

A label, title or legend entry with `$...$` is drawn by matplotlib's mathtext, which
refuses TeX it cannot read (`$m - p}$`, a brace too many) when the figure is drawn: every
figure with it fails, at a line (`plt.tight_layout()`, `savefig`) far from the label. The
notebook may never have run so, or an older matplotlib let it pass. The import asks the
installed matplotlib's parser of each such string the code passes to a call that draws
text, and names each it refuses at its lesson line, before any build.
"""

from __future__ import annotations

import ast
import functools
import shutil
from collections.abc import Callable, Iterator

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.steplines import code_tree, lesson_line

# Calls whose string arguments matplotlib draws as text (the last part of their name).
_TEXT_CALLS = frozenset(
    "set_xlabel set_ylabel set_zlabel set_title xlabel ylabel zlabel title suptitle "
    "supxlabel supylabel text figtext annotate set_text legend set_xticklabels "
    "set_yticklabels".split()
)
# Keywords of any call that matplotlib draws as text (`plot(x, label=...)`, `ax.set(...)`).
_TEXT_KEYWORDS = frozenset("label labels title xlabel ylabel zlabel".split())


def mathtext_notes(lesson: ImportedLesson) -> list[str]:
    """A report line for each string of math text the steps draw that the installed
    matplotlib cannot parse, at its lesson line. None where the lesson sets its text with
    LaTeX and `latex` is installed (matplotlibtex.py leaves usetex on): TeX reads it."""
    if any("usetex" in code for code in lesson.code) and shutil.which("latex"):
        return []
    notes = []
    for number, where, code in lesson.steps:
        tree = code_tree(code)
        for node in _drawn_strings(tree) if tree else ():
            refusal = _refusal()(str(node.value))
            if refusal:
                line = lesson_line(lesson.text, number, node.lineno - 1)
                notes.append(
                    f"{where}, lesson line {line}: step {number} draws the text "
                    f"{node.value!r}, whose math matplotlib cannot parse ({refusal}): the "
                    "figure fails to draw; fix its TeX, or write it without $...$"
                )
    return notes


def _drawn_strings(tree: ast.Module) -> Iterator[ast.Constant]:
    """The string constants of `tree` given to a call that draws them as text."""
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        function = call.func
        name = function.attr if isinstance(function, ast.Attribute) else ""
        name = function.id if isinstance(function, ast.Name) else name
        given = list(call.args) if name in _TEXT_CALLS else []
        given += [k.value for k in call.keywords if k.arg in _TEXT_KEYWORDS]
        for value in given:
            items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
            yield from (
                item
                for item in items
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            )


@functools.cache
def _refusal() -> Callable[[str], str]:
    """What the installed matplotlib's mathtext says of a string it cannot parse ("" for
    one it can, or one that is no math text); a function saying nothing where matplotlib is
    not installed. matplotlib is imported only when a lesson draws a string."""
    try:
        from matplotlib import cbook
        from matplotlib.mathtext import MathTextParser
    except ImportError:
        return lambda text: ""
    parser = MathTextParser("path")

    def refusal(text: str) -> str:
        if not cbook.is_math_text(text):
            return ""
        try:
            parser.parse(text, dpi=72)
        except ValueError as refused:
            return str(refused).strip().splitlines()[-1]
        return ""

    return refusal
