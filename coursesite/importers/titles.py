"""The words an imported lesson is labelled with: its summary, and its steps' titles.

Readers see them first (under the title, on the phase page, in "On this page"), so they
are prose, never Markdown's machinery: a target label `(name)=`, a MyST comment, an HTML
comment, a footnote or link definition, a heading or a badge is never a summary or a step
title, and a step is never just "Step 3". A step with no heading right above it is titled
from the sentence that leads into it, or else from what its code does first. A heading's
own numbering ("1. Automatic parallelism") goes: the page numbers steps itself.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from coursesite.importers.notebookcells import Cell
from coursesite.markup.markdown import parse_nodes, plain_text
from coursesite.markup.myst import LIST_MARKER, ROLE_SOURCE, role_kind, split_role_text

# Lines of a paragraph that are not prose: a MyST target, a MyST or HTML comment, a break,
# a heading (a paragraph may follow it on the next line).
_MACHINERY = re.compile(r"^\s*(?:\([^)\n]+\)=\s*$|%|<!--.*-->\s*$|\+\+\+|#{1,6}(?:\s|$))")
# A footnote's or a link's definition (`[^note]: ...`, `[name]: https://...`) opens a block
# that is no prose of the text around it, however many lines it has.
_FOOTNOTE_OR_LINK = re.compile(r"^\s{0,3}\[[^\]\n]+\]:")
# A block that opens four spaces in is code (or a list's continuation): no sentence of
# the prose (nbconvert's Markdown keeps a cell's output so).
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")
# A footnote's mark (`code[^1]`): its note is the section's, not a title's.
_FOOTNOTE_REFERENCE = re.compile(r"\[\^[^\]\n]+\]")
# A link in a heading: a title shows its text (a title is a link itself, in the sidebar).
_LINK_TEXT = re.compile(r"(?<!!)\[([^\]\n]*)\]\([^)\n]*\)")
# A heading's own numbering: "1. ", "2) ", "3.1 ", "Step 4: ", "Part 2 - ".
_NUMBERING = re.compile(
    r"^(?:(?:step|part|section)\s+\d+[.):]?|\d+(?:\.\d+)*[.):]|\d+(?:\.\d+)+|\d+\s+[-:\u2013\u2014])\s+",
    re.I,
)
# An image, or a badge (an image inside a link): nothing a sentence can be made of.
_PICTURES = re.compile(r"\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)")
# Links alone (an "Open in Colab" line) say nothing a summary or a title could use.
_LINKS = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)")
_NOT_PARAGRAPHS = ("#", "```", "~~~", ":::", "|", "-", "*", "+", "$$", ">")
# A list item's marker: a list is no paragraph of a summary, but its first item may title
# the step it leads into ("Here, we:\n\n1. Set up a model. ...").
_LIST_ITEM = re.compile(r"^\s{0,3}" + LIST_MARKER + r"\s+")
_NUMBERED_ITEM = re.compile(r"^\s{0,3}\d{1,9}[.)]\s+")
# A reference-style link (`[jupyter-cache]`, `[text][label]`): its definition is elsewhere
# in the notebook, so where a summary or a title is shown alone it would read as brackets.
_REFERENCE_LINK = re.compile(
    r"(?<![\w\])!`$\\])\[([^\]\n^]*[A-Za-z][^\]\n]*)\](?:\[[^\]\n]*\])?(?![(:\[])"
)
# A copyright and licence notice a notebook opens with ("Copyright 2023 Google LLC" and
# the Apache License's paragraphs; TensorFlow's "##### Copyright 2019 The TensorFlow
# Authors." over a cell of `#@title Licensed under ...` comments) is no prose of its own:
# neither its title's nor its summary's. It stays in the lesson, where it was.
_COPYRIGHT = re.compile(r"^\s*(?:#{1,6}\s+|#@title\s+)?(?:copyright\b|©)", re.I)
_LICENCE = re.compile(r"\blicen[cs]e|all rights reserved", re.I)
TITLE_WORDS = 8


def paragraphs(text: str) -> list[str]:
    """The prose paragraphs of `text`, each on one line, machinery and pictures left out."""
    found = []
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not _MACHINERY.match(line)]
        if lines and (_FOOTNOTE_OR_LINK.match(lines[0]) or _INDENTED_CODE.match(lines[0])):
            continue
        paragraph = " ".join(_PICTURES.sub("", " ".join(lines)).split())
        paragraph = _REFERENCE_LINK.sub(r"\1", paragraph)
        words = _LINKS.sub("", paragraph).strip(" .,;:|·-")
        if words and not paragraph.startswith(_NOT_PARAGRAPHS) and not _LIST_ITEM.match(paragraph):
            found.append(paragraph)
    return found


def first_list_item(text: str) -> str:
    """The text of the first item of the numbered list `text` ends with (the steps the
    code takes, in order), or '' when its last block is no numbered list."""
    blocks = [block for block in text.split("\n\n") if block.strip()]
    if not blocks or not _NUMBERED_ITEM.match(blocks[-1]):
        return ""
    item = blocks[-1].split("\n")[0]
    return _REFERENCE_LINK.sub(r"\1", _NUMBERED_ITEM.sub("", item, count=1)).strip()


def first_sentence(paragraph: str) -> str:
    return re.split(r"(?<=[.!?])\s", paragraph, maxsplit=1)[0]


def heading_title(heading: str) -> str:
    """A heading as a title: without its own numbering, a footnote's mark, or a closing
    period."""
    heading = _LINK_TEXT.sub(r"\1", _FOOTNOTE_REFERENCE.sub("", heading))
    heading = ROLE_SOURCE.sub(_role_text, heading).strip()
    text = _NUMBERING.sub("", heading, count=1) or heading
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


def _role_text(role: re.Match[str]) -> str:
    """A role in a heading as the words it shows (`{index}`Matplotlib <single: ...>``,
    `{ref}`the model <model>``), math kept: a title is text, never MyST."""
    if role_kind(role.group(1)) == "math":
        return role.group(0)
    text, target = split_role_text(role.group(2))
    return text or target


SUMMARY_LENGTH = 160


def licence_notice(cell: Cell) -> bool:
    """Whether a cell is a copyright or licence notice alone: Markdown that opens with a
    copyright line, or code that is only comments naming a licence."""
    lines = [line for line in cell.source.splitlines() if line.strip()]
    if not lines:
        return False
    if cell.kind == "code":
        return all(line.lstrip().startswith("#") for line in lines) and bool(
            _LICENCE.search(cell.source)
        )
    return bool(_COPYRIGHT.match(lines[0]))


def summary_of(texts: list[str]) -> str:
    """The first sentence of the first prose paragraph that says something (four words or
    more, not a lead-in ending with a colon; else the first sentence there is), its links
    reduced to their text, at most 160 characters: a longer one is cut after its last whole
    word (or code span, or formula) that fits."""
    sentences = [
        _FOOTNOTE_REFERENCE.sub("", first_sentence(p)) for text in texts for p in paragraphs(text)
    ]
    chosen = next((s for s in sentences if _says_something(s)), sentences[0] if sentences else "")
    # Its links' text alone: a summary is shown inside links too (a phase page's list).
    chosen = _LINK_TEXT.sub(r"\1", chosen)
    return chosen if len(chosen) <= SUMMARY_LENGTH else _cut(chosen)


def _says_something(sentence: str) -> bool:
    """Four words or more, not a lead-in (ending with a colon) nor the rest of a sentence
    that a formula broke ("where $f$ is ...")."""
    words = plain_text(_LINKS.sub("", sentence), keep_code=True).split()
    return len(words) >= 4 and not sentence.rstrip().endswith(":") and not sentence[:1].islower()


def _cut(sentence: str) -> str:
    kept = ""
    for word in _words(sentence):
        if len(kept) + len(word) + 2 > SUMMARY_LENGTH:  # a space before it, "…" after
            break
        kept = f"{kept} {word}" if kept else word
    return kept.rstrip(",;:-—(") + "…"


def step_title(prose_before: str, code: str) -> str:
    """A title for a step with no heading of its own."""
    leading = paragraphs(prose_before)
    if item := first_list_item(prose_before):  # the lead-in lists what the step does
        leading.append(item)
    if leading:
        sentence = _FOOTNOTE_REFERENCE.sub("", first_sentence(leading[-1]))
        words = _words(plain_text(sentence, keep_code=True).rstrip(".:;!?"))
        if words:
            shown = " ".join(words[:TITLE_WORDS])
            return shown + ("…" if len(words) > TITLE_WORDS else "")
    return _what_code_does(code)


def _words(markdown: str) -> list[str]:
    """Words, a code span, formula or link counting as one: a title cut after some of them
    never cuts one in half (nor leaves a link's bracket open)."""
    return re.findall(r"`[^`]*`|\$[^$]*\$|!?\[[^\]\n]*\]\([^)\n]*\)\S*|\S+", markdown)


def _what_code_does(code: str) -> str:
    # The cell as the notebook had it: `display(x)` says more than the print it became.
    python = "\n".join(
        line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))
    )
    try:
        statements = ast.parse(python).body
    except SyntaxError:
        return "Run the code"
    return _what_statements_do(statements) or "Run the code"


def _what_statements_do(statements: list[ast.stmt]) -> str:
    """What the first telling statement does; a loop or `with` says what it goes over, or
    else what its body does; "" when nothing tells."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return f"Define {statement.name}"
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names = [ast.unparse(target) for target in targets]
            return _short(f"Compute {', '.join(names)}")
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            function = ast.unparse(call.func)
            if function in ("print", "display") and call.args:
                return _short(f"Show {', '.join(ast.unparse(a) for a in call.args)}")
            return _short(f"Call {function}")
        if isinstance(statement, ast.Expr) and not isinstance(statement.value, ast.Constant):
            return _short(f"Show {ast.unparse(statement.value)}")
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            return _short(f"Loop over {ast.unparse(statement.iter)}")
        blocks = (ast.With, ast.AsyncWith, ast.If, ast.While, ast.Try)
        if isinstance(statement, blocks) and (inner := _what_statements_do(statement.body)):
            return inner
    modules = [
        alias.name if isinstance(s, ast.Import) else s.module or "."
        for s in statements
        if isinstance(s, (ast.Import, ast.ImportFrom))
        for alias in (s.names if isinstance(s, ast.Import) else s.names[:1])
    ]
    return _short(f"Import {', '.join(dict.fromkeys(modules))}") if modules else ""


def _short(title: str, length: int = 60) -> str:
    """`title`, or as much of it as fits in `length` characters, cut after a whole word
    (a name, a comma) with "…"."""
    if len(title) <= length:
        return title
    cut = title[: length - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",") + "…"


def headings(source: str) -> list[tuple[range, int, str]]:
    """(its lines, level, text) of every heading, as the build's own parser reads `source`
    (markup/markdown.py), so that what the import rewrites as a heading is what the page
    shows as one: `Title` over `=====` is one, but a `#` comment in a code fence is not, nor
    a line of `=` between two matrices of `$$` display math or in a `:::{math}` block (plain
    CommonMark, which has no math, takes that line for a setext heading's underline)."""
    found = []
    for top in parse_nodes(source):
        for node in top.walk():
            if node.type == "heading" and node.map:
                text = node.children[0].content if node.children else ""
                found.append((range(*node.map), int(node.tag[1]), " ".join(text.split())))
    return found


@dataclass(frozen=True)
class TitleHeading:
    """The heading a notebook's title comes from: in which cell, on which lines."""

    cell: int
    lines: range
    level: int
    text: str  # as the heading has it; the title is heading_title(text)


def title_heading(cells: list[Cell]) -> TitleHeading | None:
    """The first level-1 heading of the first Markdown cell; else the first heading of the
    notebook's highest level that comes before any prose or code (a label, a comment, a
    badge or a licence notice may come first: `(intro)=` over `## Introduction`)."""
    prose = [c.kind == "markdown" and not licence_notice(c) for c in cells]
    found = [(n, h) for n, c in enumerate(cells) if prose[n] for h in headings(c.source)]
    if not found:
        return None
    top = min(level for _, (_, level, _) in found)
    first_markdown = prose.index(True)
    for lines, level, text in headings(cells[first_markdown].source):
        if level == 1:
            return TitleHeading(first_markdown, lines, level, text)
    for number, cell in enumerate(cells):
        if licence_notice(cell):
            continue
        if cell.kind != "markdown":
            return None
        source = cell.source.splitlines()
        found_here = headings(cell.source)
        for lines, level, text in found_here:
            if paragraphs("\n".join(source[: lines.start])):
                return None
            if level == top:
                return TitleHeading(number, lines, level, text)
        # A setext heading (`Part I` over `---`) is lines paragraphs() would read as prose.
        for lines, _, _ in found_here:
            source[lines.start : lines.stop] = [""] * len(lines)
        if paragraphs("\n".join(source)):
            return None
    return None


def notebook_title(cells: list[Cell], fallback: str) -> str:
    """The title of title_heading() (its own numbering and closing period left out), or
    else `fallback` (the file's name) with a capital."""
    found = title_heading(cells)
    if found and heading_title(found.text):
        return heading_title(found.text)
    return fallback[:1].upper() + fallback[1:]
