"""The MyST and HTML pieces of lesson prose, checked while the parse stage scans it.

Roles, `(label)=` targets, images, footnotes, raw HTML and `+++` cell breaks: each is
either kept for a later stage (links to check, images to copy) or refused with its line,
so that nothing an author wrote vanishes or shows as stray text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from markdown_it.tree import SyntaxTreeNode

from coursesite.blocks.registry import BlockContext
from coursesite.errors import did_you_mean
from coursesite.lesson.model import LabelRef, LessonLink
from coursesite.markup.myst import API_ROLES, KNOWN_ROLES, LABEL, role_kind, split_role_text

BLOCK_RE = re.compile(r"^\{([A-Za-z-]+)\}\s*(.*)$")
# A footnote reference that found no definition stays text: `[^label]`.
_LOOSE_FOOTNOTE = re.compile(r"\[\^([^\]\s]+)\]")


def _unescaped(mark: str, written: str) -> bool:
    """Whether `written` has `mark` (`[^1]`) as a mark, not escaped as text (`\\[^1]`)."""
    return re.search(r"(?<!\\)" + re.escape(mark), written) is not None


def walk_with_lines(
    nodes: list[SyntaxTreeNode], offset: int
) -> Iterator[tuple[SyntaxTreeNode, int]]:
    """Every node below `nodes` with the file line it is on: its own line map's, or for
    inline nodes, which have none, the enclosing node's first line plus the line breaks
    before them (a live value on a paragraph's third line is on that line). `offset`
    turns the nodes' 0-based line maps into file lines."""
    for top in nodes:
        assert top.map is not None  # block-level nodes carry their lines
        at = offset + top.map[0] + 1
        for node in top.walk():
            if node.map:
                at = offset + node.map[0] + 1
            yield node, at
            if node.type in ("softbreak", "hardbreak"):
                at += 1
            elif node.type in _KEEPS_NEWLINES:
                at += node.content.count("\n")


# Inline nodes whose content keeps the line breaks it spans (a code span's become spaces).
_KEEPS_NEWLINES = {"math_inline", "math_inline_double", "html_inline", "text"}


def is_block(node: SyntaxTreeNode) -> bool:
    """A block: a colon fence, or a MyST directive in backticks (```{note})."""
    return node.type == "colon_fence" or (
        node.type == "fence" and node.info.strip().startswith("{")
    )


class MystScanner:
    """The part of the lesson parser (parse.LessonParser) that reads MyST; the parser
    holds these attributes."""

    anchors: set[str]
    links: list[LessonLink]
    targets: dict[str, int]  # label -> line
    target_titles: dict[str, str]
    label_refs: list[LabelRef]
    context: BlockContext

    def error(self, message: str, line: int | None, hint: str) -> None:
        self.context.error(message, line, hint)

    def prose_error(self, message: str, line: int | None, hint: str) -> None:
        self.context.prose_error(message, line, hint)

    def scan_myst(self, node: SyntaxTreeNode, at: int) -> None:
        """The MyST and HTML pieces of prose: roles, targets, images, comments, breaks."""
        if node.type == "myst_role":
            self.add_role(node.meta["name"], node.content, at)
        elif node.type == "myst_target":
            self.add_target(node.content, at)
        elif node.type == "image":
            alt = "".join(child.content for child in node.walk() if child is not node)
            self.context.image(str(node.attrs.get("src", "")), alt, at)
        elif node.type in ("html_block", "html_inline"):
            self.check_html(node.content, at)
        elif node.type == "myst_block_break":
            self.prose_error(
                "'+++' is a notebook cell break, which a lesson page has no use for",
                at,
                "remove the line; start a section with a '##' heading if you meant one",
            )
        elif is_block(node):
            self.error(
                f"a block ('{node.markup}{node.info.strip()}') cannot go here",
                at,
                "blocks go at the top level of a stage (not in a list or a quote), "
                "and not in phase guides",
            )

    def check_html(self, html: str, line: int) -> None:
        text = html.strip()
        if text.startswith("<!--") or text.startswith("</"):
            return  # comments are dropped; a closing tag was reported with its opening
        self.prose_error(
            f"raw HTML '{text.splitlines()[0][:40]}' in lesson Markdown",
            line,
            "write Markdown instead (emphasis, lists, tables, a {note} block); pages show "
            "only what Markdown and the templates make. HTML comments <!-- --> are dropped",
        )

    def check_math(self, latex: str, line: int, display: bool) -> None:
        raise NotImplementedError  # the lesson parser's (parse.LessonParser)

    def add_role(self, name: str, content: str, line: int) -> None:
        name = role_kind(name)
        if name not in KNOWN_ROLES:
            self.prose_error(
                f"unknown role '{{{name}}}'{did_you_mean(name, KNOWN_ROLES)}",
                line,
                "roles are: "
                + ", ".join(f"{{{known}}}" for known in KNOWN_ROLES)
                + " (the API roles also as {py:class} and so on); for plain code write "
                "`code`, for math $...$",
            )
        elif name == "math":
            self.check_math(content, line, False)
        elif name == "value":  # what the live-value rule took is not a role token
            self.prose_error(
                "{value} needs one expression between single backticks",
                line,
                "write {value}`len(ids)`; the expression may not contain a backtick",
            )
        elif name == "ref":
            text, label = split_role_text(content)
            self.label_refs.append(LabelRef(label, line, text is not None))
        elif name == "doc":
            slug = split_role_text(content)[1]
            self.links.append(LessonLink(slug, None, line))
        elif name in API_ROLES and not content.strip().lstrip("~"):
            self.prose_error(f"{{{name}}} names nothing", line, f"write {{{name}}}`package.name`")

    def add_target(self, label: str, line: int) -> None:
        if not LABEL.match(label):
            self.prose_error(
                f"target label '{label}' is not a plain name",
                line,
                "use letters, digits, '-', '_', '.' or ':', e.g. (batch-sizes)=",
            )
        elif label in self.targets:
            self.prose_error(
                f"duplicate target label '{label}' (first at line {self.targets[label]})",
                line,
                "labels name one place in the course: rename one of them",
            )
        elif label in self.anchors:
            self.prose_error(
                f"target label '{label}' is already an anchor of this page",
                line,
                "choose another label: headings and blocks take their anchors from titles",
            )
        else:
            self.targets[label] = line
            self.anchors.add(label)

    def title_targets(self, nodes: list[SyntaxTreeNode]) -> None:
        """A target's title, which `{ref}` shows: the heading or block title after it."""
        for target, after in itertools.pairwise(nodes):
            if target.type != "myst_target":
                continue
            if after.type == "heading":
                self.target_titles[target.content] = after.children[0].content
            elif is_block(after) and (match := BLOCK_RE.match(after.info.strip())):
                self.target_titles[target.content] = match.group(2).strip()

    def check_footnotes(self, nodes: list[SyntaxTreeNode], offset: int) -> None:
        """Each footnote and its references in one prose: the page renders them together."""
        refs: dict[str, int] = {}
        definitions: dict[str, int] = {}
        written = ""  # the inline source the text is of: an escaped mark `\[^1]` is text
        for node, at in walk_with_lines(nodes, offset):
            if node.type == "inline":
                written = node.content
            elif node.type == "footnote_ref":
                refs.setdefault(node.meta["label"], at)
            elif node.type == "footnote_reference":
                definitions.setdefault(node.meta["label"], at)
            elif node.type == "text":
                for match in _LOOSE_FOOTNOTE.finditer(node.content):
                    if _unescaped(match.group(0), written):
                        refs.setdefault(match.group(1), at)
        for label, line in refs.items():
            if label not in definitions:
                self.prose_error(
                    f"footnote [^{label}] has no definition in its section",
                    line,
                    f"write '[^{label}]: the note' in the same section as the reference "
                    "(between the same headings and blocks)",
                )
        for label, line in definitions.items():
            if label not in refs:
                self.prose_error(
                    f"footnote [^{label}] is not referred to in its section",
                    line,
                    f"refer to it with [^{label}] in the same section, or remove it",
                )
