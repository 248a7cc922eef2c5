"""MyST-NB's glue, settled: what a notebook pasted into its prose, as a lesson can show it.

A MyST-NB notebook stores a value under a key in a code cell (`glue("boot_mean",
means.mean())`) and pastes its output into the prose with a role (`{glue}`, `{glue:text}`)
or a directive (`{glue:figure}`). A lesson pastes nothing, but it has live values
(`{value}`expression``), which show `str()` of an expression after the lesson ran. So a
pasted value the code glues as an expression that nothing assigns again afterwards becomes
that live value (`{glue:text}`key:.2f`` formatted as the notebook would); a figure, a
table, Markdown or math, a key no cell of the notebook glues, or an expression whose names
change later, becomes the key as code: its output is shown under the step that makes it.
Each change is a line of the import report.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

# Values whose text is not what the notebook pasted: figures, tables, rich displays, math.
_RICH = re.compile(
    r"\b(?:fig\w*|Figure|figure|subplots|plt|pyplot|ax|axes|DataFrame|Series|df\w*|Markdown|"
    r"HTML|Image|Latex|Math|SVG|display|sym|sympy|Styler|style)\b"
)
_MAGIC = re.compile(r"^\s*[%!]")


@dataclass(frozen=True)
class Glued:
    """What the notebook's code cells glue: key -> the expression (None: not one a live
    value can show)."""

    keys: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, sources: list[str]) -> Glued:
        """The keys glued in `sources` (the code cells, in order)."""
        statements: list[tuple[int, ast.stmt, str]] = []
        for number, source in enumerate(sources):
            # Magics are not Python: blank them, keeping the line numbers.
            python = "\n".join("" if _MAGIC.match(line) else line for line in source.split("\n"))
            try:
                tree = ast.parse(python)
            except SyntaxError:
                continue
            statements += [(number, statement, python) for statement in tree.body]
        assigned: dict[str, list[tuple[int, int]]] = {}
        rich: set[str] = set()  # names made from a figure, a table, a rich output
        for number, statement, python in statements:
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    assigned.setdefault(node.id, []).append((number, node.lineno))
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
                    made = ast.get_source_segment(python, node.value) or ""
                    if _RICH.search(made):
                        rich.update(_stored_names(node))
        keys: dict[str, str | None] = {}
        for number, statement, python in statements:
            for node in ast.walk(statement):
                if isinstance(node, ast.Call) and (glued := _glued(node)) is not None:
                    key, value = glued
                    keys[key] = _live(value, python, (number, node.lineno), assigned, rich)
        return cls(keys)


def _stored_names(node: ast.AST) -> set[str]:
    return {
        name.id
        for name in ast.walk(node)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)
    }


def _glued(node: ast.Call) -> tuple[str, ast.expr] | None:
    """(key, value) of a call `glue("key", value, ...)` or `myst_nb.glue(...)`."""
    if len(node.args) < 2:
        return None
    name = node.func.id if isinstance(node.func, ast.Name) else ""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else name
    key = node.args[0]
    if name != "glue" or not isinstance(key, ast.Constant) or not isinstance(key.value, str):
        return None
    return key.value, node.args[1]


def _live(
    value: ast.expr,
    python: str,
    where: tuple[int, int],
    assigned: dict[str, list[tuple[int, int]]],
    rich: set[str],
) -> str | None:
    """The expression a live value can show for `value`, glued at `where`; None when it is
    a rich output, or names something assigned again after the glue."""
    expression = " ".join((ast.get_source_segment(python, value) or ast.unparse(value)).split())
    if "`" in expression or _RICH.search(expression):
        return None
    for name in {node.id for node in ast.walk(value) if isinstance(node, ast.Name)}:
        if name in rich or any(place > where for place in assigned.get(name, [])):
            return None
    return expression


def pasted_role(name: str, content: str, glued: Glued, where: str, notes: list[str]) -> str:
    """What a `{glue}`/`{glue:text}`/... role becomes: a live value, or the key as code."""
    role = f"{{{name}}}`{content}`"
    key, _, spec = content.strip().partition(":") if "::" not in content else (content, "", "")
    expression = glued.keys.get(key) if name in ("glue", "glue:any", "glue:text") else None
    if expression is not None:
        live = f"format({expression}, {spec!r})" if spec and name == "glue:text" else expression
        notes.append(
            f"{where}: {role} became the live value {{value}}`{live}`: the page shows that "
            "expression's value after the lesson ran"
        )
        return f"{{value}}`{live}`"
    notes.append(f"{where}: {role} became the code `{key}`: {_not_pasted(key, glued)}")
    return f"`{key}`"


def pasted_block(
    name: str, key: str, glued: Glued, caption: list[str], where: str, notes: list[str]
) -> list[str]:
    """The lines a `{glue}`/`{glue:figure}`/... directive becomes: a live value, or its
    caption (or nothing), the output shown under the step that makes it."""
    expression = glued.keys.get(key) if name in ("glue", "glue:any", "glue:figure") else None
    if expression is not None:
        notes.append(
            f"{where}: the {{{name}}} {key} became the live value {{value}}`{expression}`: "
            "the page shows that expression's value after the lesson ran"
        )
        return [f"{{value}}`{expression}`", "", *caption]
    kept = "became its caption, a paragraph" if caption else "was left out"
    notes.append(f"{where}: the {{{name}}} {key} {kept}: {_not_pasted(key, glued)}")
    return caption


def _not_pasted(key: str, glued: Glued) -> str:
    if key in glued.keys:
        return (
            f"a lesson cannot paste the output glued as '{key}' into prose (a figure, a "
            "table, rich output, or a value whose names change later); a step shows its "
            "figures and its last line's value under it: end the step that makes it with "
            "it, draw it in a {figure} block, or write {value}`expression` for a value"
        )
    return f"no code cell of this notebook glues '{key}': write what it showed into the prose"
