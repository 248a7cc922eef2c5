"""Stage 2: parse a lesson's Markdown file into a typed Lesson.

A lesson is front matter, then five `#` stage headings; inside them `##` sections, prose and
colon-fence blocks (`:::{step} 1. Title`). Every problem is reported with its file line;
all problems of a file are collected and raised together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from markdown_it.tree import SyntaxTreeNode

from coursesite.blocks import builtin as builtin_blocks  # noqa: F401  (registers the built-in block kinds)
from coursesite.blocks.registry import (
    BlockContext,
    Part,
    RawBlock,
    attempts,
    block_names,
    kind_named,
    parent_of,
    runnable_blocks,
)
from coursesite.config.manifest import LessonRef
from coursesite.config.yamlmodel import load_yaml_model
from coursesite.errors import BuildError, BuildErrors, course_text, did_you_mean
from coursesite.lesson.fences import fence_mistakes
from coursesite.lesson.frontmatter import (
    front_matter_problems,
    prerequisite_links,
    split_front_matter,
    unshown_writes,
    written_name,
)
from coursesite.lesson.model import (
    STAGES,
    Code,
    FrontMatter,
    LabelRef,
    Lesson,
    LessonLink,
    LiveValue,
    Prose,
    Section,
    Stage,
    Step,
    Target,
)
from coursesite.lesson.nesting import BLOCK_DEPTH_LIMIT, block_too_deep, checked_nodes
from coursesite.markup.markdown import math_to_mathml, slugify
from coursesite.markup.mathml import UnsafeMath
from coursesite.markup.myst import TARGET_LINE
from coursesite.markup.mystscan import BLOCK_RE, MystScanner, is_block, walk_with_lines

if TYPE_CHECKING:  # the memo's module imports this one
    from coursesite.cache.caches import FormulaMemo

_STAGE_KEYS = {title: key for key, title in STAGES.items()}
# Math token types and whether the page renders them in display mode.
_DISPLAY_MATH = {
    "math_inline": False,
    "math_inline_double": True,
    "math_block": True,
    "math_block_label": True,
}
_OPTION_RE = re.compile(r"^:([A-Za-z-]+):\s*(.*)$")


@dataclass
class LessonParser(MystScanner):
    path: Path
    lines: list[str]
    errors: list[BuildError] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)
    links: list[LessonLink] = field(default_factory=list)
    values: list[LiveValue] = field(default_factory=list)
    formulas: FormulaMemo | None = None  # the build's MathML memo, filled while checking
    course_root: Path | None = None  # None for phase guides, which hold no images
    targets: dict[str, int] = field(default_factory=dict)  # label -> line
    target_titles: dict[str, str] = field(default_factory=dict)
    label_refs: list[LabelRef] = field(default_factory=list)
    written: frozenset[str] = frozenset()  # the front matter's `writes:`, by run name

    def __post_init__(self) -> None:
        # Block builders report into the same error list and take from the same anchors.
        labels = TARGET_LINE.finditer("\n".join(self.lines))
        self.context = BlockContext(
            self.path,
            self.errors,
            self.anchors,
            self.course_root,
            written=self.written,
            reserved=frozenset(label.group(1).strip() for label in labels),
        )

    def anchor(self, text: str) -> str:
        return self.context.anchor(text)

    def problems(self) -> list[BuildError]:
        """Every problem found: the prose's after the others."""
        return self.errors + self.context.prose_problems

    # -- top level ---------------------------------------------------------------------

    def parse_stages(self) -> list[Stage]:
        stages: list[Stage] = []
        pending: list[SyntaxTreeNode] = []
        nodes = checked_nodes(self.context, "\n".join(self.lines), 0)
        self.title_targets(nodes)
        for node in nodes:
            assert node.map is not None  # block-level nodes carry their lines
            line = node.map[0] + 1
            if node.type == "heading" and node.tag == "h1":
                self.flush_prose(stages, pending)
                stages.append(self.open_stage(node, line, stages))
            elif not stages:
                self.error(
                    "content before the first stage heading",
                    line,
                    "start the lesson body with '# Understand'",
                )
            elif node.type == "heading" and node.tag == "h2":
                self.flush_prose(stages, pending)
                title = node.children[0].content
                stages[-1].items.append(Section(title, self.anchor(title), line))
            elif is_block(node):
                self.flush_prose(stages, pending)
                block = self.read_block(node, 0, depth=1)
                if block:
                    self.place_block(block, stages[-1])
            else:
                pending.append(node)
        self.flush_prose(stages, pending)
        found = [stage.title for stage in stages]
        if found != list(STAGES.values()) and not self.errors:
            missing = [title for title in STAGES.values() if title not in found]
            self.error(
                f"the lesson needs all five stages; missing: {', '.join(missing)}",
                len(self.lines),
                "add the '# Stage' headings in the order of docs/authoring.md",
            )
        return stages

    def open_stage(self, node: SyntaxTreeNode, line: int, stages: list[Stage]) -> Stage:
        title = node.children[0].content.strip()
        key = _STAGE_KEYS.get(title)
        expected = list(STAGES.values())[len(stages)] if len(stages) < len(STAGES) else None
        if key is None:
            self.error(
                f"unknown stage '{title}'{did_you_mean(title, list(_STAGE_KEYS))}",
                line,
                "stages are: " + ", ".join(STAGES.values()),
            )
        elif title != expected:
            self.error(
                f"stage '{title}' is out of order; expected '{expected}' here",
                line,
                "stages come in this order: " + ", ".join(STAGES.values()),
            )
        self.anchors.add(key or slugify(title))
        return Stage(key or slugify(title), title, line)

    def flush_prose(self, stages: list[Stage], pending: list[SyntaxTreeNode]) -> None:
        if pending and stages:
            stages[-1].items.append(self.prose_from(pending, 0))
        pending.clear()

    def prose_from(self, nodes: list[SyntaxTreeNode], offset: int) -> Prose:
        assert nodes[0].map and nodes[-1].map  # block-level nodes carry their lines
        start = offset + nodes[0].map[0]
        end = offset + nodes[-1].map[1]
        for node in nodes:
            self.check_closed(node, offset)
        prose = Prose("\n".join(self.lines[start:end]), start + 1)
        self.scan_nodes(nodes, offset)
        return prose

    def scan_prose(self, markdown: str, line: int) -> None:
        """scan_nodes for text that has not been parsed yet (block options, guides)."""
        self.scan_nodes(checked_nodes(self.context, markdown, line - 1), line - 1)

    def scan_nodes(self, nodes: list[SyntaxTreeNode], offset: int) -> None:
        """Collect lesson links and h3 anchors; check math now so rendering cannot fail.

        `offset` turns the nodes' 0-based line maps into file lines.
        """
        for node, at in walk_with_lines(nodes, offset):
            if node.type in _DISPLAY_MATH:
                self.check_math(node.content, at, display=_DISPLAY_MATH[node.type])
                if node.type == "math_block_label":  # `$$ (label)`: the page gives it an id
                    self.add_target(node.info.strip(), at)
            elif node.type == "live_value":
                self.add_value(node.content, at)
            elif node.type == "fence" and _shown_python(node.info):
                self.error(
                    "this ```python block would be shown but never run",
                    at,
                    "put runnable code in a {step}, {experiment} or other block; "
                    "to show code that must not run, write ```python norun",
                )
            elif node.type == "heading" and node.tag == "h3":
                self.anchors.add(slugify(node.children[0].content))
            elif node.type == "link" and str(node.attrs.get("href", "")).startswith("lesson:"):
                slug, _, anchor = str(node.attrs["href"])[len("lesson:") :].partition("#")
                self.links.append(LessonLink(slug, anchor or None, at))
            elif node.type == "link" and _points_into_the_site(str(node.attrs.get("href", ""))):
                self.error(
                    f"the link to '{node.attrs['href']}' points at a file of the site, "
                    "which the build does not publish there",
                    at,
                    "link a lesson with lesson:SLUG (lesson:SLUG#anchor for a place in it), a "
                    "place on this page with #anchor, or a web page with https://",
                )
            else:
                self.scan_myst(node, at)
        self.check_footnotes(nodes, offset)

    def add_value(self, expression: str, line: int) -> None:
        try:
            compile(expression, str(self.path), "eval")
        except SyntaxError as problem:
            self.error(
                f"live value `{expression}` is not a Python expression: {problem.msg}",
                line,
                "write {value}`expression`, e.g. {value}`len(ids)`",
            )
            return
        self.values.append(LiveValue(expression, line))

    def check_math(self, latex: str, line: int, display: bool) -> None:
        try:
            math_to_mathml(latex, display, self.formulas)
        except UnsafeMath as problem:
            self.prose_error(
                f"math '{latex.strip()}' cannot go on a page: {problem}",
                line,
                "math carries no links, styles or classes: put a link in the prose "
                "around the formula, and use \\color for colour",
            )
        except Exception as problem:  # latex2mathml raises many exception types
            self.prose_error(
                f"cannot render math '{latex.strip()}': {problem}",
                line,
                "use LaTeX that MathML supports (see docs/authoring.md)",
            )

    def check_closed(self, node: SyntaxTreeNode, offset: int) -> bool:
        if node.type not in ("fence", "colon_fence"):
            return True
        assert node.map is not None  # block-level nodes carry their lines
        last = self.lines[offset + node.map[1] - 1].strip()
        if (
            node.map[1] - node.map[0] >= 2
            and last.startswith(node.markup)
            and set(last) == set(node.markup[0])
        ):
            return True
        what = "code block" if node.type == "fence" else "block"
        self.error(
            f"unclosed {what} opened with '{node.markup}'",
            offset + node.map[0] + 1,
            f"close it with a line of '{node.markup}'",
        )
        return False

    # -- blocks ------------------------------------------------------------------------

    def read_block(self, node: SyntaxTreeNode, offset: int, depth: int) -> RawBlock | None:
        """The block of `node`, `depth` blocks deep (1 for one in no other block)."""
        assert node.map is not None  # block-level nodes carry their lines
        line = offset + node.map[0] + 1
        if depth > BLOCK_DEPTH_LIMIT:
            block_too_deep(self.context, line)
            return None
        if not self.check_closed(node, offset):
            return None
        match = BLOCK_RE.match(node.info.strip())
        kind = match.group(1) if match else node.info.strip()
        if not match or (kind_named(kind) is None and parent_of(kind) is None):
            known = block_names()
            self.error(
                f"unknown block '{node.info.strip()}'{did_you_mean(kind, known)}",
                line,
                "blocks are: " + ", ".join(f"{{{k}}}" for k in known),
            )
            return None
        self.scan_prose(match.group(2), line)  # titles are Markdown, shown inline
        body_start = offset + node.map[0] + 1
        body = self.lines[body_start : offset + node.map[1] - 1]
        options, skipped = self.read_options(kind, body, body_start)
        parts = self.read_parts(body_start + skipped, body[skipped:], depth)
        return RawBlock(kind, match.group(2).strip(), line, options, parts)

    def read_options(self, kind: str, body: list[str], start: int) -> tuple[dict[str, str], int]:
        spec = kind_named(kind)  # None for sub-blocks, which take no options
        allowed_options = spec.options if spec else ()
        options: dict[str, str] = {}
        count = 0
        for count, text in enumerate([*body, ""]):
            match = _OPTION_RE.match(text)
            if not match:
                break
            name, value = match.group(1), match.group(2).strip()
            if name not in allowed_options:
                allowed = ", ".join(allowed_options) or "none"
                self.error(
                    f"unknown option ':{name}:' for {{{kind}}}"
                    f"{did_you_mean(name, allowed_options)}",
                    start + count + 1,
                    f"options of {{{kind}}}: {allowed}",
                )
            options[name] = value
            if spec and name in spec.markdown_options:
                self.scan_prose(value, start + count + 1)
        return options, count

    def read_parts(self, start: int, body: list[str], depth: int) -> list[Part]:
        parts: list[Part] = []
        pending: list[SyntaxTreeNode] = []

        def flush() -> None:
            if pending:
                prose = self.prose_from(pending, start)
                parts.append(Part("prose", prose.line, prose=prose))
                pending.clear()

        nodes = checked_nodes(self.context, "\n".join(body), start)
        self.title_targets(nodes)
        for node in nodes:
            assert node.map is not None  # block-level nodes carry their lines
            line = start + node.map[0] + 1
            if node.type == "fence" and node.info.split()[:1] == ["python"]:
                flush()
                if self.check_closed(node, start):
                    code = Code(node.content, line + 1)
                    parts.append(Part("code", line, code=code, info=node.info.strip()))
            elif is_block(node):
                flush()
                block = self.read_block(node, start, depth + 1)
                if block:
                    parts.append(Part("block", line, block=block))
            elif node.type == "heading":
                self.error(
                    "headings cannot go inside a block",
                    line,
                    "end the block with its closing ':::' line before the heading",
                )
            else:
                pending.append(node)
        flush()
        return parts

    def place_block(self, raw: RawBlock, stage: Stage) -> None:
        parent = parent_of(raw.kind)
        if parent is not None:
            self.error(
                f"{{{raw.kind}}} only goes inside a {{{parent}}} block",
                raw.line,
                f"move it into the {{{parent}}} block it belongs to",
            )
            return
        spec = kind_named(raw.kind)
        assert spec is not None  # read_block let only known kinds through
        if spec.stages and stage.key not in spec.stages:
            wanted = " or ".join(STAGES[key] for key in spec.stages)
            headings = " or ".join(f"'# {STAGES[key]}'" for key in spec.stages)
            self.error(
                f"{{{raw.kind}}} belongs in the '{wanted}' stage, not '{stage.title}'",
                raw.line,
                f"move the block below the {headings} heading",
            )
        for name in spec.required:
            if not raw.options.get(name):
                self.error(
                    f"{{{raw.kind}}} needs the option ':{name}:'",
                    raw.line,
                    f"add a line ':{name}: ...' right after the opening line",
                )
        if spec.titled and not raw.title and not spec.title_optional:
            self.error(
                f"{{{raw.kind}}} needs a title after '{{{raw.kind}}}'",
                raw.line,
                f"write ':::{{{raw.kind}}} A title' on the opening line",
            )
        if not spec.titled and raw.title:
            self.error(
                f"{{{raw.kind}}} takes no title",
                raw.line,
                f"open it with ':::{{{raw.kind}}}' alone and put the text in its body",
            )
        for part in raw.parts:
            # A block nested where it is not one of the kind's own parts would vanish.
            if part.block is not None and part.block.kind not in spec.sub_blocks:
                inner = part.block.kind
                allowed = ", ".join(f"{{{name}}}" for name in spec.sub_blocks)
                self.error(
                    f"{{{inner}}} cannot go inside {{{raw.kind}}}",
                    part.line,
                    f"close the {{{raw.kind}}} block before opening {{{inner}}}"
                    + (f"; inside it only {allowed} may go" if allowed else ""),
                )
        item = spec.build(self.context, raw)
        if item is not None:
            stage.items.append(item)


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _points_into_the_site(href: str) -> bool:
    """A relative or root-relative link: a page or file the site would have to hold, which
    only `lesson:` links and images reach (the site may be served from any path)."""
    return bool(href) and not href.startswith(("#", "//")) and not _SCHEME.match(href)


def _shown_python(info: str) -> bool:
    """A Python fence in prose that is not marked `norun`: readers would take it as run."""
    words = info.split()
    return bool(words) and words[0] == "python" and "norun" not in words[1:]


def parse_lesson(
    ref: LessonRef,
    data: bytes | None = None,
    formulas: FormulaMemo | None = None,
    defer_prose: bool = False,
) -> Lesson:
    """Read and validate one lesson file (`data` when it was already read); raise
    BuildErrors listing every problem. Its formulas are converted into `formulas`.

    With `defer_prose`, mistakes of the prose alone do not stop the parse: the lesson
    carries them (`prose_problems`), for a build that reports them after running the code,
    so that one round names both."""
    path = ref.source
    text = course_text(path.read_bytes() if data is None else data, path)
    front_text, front_lines = split_front_matter(text, path)
    front, root = load_yaml_model(front_text, FrontMatter, path, first_line=2)
    # Blank out the front matter so that token line numbers are file line numbers.
    lines = [""] * front_lines + text.splitlines()[front_lines:]
    written = frozenset(filter(None, map(written_name, front.writes)))
    parser = LessonParser(
        path, lines, formulas=formulas, course_root=ref.course_root, written=written
    )
    parser.errors.extend(front_matter_problems(ref, text, front, root))
    parser.links.extend(prerequisite_links(front, root))
    mistakes = fence_mistakes(lines, 1, path)
    if mistakes:  # what the parser would say next are their consequences, far from the cause
        raise BuildErrors(parser.errors + mistakes)
    stages = parser.parse_stages()
    _check_step_numbers(parser, stages)
    parser.errors.extend(unshown_writes(path, front, root, parser.context.images))
    if parser.errors or (parser.context.prose_problems and not defer_prose):
        raise BuildErrors(parser.problems())
    return Lesson(
        ref,
        path,
        text,
        front,
        stages,
        frozenset(parser.anchors),
        parser.links,
        runnable_blocks(stages),
        parser.values,
        [
            Target(label, parser.target_titles.get(label, ""), line)
            for label, line in parser.targets.items()
        ],
        parser.label_refs,
        parser.context.images,
        attempts(stages),
        prose_problems=list(parser.context.prose_problems),
    )


def _check_step_numbers(parser: LessonParser, stages: list[Stage]) -> None:
    """Steps are numbered 1, 2, 3, ...; a lesson may have none only if it runs nothing (a
    page that shows code without running it), since every other block runs after them."""
    steps = [item for stage in stages for item in stage.items if isinstance(item, Step)]
    # Only once every stage is there, Build & Run among them.
    if not steps and not parser.errors and runnable_blocks(stages):
        build_run = next(stage for stage in stages if stage.key == "build-run")
        parser.error(
            "the lesson has no {step} blocks, but blocks that run after them",
            build_run.line,
            "the Build & Run stage needs at least ':::{step} 1. Title'",
        )
    for expected, step in enumerate(steps, start=1):
        if step.number != expected:
            parser.error(
                f"step numbering gap: expected step {expected}, found {step.number}",
                step.line,
                "number steps 1, 2, 3, ... in order",
            )
            break
