"""Stage 2: parse a lesson's Markdown file into a typed Lesson.

A lesson is front matter, then five `#` stage headings; inside them `##` sections, prose and
colon-fence blocks (`:::{step} 1. Title`). Every problem is reported with its file line;
all problems of a file are collected and raised together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from markdown_it.tree import SyntaxTreeNode

from .errors import BuildError, BuildErrors, did_you_mean
from .manifest import LessonRef
from .blocks import BLOCKS, BUILDERS, SUB_BLOCKS, BlockSpec, Part, RawBlock, merge_prose
from .markdown import math_to_mathml, parse_nodes, slugify
from .mathml import UnsafeMath
from .model import (STAGES, Code, FrontMatter, Lesson, LessonLink, LiveValue, Prose, Section,
                    Stage, Step)
from .yamlmodel import line_at, load_yaml_model, node_tree

_STAGE_KEYS = {title: key for key, title in STAGES.items()}
_BLOCK_RE = re.compile(r"^\{([A-Za-z-]+)\}\s*(.*)$")
_OPTION_RE = re.compile(r"^:([A-Za-z-]+):\s*(.*)$")


@dataclass
class LessonParser:
    path: Path
    lines: list[str]
    errors: list[BuildError] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)
    links: list[LessonLink] = field(default_factory=list)
    values: list[LiveValue] = field(default_factory=list)

    def error(self, message: str, line: int | None, hint: str) -> None:
        self.errors.append(BuildError(message, self.path, line, hint=hint))

    def anchor(self, text: str) -> str:
        base = slugify(text)
        anchor, n = base, 2
        while anchor in self.anchors:
            anchor, n = f"{base}-{n}", n + 1
        self.anchors.add(anchor)
        return anchor

    # -- top level ---------------------------------------------------------------------

    def parse_stages(self) -> list[Stage]:
        stages: list[Stage] = []
        pending: list[SyntaxTreeNode] = []
        for node in parse_nodes("\n".join(self.lines)):
            line = node.map[0] + 1
            if node.type == "heading" and node.tag == "h1":
                self.flush_prose(stages, pending)
                stages.append(self.open_stage(node, line, stages))
            elif not stages:
                self.error("content before the first stage heading", line,
                           "start the lesson body with '# Understand'")
            elif node.type == "heading" and node.tag == "h2":
                self.flush_prose(stages, pending)
                title = node.children[0].content
                stages[-1].items.append(Section(title, self.anchor(title), line))
            elif node.type == "colon_fence":
                self.flush_prose(stages, pending)
                block = self.read_block(node, 0)
                if block:
                    self.place_block(block, stages[-1])
            else:
                pending.append(node)
        self.flush_prose(stages, pending)
        found = [stage.title for stage in stages]
        if found != list(STAGES.values()) and not self.errors:
            missing = [title for title in STAGES.values() if title not in found]
            self.error(f"the lesson needs all five stages; missing: {', '.join(missing)}",
                       len(self.lines), "add the '# Stage' headings in the order of docs/authoring.md")
        return stages

    def open_stage(self, node: SyntaxTreeNode, line: int, stages: list[Stage]) -> Stage:
        title = node.children[0].content.strip()
        key = _STAGE_KEYS.get(title)
        expected = list(STAGES.values())[len(stages)] if len(stages) < len(STAGES) else None
        if key is None:
            self.error(f"unknown stage '{title}'{did_you_mean(title, list(_STAGE_KEYS))}", line,
                       "stages are: " + ", ".join(STAGES.values()))
        elif title != expected:
            self.error(f"stage '{title}' is out of order; expected '{expected}' here", line,
                       "stages come in this order: " + ", ".join(STAGES.values()))
        self.anchors.add(key or slugify(title))
        return Stage(key or slugify(title), title, line)

    def flush_prose(self, stages: list[Stage], pending: list[SyntaxTreeNode]) -> None:
        if pending and stages:
            stages[-1].items.append(self.prose_from(pending, 0))
        pending.clear()

    def prose_from(self, nodes: list[SyntaxTreeNode], offset: int) -> Prose:
        start = offset + nodes[0].map[0]
        end = offset + nodes[-1].map[1]
        for node in nodes:
            self.check_closed(node, offset)
        prose = Prose("\n".join(self.lines[start:end]), start + 1)
        self.scanparse_nodes(nodes, offset)
        return prose

    def scan_prose(self, markdown: str, line: int) -> None:
        """scan_nodes for text that has not been parsed yet (block options, guides)."""
        self.scanparse_nodes(parse_nodes(markdown), line - 1)

    def scanparse_nodes(self, nodes: list[SyntaxTreeNode], offset: int) -> None:
        """Collect lesson links and h3 anchors; check math now so rendering cannot fail.

        `offset` turns the nodes' 0-based line maps into file lines.
        """
        for top in nodes:
            at = offset + top.map[0] + 1
            for node in top.walk():
                if node.map:
                    at = offset + node.map[0] + 1
                if node.type in ("math_block", "math_inline", "math_inline_double"):
                    self.check_math(node.content, at, display=node.type == "math_block")
                elif node.type == "live_value":
                    self.add_value(node.content, at)
                elif node.type == "heading" and node.tag == "h3":
                    self.anchors.add(slugify(node.children[0].content))
                elif node.type == "link" and str(node.attrs.get("href", "")).startswith("lesson:"):
                    slug, _, anchor = str(node.attrs["href"])[len("lesson:"):].partition("#")
                    self.links.append(LessonLink(slug, anchor or None, at))

    def add_value(self, expression: str, line: int) -> None:
        try:
            compile(expression, str(self.path), "eval")
        except SyntaxError as problem:
            self.error(f"live value `{expression}` is not a Python expression: {problem.msg}",
                       line, "write {value}`expression`, e.g. {value}`len(ids)`")
            return
        self.values.append(LiveValue(expression, line))

    def check_math(self, latex: str, line: int, display: bool) -> None:
        try:
            math_to_mathml(latex, display)
        except UnsafeMath as problem:
            self.error(f"math '{latex.strip()}' cannot go on a page: {problem}", line,
                       "math carries no links, styles or classes: put a link in the prose "
                       "around the formula, and use \\color for colour")
        except Exception as problem:  # latex2mathml raises many exception types
            self.error(f"cannot render math '{latex.strip()}': {problem}", line,
                       "use LaTeX that MathML supports (see docs/authoring.md)")

    def check_closed(self, node: SyntaxTreeNode, offset: int) -> bool:
        if node.type not in ("fence", "colon_fence"):
            return True
        last = self.lines[offset + node.map[1] - 1].strip()
        if node.map[1] - node.map[0] >= 2 and last.startswith(node.markup) \
                and set(last) == set(node.markup[0]):
            return True
        what = "code block" if node.type == "fence" else "block"
        self.error(f"unclosed {what} opened with '{node.markup}'", offset + node.map[0] + 1,
                   f"close it with a line of '{node.markup}'")
        return False

    # -- blocks ------------------------------------------------------------------------

    def read_block(self, node: SyntaxTreeNode, offset: int) -> RawBlock | None:
        line = offset + node.map[0] + 1
        if not self.check_closed(node, offset):
            return None
        match = _BLOCK_RE.match(node.info.strip())
        kind = match.group(1) if match else node.info.strip()
        if not match or (kind not in BLOCKS and kind not in SUB_BLOCKS):
            known = list(BLOCKS) + list(SUB_BLOCKS)
            self.error(f"unknown block '{node.info.strip()}'{did_you_mean(kind, known)}", line,
                       "blocks are: " + ", ".join("{%s}" % k for k in known))
            return None
        body_start = offset + node.map[0] + 1
        body = self.lines[body_start:offset + node.map[1] - 1]
        options, skipped = self.read_options(kind, body, body_start)
        parts = self.read_parts(body_start + skipped, body[skipped:])
        return RawBlock(kind, match.group(2).strip(), line, options, parts)

    def read_options(self, kind: str, body: list[str], start: int) -> tuple[dict[str, str], int]:
        spec = BLOCKS.get(kind, BlockSpec(()))
        options: dict[str, str] = {}
        count = 0
        for count, text in enumerate(body + [""]):
            match = _OPTION_RE.match(text)
            if not match:
                break
            name, value = match.group(1), match.group(2).strip()
            if name not in spec.options:
                allowed = ", ".join(spec.options) or "none"
                self.error(f"unknown option ':{name}:' for {{{kind}}}"
                           f"{did_you_mean(name, spec.options)}", start + count + 1,
                           f"options of {{{kind}}}: {allowed}")
            options[name] = value
            if name not in ("kind", "raises"):
                self.scan_prose(value, start + count + 1)
        return options, count

    def read_parts(self, start: int, body: list[str]) -> list[Part]:
        parts: list[Part] = []
        pending: list[SyntaxTreeNode] = []

        def flush() -> None:
            if pending:
                prose = self.prose_from(pending, start)
                parts.append(Part("prose", prose.line, prose=prose))
                pending.clear()

        for node in parse_nodes("\n".join(body)):
            line = start + node.map[0] + 1
            if node.type == "fence" and node.info.split()[:1] == ["python"]:
                flush()
                if self.check_closed(node, start):
                    code = Code(node.content, line + 1)
                    parts.append(Part("code", line, code=code, info=node.info.strip()))
            elif node.type == "colon_fence":
                flush()
                block = self.read_block(node, start)
                if block:
                    parts.append(Part("block", line, block=block))
            elif node.type == "heading":
                self.error("headings cannot go inside a block", line,
                           "end the block with its closing ':::' line before the heading")
            else:
                pending.append(node)
        flush()
        return parts

    def place_block(self, raw: RawBlock, stage: Stage) -> None:
        if raw.kind in SUB_BLOCKS:
            self.error(f"{{{raw.kind}}} only goes inside a {{{SUB_BLOCKS[raw.kind]}}} block",
                       raw.line, f"move it into the {{{SUB_BLOCKS[raw.kind]}}} block it belongs to")
            return
        spec = BLOCKS[raw.kind]
        if spec.stages and stage.key not in spec.stages:
            wanted = " or ".join(STAGES[key] for key in spec.stages)
            self.error(f"{{{raw.kind}}} belongs in the '{wanted}' stage, not '{stage.title}'",
                       raw.line, f"move the block below the '# {wanted}' heading")
        for name in spec.required:
            if not raw.options.get(name):
                self.error(f"{{{raw.kind}}} needs the option ':{name}:'", raw.line,
                           f"add a line ':{name}: ...' right after the opening line")
        if spec.titled and not raw.title:
            self.error(f"{{{raw.kind}}} needs a title after '{{{raw.kind}}}'", raw.line,
                       f"write ':::{{{raw.kind}}} A title' on the opening line")
        if not spec.titled and raw.title:
            self.error(f"{{{raw.kind}}} takes no title", raw.line,
                       f"open it with ':::{{{raw.kind}}}' alone and put the text in its body")
        item = BUILDERS[raw.kind](self, raw)
        if item is not None:
            stage.items.append(item)

    def code_part(self, raw: RawBlock, info: str = "python") -> Code | None:
        found = [part for part in raw.parts if part.kind == "code" and part.info == info]
        if len(found) != 1:
            self.error(f"{{{raw.kind}}} needs exactly one ```{info} block, found {len(found)}",
                       raw.line, "code in other languages is shown, only ```python runs; "
                       "split long code over several blocks")
            return None
        code = found[0].code
        self.check_compiles(code)
        return Code(code.source, code.line, raw.options.get("raises") or None)

    def check_compiles(self, code: Code) -> None:
        try:
            compile("\n" * (code.line - 1) + code.source, str(self.path), "exec")
        except SyntaxError as problem:
            self.error(f"Python syntax error: {problem.msg}", problem.lineno,
                       "fix the code; scaffolds must compile too (use ... for the gaps)")

    def prose_around(self, raw: RawBlock, anchor_part: Part | None) -> tuple[Prose | None, Prose | None]:
        """The prose before and after a block's code, each merged into one Prose."""
        if anchor_part is None:
            return None, None
        index = raw.parts.index(anchor_part)
        before = [p.prose for p in raw.parts[:index] if p.kind == "prose"]
        after = [p.prose for p in raw.parts[index + 1:] if p.kind == "prose"]
        return merge_prose(before), merge_prose(after)

    def sub_block(self, raw: RawBlock, kind: str, required: bool) -> Prose | None:
        found = [p.block for p in raw.parts if p.kind == "block" and p.block.kind == kind]
        for part in raw.parts:
            if part.kind == "block" and part.block.kind not in SUB_BLOCKS:
                self.error(f"{{{part.block.kind}}} cannot go inside {{{raw.kind}}}", part.line,
                           "close the outer block before opening this one")
        if not found:
            if required:
                self.error(f"{{{raw.kind}}} needs a :::{{{kind}}} block", raw.line,
                           f"add ':::{{{kind}}}' ... ':::' inside it, and give the outer block "
                           "one more colon than the inner one")
            return None
        return merge_prose([p.prose for p in found[0].parts if p.kind == "prose"]) or \
            Prose("", found[0].line)


def split_front_matter(text: str, path: Path) -> tuple[str, int]:
    """The YAML between the opening '---' lines and the number of lines it spans."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise BuildErrors([BuildError("the lesson must start with front matter ('---' line)",
                                      path, 1, hint="see docs/authoring.md, 'Front matter'")])
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "\n".join(lines[1:index]), index + 1
    raise BuildErrors([BuildError("front matter is not closed", path, 1,
                                  hint="end it with a line containing only '---'")])


def parse_lesson(ref: LessonRef, data: bytes | None = None) -> Lesson:
    """Read and validate one lesson file (`data` when it was already read); raise
    BuildErrors listing every problem."""
    path = ref.source
    data = path.read_bytes() if data is None else data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as problem:
        line = data[:problem.start].count(b"\n") + 1
        raise BuildErrors([BuildError(f"not UTF-8 text ({problem.reason})", path, line,
                                      hint="save the file as UTF-8")]) from None
    front_text, front_lines = split_front_matter(text, path)
    front, root = load_yaml_model(front_text, FrontMatter, path, first_line=2)
    # Blank out the front matter so that token line numbers are file line numbers.
    lines = [""] * front_lines + text.splitlines()[front_lines:]
    parser = LessonParser(path, lines)
    for index, pattern in enumerate(front.volatile):
        try:
            re.compile(pattern)
        except re.error as problem:
            parser.error(f"volatile pattern {pattern!r} is not a regular expression: {problem}",
                         _front_line(root, ("volatile", index)),
                         "see 'volatile' in docs/authoring.md")
    parser.errors.extend(missing_data_files(path, text, front))
    if front.prerequisite and front.prerequisite.startswith("lesson:"):
        parser.links.append(LessonLink(front.prerequisite[len("lesson:"):], None,
                                       _front_line(root, ("prerequisite",))))
    stages = parser.parse_stages()
    _check_step_numbers(parser, stages)
    if parser.errors:
        raise BuildErrors(parser.errors)
    return Lesson(ref, path, text, front, stages, frozenset(parser.anchors), parser.links,
                  parser.values)


def missing_data_files(path: Path, text: str, front: FrontMatter) -> list[BuildError]:
    """The files the front matter declares that are not beside the lesson file."""
    missing = [(index, name) for index, name in enumerate(front.files)
               if not (path.parent / name).is_file()]
    if not missing:
        return []
    # Only now read the YAML's lines: a cached lesson keeps its text, not its node tree.
    root = node_tree(split_front_matter(text, path)[0])
    return [BuildError(f"data file '{name}' not found", path, _front_line(root, ("files", index)),
                       hint="files are relative to the folder of the lesson file")
            for index, name in missing]


def _front_line(root: yaml.Node, loc: tuple) -> int:
    """The file line of the front-matter value at `loc` (front matter starts on line 2)."""
    return line_at(root, loc, first_line=2)


def _check_step_numbers(parser: LessonParser, stages: list[Stage]) -> None:
    steps = [item for stage in stages for item in stage.items if isinstance(item, Step)]
    if not steps and not parser.errors:  # so every stage is there, Build & Run among them
        build_run = next(stage for stage in stages if stage.key == "build-run")
        parser.error("the lesson has no {step} blocks", build_run.line,
                     "the Build & Run stage needs at least ':::{step} 1. Title'")
    for expected, step in enumerate(steps, start=1):
        if step.number != expected:
            parser.error(f"step numbering gap: expected step {expected}, found {step.number}",
                         step.line, "number steps 1, 2, 3, ... in order")
            break


def parse_guide(path: Path) -> tuple[Prose, list[LessonLink]]:
    """A phase study guide: plain Markdown whose math and lesson links are checked."""
    text = path.read_text(encoding="utf-8")
    parser = LessonParser(path, text.splitlines())
    parser.scan_prose(text, 1)
    for value in parser.values:
        parser.error(f"live value `{value.expression}` in a phase guide", value.line,
                     "live values belong in lessons, whose code computes them")
    if parser.errors:
        raise BuildErrors(parser.errors)
    return Prose(text, 1), parser.links
