"""Calls of a library written anew as its installed version takes them: the machinery the
migrations of pandas (pandasmigration) and Matplotlib (matplotlibmigration) share.

A migration applies to a lesson that imports its library, or a library installed with a
dependency on it (statsmodels hands out pandas' DataFrames). A rewrite knows the call (or
indexing, pandas' `.ix[...]`) it rewrites (by method name, on any object: only calls no
other library of a notebook makes are rewritten), whether the installed library removed
the old form, and the new text. Each one-line call of a step that a rewrite writes anew is written
in the step's code and the lesson's text (renames.rename_in_lesson), and the migration
says so in the report.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from coursesite.importers.importedlesson import ImportedLesson
from coursesite.importers.installedlibrary import installed_library
from coursesite.importers.renames import Rename, rename_in_lesson
from coursesite.importers.steplines import code_tree, imported_packages


@dataclass(frozen=True)
class CallRewrite:
    since: str  # "(deprecated in 2.1)"
    removed: Callable[[ModuleType], bool]  # whether the installed library lacks the old call
    rewrite: Callable[[str, Any], str | None]  # the call as the library takes it now
    # What the new form does, said in the report: "which does the same", or how it differs.
    same: str = "which does the same"
    # What it rewrites: a call `X.f(...)`, an indexing `X.ix[...]` (ast.Subscript), a
    # statement `del X.lines[0]` (ast.Delete), or an assignment `X.a = Y.a` (ast.Assign).
    of: type[ast.AST] = ast.Call
    # Whether a call of a bare name (`OneHotEncoder(...)`, imported from the library) is
    # one too: the rewrite itself then tells the library's names from others.
    names_too: bool = False
    # Whether a call over several lines is one too, for a rewrite that changes one of its
    # lines and keeps the others as written (a frequency string): that line is renamed.
    lines_too: bool = False


@dataclass(frozen=True)
class Rewritten:
    where: str  # the cell
    step: int
    rename: Rename
    since: str
    same: str
    within: str = ""  # for a line of a call over several: the call (`pd.read_table(...)`)


def rewrite_notes(
    lesson: ImportedLesson,
    package: str,
    rewrites: list[CallRewrite],
    named: str,
    load: Callable[[], ModuleType | None] | None = None,
) -> list[str]:
    """rewrite_calls for a lesson that uses `package`, against the installed one (as
    `load` loads it), said in the report a line a step and call (`named`: "pandas 3")."""
    if not _uses_objects_of(imported_packages(lesson.steps), package):
        return []
    library = load() if load else installed_library(package)
    if library is None:
        return []
    return [
        f"{done.where}: step {done.step} calls {done.rename.old}, which {named} no longer "
        f"takes {done.since}: the step now calls {done.rename.new}, {done.same}"
        if not done.within
        else f"{done.where}: step {done.step} passes {done.rename.old} in its call of "
        f"{done.within}, which {named} no longer takes {done.since}: the step now passes "
        f"{done.rename.new}, {done.same}"
        for done in rewrite_calls(lesson, library, rewrites)
    ]


def _uses_objects_of(imported: set[str], package: str) -> bool:
    """Whether code that imports the modules `imported` works with `package`'s objects: it
    imports it, or a package installed with a dependency on it (statsmodels' datasets are
    pandas' DataFrames: `dta.ix[1000]` in a notebook that never imports pandas)."""
    return package in imported or package in _dependencies_of(frozenset(imported))


@functools.lru_cache(maxsize=8)
def _dependencies_of(imported: frozenset[str]) -> frozenset[str]:
    """The distributions that those providing the modules `imported` require (extras left
    out). Cached: every migration of one import asks it, and reading the installed
    distributions' metadata takes a tenth of a second."""
    providers = importlib.metadata.packages_distributions()
    required: set[str] = set()
    for distribution in {name for module in imported for name in providers.get(module, [])}:
        try:
            needs = importlib.metadata.requires(distribution) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for line in needs:
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            if "extra" not in str(requirement.marker or ""):
                required.add(requirement.name)
    return frozenset(required)


def rewrite_calls(
    lesson: ImportedLesson, library: ModuleType, rewrites: list[CallRewrite]
) -> list[Rewritten]:
    """Writes, in place, each call of the lesson's steps that the installed `library` no
    longer takes as `rewrites` say it takes it now; what was written, by step."""
    current = [rewrite for rewrite in rewrites if rewrite.removed(library)]
    renames: dict[int, list[Rename]] = {}
    reasons: dict[Rename, tuple[CallRewrite, str]] = {}
    for number, _, code in lesson.steps:
        for rename, rewrite, within in _rewritten_calls(code, current):
            renames.setdefault(number, []).append(rename)
            reasons[rename] = (rewrite, within)
    for written in renames.values():  # a whole call before a line of another that it holds
        written.sort(key=lambda rename: len(rename.old), reverse=True)
    applied = rename_in_lesson(lesson, renames)
    wheres = {number: where for number, where, _ in lesson.steps}
    return [
        Rewritten(wheres[number], number, rename, rewrite.since, rewrite.same, within)
        for number, rename in sorted(applied, key=lambda applied: applied[0])
        for rewrite, within in [reasons[rename]]
    ]


def _rewritten_calls(
    code: str, rewrites: list[CallRewrite]
) -> Iterator[tuple[Rename, CallRewrite, str]]:
    """Each call of the code that one of `rewrites` writes anew (one over several lines
    where it changes one of them), and for a line of such a call the call (`f(...)`)."""
    if (tree := code_tree(code)) is None:
        return
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Call, ast.Subscript, ast.Delete, ast.Assign)):
            continue
        on = _rewritten_on(node)
        if not isinstance(on, (ast.Attribute, ast.Name)):
            continue  # a call, indexing, del or assignment of an attribute
        written = ast.get_source_segment(code, node)
        one_line = node.lineno == node.end_lineno
        for rewrite in rewrites:
            if not isinstance(node, rewrite.of) or (
                isinstance(on, ast.Name) and not rewrite.names_too
            ):
                continue
            if not (one_line or rewrite.lines_too):
                continue
            if written and (new := rewrite.rewrite(code, node)) and new != written:
                if rename := _one_line_rename(written, new):
                    called = ast.get_source_segment(code, on) if not one_line else None
                    yield rename, rewrite, f"{called}(...)" if called else ""
                break


def _one_line_rename(written: str, new: str) -> Rename | None:
    """The rename of `written` to `new`: itself on one line, or on several the one line
    they differ in (a lesson is renamed line by line); None where more lines differ."""
    old_lines, new_lines = written.split("\n"), new.split("\n")
    changed = [(o, n) for o, n in zip(old_lines, new_lines, strict=False) if o != n]
    if len(old_lines) != len(new_lines) or len(changed) != 1:
        return None
    old, now = changed[0]
    return Rename(_own_part(old), _own_part(now))


def _own_part(line: str) -> str:
    """A line of a call over several as the report shows it: without the comma after it
    and the brackets that close the call on it (`labels=x)` is `labels=x`)."""
    text = line.strip().rstrip(",")
    for opening, closing in ("()", "[]", "{}"):
        while text.endswith(closing) and text.count(closing) > text.count(opening):
            text = text[:-1].rstrip().rstrip(",")
    return text


def _rewritten_on(node: ast.Call | ast.Subscript | ast.Delete | ast.Assign) -> ast.expr | None:
    """What the call, indexing, del or assignment is of: `X.f` of `X.f(...)`, `X.ix` of
    `X.ix[...]`, `X.lines` of `del X.lines[0]`, `X.a` of `X.a = ...` (one target)."""
    if isinstance(node, ast.Call):
        return node.func
    if isinstance(node, ast.Subscript):
        return node.value
    target = node.targets[0] if len(node.targets) == 1 else None
    if isinstance(node, ast.Assign):
        return target
    return target.value if isinstance(target, ast.Subscript) else None


def kept_keywords(node: ast.Call, *, dropping: ast.keyword) -> list[str]:
    return [ast.unparse(k) for k in node.keywords if k is not dropping]


def call_of(code: str, node: ast.Call, name: str, arguments: list[str]) -> str | None:
    """`owner.name(arguments)`, on the object the call was made on, as written."""
    assert isinstance(node.func, ast.Attribute)
    owner = ast.get_source_segment(code, node.func.value)
    return None if owner is None else f"{owner}.{name}({', '.join(arguments)})"


def keyword_of(node: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in node.keywords if k.arg == name), None)


def renamed_method(old: str, new: str) -> Callable[[str, ast.Call], str | None]:
    """`X.old(...)` written `X.new(...)`, its arguments as written."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        assert isinstance(node.func, ast.Attribute)
        function = ast.get_source_segment(code, node.func)
        written = ast.get_source_segment(code, node)
        if node.func.attr != old or function is None or written is None:
            return None
        return function.removesuffix(old) + new + written[len(function) :]

    return rewrite


def renamed_keyword(
    methods: tuple[str, ...], old: str, new: Callable[[ast.keyword], str | None]
) -> Callable[[str, ast.Call], str | None]:
    """`X.method(..., old=v)` of one of `methods` written with `new(keyword)` in its place."""

    def rewrite(code: str, node: ast.Call) -> str | None:
        assert isinstance(node.func, ast.Attribute)
        keyword = keyword_of(node, old)
        if node.func.attr not in methods or keyword is None or (written := new(keyword)) is None:
            return None
        return written_with(code, node, keyword, written)

    return rewrite


def written_with(
    code: str, node: ast.Call, keyword: ast.keyword, instead: str | None
) -> str | None:
    """The call as written, its `keyword` written `instead` in its place, the rest as it was
    over however many lines (so a call over several keeps all but the keyword's line); left
    out where `instead` is None."""
    written = ast.get_source_segment(code, node)
    if written is None:
        return None
    if instead is not None:
        return spliced(written, node, {keyword: instead})
    function = ast.get_source_segment(code, node.func)
    if function is None:
        return None
    kept = [*node.args, *(given for given in node.keywords if given is not keyword)]
    arguments = [ast.get_source_segment(code, a) or ast.unparse(a) for a in kept]
    return f"{function}({', '.join(arguments)})"


def spliced(written: str, node: ast.Call, instead: dict[ast.keyword, str]) -> str | None:
    """The call `node`, `written` as the code writes it, each keyword of `instead` written
    as it says in its place (the last first, so that the places before it hold)."""
    lines = written.split("\n")
    for keyword in sorted(instead, key=lambda k: (k.lineno, k.col_offset), reverse=True):
        if keyword.end_lineno is None or keyword.end_col_offset is None:
            return None
        start = _offset(lines, node, keyword.lineno, keyword.col_offset)
        end = _offset(lines, node, keyword.end_lineno, keyword.end_col_offset)
        written = written[:start] + instead[keyword] + written[end:]
    return written


def _offset(lines: list[str], node: ast.Call, lineno: int, byte_column: int) -> int:
    """Where a position of the code (a line, and a UTF-8 byte column, as ast gives them)
    is in the call as written, `lines` of it: its first line starts at the call."""
    row = lineno - node.lineno
    start = node.col_offset if row == 0 else 0
    column = len(lines[row].encode()[: byte_column - start].decode(errors="ignore"))
    return sum(len(line) + 1 for line in lines[:row]) + column
