"""The words an imported lesson is labelled with: its summary, and its steps' titles.

Readers see them first (under the title, on the phase page, in "On this page"), so they
are prose, never Markdown's machinery: a target label `(name)=`, a MyST comment, an HTML
comment or a badge is never a summary, and a step is never just "Step 3". A step with no
heading right above it is titled from the sentence that leads into it, or else from what
its code does first.
"""

from __future__ import annotations

import ast
import re

from coursesite.markup.markdown import plain_text

# Lines of a paragraph that are not prose: a MyST target, a MyST or HTML comment, a break.
_MACHINERY = re.compile(r"^\s*(?:\([^)\n]+\)=\s*$|%|<!--.*-->\s*$|\+\+\+)")
# An image, or a badge (an image inside a link): nothing a sentence can be made of.
_PICTURES = re.compile(r"\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)")
# Links alone (an "Open in Colab" line) say nothing a summary or a title could use.
_LINKS = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)")
_NOT_PARAGRAPHS = ("#", "```", "~~~", ":::", "|", "-", "*", "$$", ">")
TITLE_WORDS = 8


def paragraphs(text: str) -> list[str]:
    """The prose paragraphs of `text`, each on one line, machinery and pictures left out."""
    found = []
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not _MACHINERY.match(line)]
        paragraph = " ".join(_PICTURES.sub("", " ".join(lines)).split())
        words = _LINKS.sub("", paragraph).strip(" .,;:|·-")
        if paragraph and words and not paragraph.startswith(_NOT_PARAGRAPHS):
            found.append(paragraph)
    return found


def first_sentence(paragraph: str) -> str:
    return re.split(r"(?<=[.!?])\s", paragraph, maxsplit=1)[0]


SUMMARY_LENGTH = 160


def summary_of(texts: list[str]) -> str:
    """The first sentence of the first prose paragraph, at most 160 characters: a longer
    one is cut after its last whole word (or code span, or formula) that fits."""
    for text in texts:
        for paragraph in paragraphs(text):
            sentence = first_sentence(paragraph)
            return sentence if len(sentence) <= SUMMARY_LENGTH else _cut(sentence)
    return ""


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
    if leading:
        words = _words(plain_text(first_sentence(leading[-1]), keep_code=True).rstrip(".:;!?"))
        if words:
            shown = " ".join(words[:TITLE_WORDS])
            return shown + ("…" if len(words) > TITLE_WORDS else "")
    return _what_code_does(code)


def _words(markdown: str) -> list[str]:
    """Words, a code span or formula counting as one: a title cut after some of them
    never cuts one in half."""
    return re.findall(r"`[^`]*`|\$[^$]*\$|\S+", markdown)


def _what_code_does(code: str) -> str:
    # The cell as the notebook had it: `display(x)` says more than the print it became.
    python = "\n".join(
        line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))
    )
    try:
        statements = ast.parse(python).body
    except SyntaxError:
        return "Run the code"
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return f"Define {statement.name}"
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names = [ast.unparse(target) for target in targets]
            return f"Compute {', '.join(names)}"[:60]
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            function = ast.unparse(call.func)
            if function in ("print", "display") and call.args:
                return f"Show {', '.join(ast.unparse(a) for a in call.args)}"[:60]
            return f"Call {function}"[:60]
    modules = [
        alias.name if isinstance(s, ast.Import) else s.module or "."
        for s in statements
        if isinstance(s, (ast.Import, ast.ImportFrom))
        for alias in (s.names if isinstance(s, ast.Import) else s.names[:1])
    ]
    return f"Import {', '.join(dict.fromkeys(modules))}"[:60] if modules else "Run the code"
