"""The registry of lesson block kinds (`:::{step}`, `:::{figure}`, ...).

Each kind is one `register(BlockKind(...))`: where it may go, its options, its builder,
whether and how its code runs, and the templates that show it. The parse stage, the lesson
page, the Markdown download, the notebook and the execution order all read the registry,
so a new kind is one registration plus its templates (see docs/extending.md). The built-in
kinds are registered in `builtin_blocks`.

Builders get a BlockContext (error reporting, anchors, code and prose extraction), never
the parser itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from coursesite.errors import BuildError, did_you_mean
from coursesite.lesson.completeness import PLACEHOLDER
from coursesite.lesson.frontmatter import written_name
from coursesite.lesson.model import (
    OUTPUT_VARIES,
    Attempt,
    Code,
    LessonImage,
    Prose,
    RunnableBlock,
    Section,
    Stage,
)
from coursesite.markup.markdown import slugify
from coursesite.outputs.assets import MissingAsset, RefusedAsset, check_location

# An image address that names another site: pages load nothing from elsewhere.
_REMOTE = re.compile(r"^(https?:)?//", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


# MyST-NB's tags for what a page folds of a block: its code, its output.
FOLD_TAGS = ("hide-input", "hide-output")
BLOCK_TAGS = (*FOLD_TAGS, OUTPUT_VARIES)


@dataclass
class Part:
    """A piece of a block body: prose, a Python fence, or a nested block."""

    kind: str  # "prose" | "code" | "block"
    line: int
    prose: Prose | None = None
    code: Code | None = None
    info: str = ""
    block: RawBlock | None = None


@dataclass
class RawBlock:
    kind: str
    title: str
    line: int
    options: dict[str, str]
    parts: list[Part]


@dataclass(frozen=True)
class Runs:
    """How a kind's item runs. `code` names the item's field holding the code; `id` (the
    block's key in the execution record) and `label` (how build messages name it) are
    formatted with `item`. Program blocks (the steps of main.py) run first; the others
    follow in document order."""

    code: str = "code"
    label: str = "block '{item.title}'"
    id: str = "{item.anchor}"
    figure: bool = False  # the block leaves a `figure` dict to draw
    program: bool = False  # part of main.py
    solution: bool = False  # left out of the student edition (lesson/edition.py)
    # With `solution`: the item's other fields that go with the solution (its reasoning),
    # emptied with it in the student edition.
    with_solution: tuple[str, ...] = ()
    # A checkable task: the item's fields holding the check (a Code, or None when the
    # author wrote none) and the starter code the learner edits, which the check must fail.
    check: str = ""
    starter: str = ""
    check_label: str = "check of '{item.title}'"

    def block(self, item: Any) -> RunnableBlock:
        return RunnableBlock(
            self.id.format(item=item),
            self.label.format(item=item),
            getattr(item, self.code),
            self.figure,
            self.solution,
            self.program,
        )


@dataclass(frozen=True)
class View:
    """How an item is shown: its page template, its Markdown template (lesson.md, and a
    notebook Markdown cell), and optionally `notebook(cells, item)`, which lays out its
    notebook cells itself (kinds whose code becomes a code cell)."""

    html: str
    markdown: str
    runs: Runs | None = None
    notebook: Callable[[Any, Any], None] | None = None


@dataclass(frozen=True)
class BlockKind:
    """One block kind: everything about `:::{name}` in one place.

    `build(context, raw)` checks a RawBlock and returns the model item (an instance of
    `item`), or None after reporting its problems through the context. Options listed in
    `markdown_options` are lesson Markdown (checked for math, links and live values).
    `sub_blocks` are the kinds that may only appear nested in this one (`{read}`).
    Templates default to `blocks/<name>.html` and `blocks/<name>.md`.
    """

    name: str
    item: type
    build: Callable[[BlockContext, RawBlock], Any]
    stages: tuple[str, ...] = ()  # empty: any stage
    options: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    markdown_options: tuple[str, ...] = ()
    titled: bool = True
    title_optional: bool = False  # with `titled`: the title may be left out
    sub_blocks: tuple[str, ...] = ()
    runs: Runs | None = None
    html: str = ""
    markdown: str = ""
    notebook: Callable[[Any, Any], None] | None = None

    @property
    def view(self) -> View:
        return View(
            self.html or f"blocks/{self.name}.html",
            self.markdown or f"blocks/{self.name}.md",
            self.runs,
            self.notebook,
        )


_KINDS: dict[str, BlockKind] = {}
_SUB_BLOCKS: dict[str, str] = {}  # sub-block name -> the kind it goes in
# Items that are not blocks have views too, so that pages dispatch on nothing.
_VIEWS: dict[type, View] = {
    Prose: View("blocks/prose.html", "blocks/prose.md"),
    Section: View("blocks/section.html", "blocks/section.md"),
}


def register(kind: BlockKind) -> BlockKind:
    """Add a block kind. Kinds may share an item type (the notes) if they share its view."""
    taken = set(_KINDS) | set(_SUB_BLOCKS)
    for name in (kind.name, *kind.sub_blocks):
        if name in taken:
            raise ValueError(f"block kind '{name}' is already registered")
    unknown = set(kind.required) - set(kind.options)
    if unknown or not set(kind.markdown_options) <= set(kind.options):
        raise ValueError(f"{{{kind.name}}}: required and Markdown options must be options")
    view = _VIEWS.setdefault(kind.item, kind.view)
    if view != kind.view:
        raise ValueError(
            f"{{{kind.name}}} shows {kind.item.__name__} differently from "
            "the kind registered for it before"
        )
    _KINDS[kind.name] = kind
    _SUB_BLOCKS.update((name, kind.name) for name in kind.sub_blocks)
    return kind


def unregister(name: str) -> None:
    """Remove a kind registered with `register` (tests register kinds of their own)."""
    kind = _KINDS.pop(name)
    for sub in kind.sub_blocks:
        del _SUB_BLOCKS[sub]
    if not any(other.item is kind.item for other in _KINDS.values()):
        del _VIEWS[kind.item]


def kind_named(name: str) -> BlockKind | None:
    return _KINDS.get(name)


def parent_of(sub_block: str) -> str | None:
    """The kind a sub-block (`read`, `hint`, ...) belongs in; None for other names."""
    return _SUB_BLOCKS.get(sub_block)


def block_names() -> list[str]:
    """Every name that may follow ':::{', top-level kinds first."""
    return list(_KINDS) + list(_SUB_BLOCKS)


def view_of(item: Any) -> View:
    try:
        return _VIEWS[type(item)]
    except KeyError:
        raise LookupError(f"no block kind shows {type(item).__name__} items") from None


def run_id(item: Any) -> str:
    """The id of what an item runs, which its output has in the record: its anchor for
    most kinds, `step-N` for a step, whose anchor may be `step-2-2` when a heading of the
    lesson ("### Step 2") took `step-2` first."""
    runs = view_of(item).runs
    return runs.id.format(item=item) if runs else str(getattr(item, "anchor", ""))


def runnable_blocks(stages: list[Stage]) -> list[RunnableBlock]:
    """What runs, in execution order: program blocks (main.py) first, then the others,
    each group in document order."""
    blocks = [
        runs.block(item)
        for stage in stages
        for item in stage.items
        if (runs := view_of(item).runs) is not None
    ]
    return [b for b in blocks if b.program] + [b for b in blocks if not b.program]


def attempts(stages: list[Stage]) -> list[Attempt]:
    """The checkable tasks of a lesson, in page order, each with its file in the zip."""
    found: list[Attempt] = []
    for stage in stages:
        for item in stage.items:
            runs = view_of(item).runs
            if runs is None or not runs.check or getattr(item, runs.check) is None:
                continue
            block = runs.block(item)
            found.append(
                Attempt(
                    block.id,
                    getattr(item, "title", ""),
                    runs.check_label.format(item=item),
                    f"exercises/{len(found) + 1}-{block.id}.py",
                    getattr(item, runs.starter),
                    getattr(item, runs.check),
                )
            )
    return found


def merge_prose(proses: list[Prose | None]) -> Prose | None:
    present = [p for p in proses if p is not None]
    if not present:
        return None
    return Prose("\n\n".join(p.markdown for p in present), present[0].line)


_MAGIC_HINT = "write it in Python, or run it outside the lesson and delete the line"
_MAGIC_HINTS = {
    "pip": "delete the line and install the package where you build the site",
    "matplotlib": "delete the line: figures are drawn without it",
    "time": "delete '%time' and keep the statement; time it with time.perf_counter() "
    "if the page should show a duration (mark that line `volatile`)",
    "timeit": "delete '%timeit' and keep the statement, or use the timeit module",
}


@dataclass
class BlockContext:
    """What a builder may use: report errors, take anchors, find code and prose."""

    path: Path
    errors: list[BuildError] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)
    course_root: Path | None = None  # None: no images here (phase guides)
    images: list[LessonImage] = field(default_factory=list)
    written: frozenset[str] = frozenset()  # `writes:`: images the run leaves, by run name
    # The labels of the lesson's target lines: an anchor made from a title or a file name
    # leaves them to the author, wherever in the lesson the target is.
    reserved: frozenset[str] = frozenset()
    # Mistakes of the prose alone (raw HTML, an unknown role, bad math): they change
    # nothing that runs, so a build may run the code first and report both in one round.
    prose_problems: list[BuildError] = field(default_factory=list)

    def error(self, message: str, line: int | None, hint: str) -> None:
        self.errors.append(BuildError(message, self.path, line, hint=hint))

    def prose_error(self, message: str, line: int | None, hint: str) -> None:
        self.prose_problems.append(BuildError(message, self.path, line, hint=hint))

    def image(self, src: str, alt: str, line: int) -> None:
        """Check an image (`src` percent-encoded, as Markdown reads it) and keep it to be
        copied into the site: a file inside the course folder, described by its alt text."""
        shown = unquote(src)
        if _REMOTE.match(src):
            self.error(
                f"image '{shown}' is on another site",
                line,
                "save the file beside the lesson and write its path, e.g. "
                "![what it shows](images/name.png): pages load nothing from other sites",
            )
            return
        if _SCHEME.match(src):
            self.error(
                f"image '{shown[:40]}' is not a file path",
                line,
                "save the image as a file beside the lesson and write its relative path",
            )
            return
        if self.course_root is None:
            self.error(
                f"image '{shown}' in a phase guide",
                line,
                "images go in lessons, whose folders the build copies them to",
            )
            return
        if written_name(shown) in self.written:  # checked once the run has left it
            self.images.append(LessonImage(src, shown, line, written=True))
        else:
            self._image_beside(src, shown, line)
        if not alt.strip():
            self.error(
                f"image '{shown}' has no alt text",
                line,
                "say what the image shows for readers who cannot see it: "
                "![what it shows](path), or ':alt: what it shows' in an {image} block",
            )

    def _image_beside(self, src: str, shown: str, line: int) -> None:
        assert self.course_root is not None
        try:
            check_location(self.path.parent / shown, self.course_root, shown)
        except MissingAsset:
            pass  # kept: the build runs the code and names it with what else failed
        except RefusedAsset as refused:
            self.error(refused.message, line, refused.hint)
            return
        self.images.append(LessonImage(src, shown, line))

    def anchor(self, text: str) -> str:
        """A page anchor for `text`, unique within the lesson."""
        base = slugify(text)
        anchor, n = base, 2
        while anchor in self.anchors or anchor in self.reserved:
            anchor, n = f"{base}-{n}", n + 1
        self.anchors.add(anchor)
        return anchor

    @staticmethod
    def code_anchor(raw: RawBlock, info: str = "python") -> Part | None:
        """The first fence of `raw` whose info string is `info`."""
        return next((p for p in raw.parts if p.kind == "code" and p.info == info), None)

    def code_part(self, raw: RawBlock, info: str = "python") -> Code | None:
        """The one ```{info} fence of `raw` (checked to compile), with its :raises: and
        :alt: (the text alternative of the figures the code draws)."""
        found = [part for part in raw.parts if part.kind == "code" and part.info == info]
        if len(found) != 1:
            self.error(
                f"{{{raw.kind}}} needs exactly one ```{info} block, found {len(found)}",
                raw.line,
                "code in other languages is shown, only ```python runs; "
                "split long code over several blocks",
            )
            return None
        code = found[0].code
        assert code is not None  # a "code" part carries its code
        self.check_compiles(code)
        alt = raw.options.get("alt", "")
        todo = alt.lstrip().startswith(PLACEHOLDER)
        return Code(
            code.source,
            code.line,
            raw.options.get("raises") or None,
            placeholder_label(raw) if todo else alt,
            self.block_tags(raw),
            todo,
        )

    def block_tags(self, raw: RawBlock) -> tuple[str, ...]:
        """The block's `:tags:`: MyST-NB's names for what a page folds, its code
        (hide-input) or its output (hide-output), and nbval's for output that differs on
        every run (nbval-ignore-output)."""
        words = [word for word in re.split(r"[\s,\[\]]+", raw.options.get("tags", "")) if word]
        for word in words:
            if word not in BLOCK_TAGS:
                self.error(
                    f"unknown tag '{word}' in :tags: of {{{raw.kind}}}"
                    f"{did_you_mean(word.replace('remove', 'hide'), BLOCK_TAGS)}",
                    raw.line,
                    "a block's :tags: fold its code (hide-input) or its output (hide-output), "
                    "or say its output differs on every run (nbval-ignore-output); a page "
                    "never removes them: readers can open what is folded",
                )
        return tuple(word for word in BLOCK_TAGS if word in words)

    def check_compiles(self, code: Code) -> None:
        try:
            compile("\n" * (code.line - 1) + code.source, str(self.path), "exec")
        except SyntaxError as problem:
            text = (problem.text or "").strip()
            if text.startswith(("!", "%")):  # pasted from a notebook
                self.error(
                    f"'{text}' is an IPython command, not Python: lessons run as plain scripts",
                    problem.lineno,
                    _MAGIC_HINTS.get(text.lstrip("!%").split(" ")[0], _MAGIC_HINT),
                )
                return
            self.error(
                f"Python syntax error: {problem.msg}",
                problem.lineno,
                "fix the code; scaffolds must compile too (use ... for the gaps)",
            )

    @staticmethod
    def prose_around(raw: RawBlock, anchor_part: Part | None) -> tuple[Prose | None, Prose | None]:
        """The prose before and after a block's code, each merged into one Prose."""
        if anchor_part is None:
            return None, None
        index = raw.parts.index(anchor_part)
        before = [p.prose for p in raw.parts[:index] if p.kind == "prose"]
        after = [p.prose for p in raw.parts[index + 1 :] if p.kind == "prose"]
        return merge_prose(before), merge_prose(after)

    def sub_block(self, raw: RawBlock, kind: str, required: bool) -> Prose | None:
        """The prose of the `:::{kind}` block nested in `raw` (empty Prose if it has none)."""
        found = [p.block for p in raw.parts if p.block is not None and p.block.kind == kind]
        if not found:
            if required:
                self.error(
                    f"{{{raw.kind}}} needs a :::{{{kind}}} block",
                    raw.line,
                    f"add ':::{{{kind}}}' ... ':::' inside it, and give the outer block "
                    "one more colon than the inner one",
                )
            return None
        return merge_prose([p.prose for p in found[0].parts if p.kind == "prose"]) or Prose(
            "", found[0].line
        )


_NUMBERED = re.compile(r"0*(\d+)\.\s*(.*)")


def placeholder_label(raw: RawBlock) -> str:
    """What readers get for an :alt: the author has yet to write (a `TODO:` placeholder,
    which check lists): something true, made of the block's title."""
    numbered = _NUMBERED.fullmatch(raw.title.strip())
    if raw.kind == "step" and numbered:
        return f"Figure of step {int(numbered.group(1))}: {numbered.group(2)}"
    return f"Figure of {raw.kind}: {raw.title.strip()}"
