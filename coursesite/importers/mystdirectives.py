"""An imported notebook's MyST directives, each one a block the build knows, or settled.

A tutorial uses directives of Sphinx, MyST and their extensions that lessons lack. The
import checks every directive's name against the build's own list (the block registry,
with the kinds plugins add), keeps those it finds, with the options their kind takes, and
settles the others, each with a line of the report saying what happened and what to do:

- navigation (`{toctree}`, `{contents}`, `{tableofcontents}`) is left out;
- `{versionadded}`, `{versionchanged}`, `{deprecated}` become a note (a warning), titled
  with the version; admonitions lessons lack (`{hint}`, `{danger}`, `{margin}`,
  `{dropdown}`, ...) the closest one lessons have;
- `{table}` becomes its Markdown table, its caption a bold line above it; `{math}` display
  math; `{code-block}` and `{code-cell}` a fence (Python: `norun`);
- MyST-NB's `{glue}` directives paste a value (glue.py); layout containers (`{tab-set}`,
  `{card}`, ...) leave their body; any other directive is shown as text.

A `:name:` (a formula's `:label:`) becomes a `(label)=` target before what is kept, so that
`{ref}`, `{numref}` and `{eq}` to it still reach it. Inside another block or a list item,
where lessons take no block, what would be a block is its title in bold and its body.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar
from urllib.parse import unquote

from markdown_it import MarkdownIt

import coursesite.blocks.builtin  # noqa: F401  (registers the built-in kinds)
from coursesite.blocks.registry import kind_named, parent_of
from coursesite.importers.fences import CODE_DIRECTIVES, Directive, directives
from coursesite.importers.glue import Glued, pasted_block
from coursesite.importers.htmlimages import shown_text
from coursesite.importers.references import anchor_for
from coursesite.importers.sphinxproof import is_proof_block, proof_title
from coursesite.lesson.completeness import PLACEHOLDER

_NAVIGATION = ("toctree", "contents", "tableofcontents", "bibliography")
# Sphinx's directives that show nothing on the page, and what they do instead.
_UNSEEN = {
    **dict.fromkeys(
        ("currentmodule", "py:currentmodule", "module", "py:module", "highlight", "default-role"),
        "sets how Sphinx reads what follows and shows nothing",
    ),
    "redirect-from": "leads an old address of the notebook's site here",  # sphinx-reredirects
    "tags": "files the page under tags of the notebook's site (sphinx-tags)",
}
_VERSIONS = {
    "versionadded": ("note", "New in version"),
    "versionchanged": ("note", "Changed in version"),
    "deprecated": ("warning", "Deprecated since version"),
    "versionremoved": ("warning", "Removed in version"),
}
# Admonitions of MyST and Sphinx themes, as the closest kind lessons have.
_LIKE = {
    "hint": "tip",
    "attention": "important",
    "danger": "warning",
    "error": "warning",
    "todo": "note",
    "dropdown": "note",
    "margin": "note",
    "sidebar": "note",
    "aside": "note",
    "topic": "note",
}
# The title Sphinx gives each of those that has one of its own, shown where no block goes.
_OWN_TITLES = {name: name.capitalize() for name in ("hint", "attention", "danger", "error", "todo")}
# Layout that holds prose: its body is kept without it.
_CONTAINERS = {
    "tab-set",
    "tab-item",
    "tab",
    "card",
    "grid",
    "grid-item",
    "grid-item-card",
    "div",
    "container",
    "epigraph",
    "pull-quote",
    "highlights",
    "compound",
    "centered",
    "rubric",
    "glossary",
}
_PROSE_BODIED = ("seealso", "only", "exercise", "solution", "admonition")
_CODE = ("code-block", "code", "sourcecode", "code-cell")
_IMAGE = re.compile(r"^\S+\.(png|jpe?g|gif|svg|webp|avif)$", re.I)
_PYTHON = {"python", "python3", "py", "ipython", "ipython3"}


def holds_prose(name: str) -> bool:
    """Whether a directive's body is prose the import keeps (an admonition, a version
    note, layout, an exercise), not text of its own kind (math, code, a table's data)."""
    named = (_VERSIONS, _LIKE, _CONTAINERS, _EXERCISE_MARKERS, _PROSE_BODIED)
    known = kind_named(name) is not None and name not in CODE_DIRECTIVES
    return known or is_proof_block(name) or any(name in names for names in named)


def keeps_title(name: str) -> bool:
    """Whether a directive's title stays the title of a block (which a {ref} shows)."""
    kind = kind_named(name)
    return kind.titled if kind else name in _VERSIONS or name in _LIKE or is_proof_block(name)


def settle_directives(
    text: str,
    where: str,
    notes: list[str],
    glued: Glued | None = None,
    locate: Callable[[str, int], str] | None = None,
) -> str:
    """`text` (a Markdown cell) with every directive one the build knows, or settled;
    `locate` says where the author finds a directive by its opening line and how many
    alike come before it (a text notebook's own line), else its notes name `where`."""
    token = _LOCATE.set(locate)
    try:
        # What a directive held may be at the top of prose now: its Python is shown, not run.
        settled = _settled(text, where, notes, glued or Glued(), inside="")
    finally:
        _LOCATE.reset(token)
    return "\n".join(_shown_python(settled))


# The settling's `locate`, for every directive however deeply its blocks nest.
_LOCATE: ContextVar[Callable[[str, int], str] | None] = ContextVar("locate", default=None)


def directive_images(text: str) -> list[str]:
    """The image files `text`'s `{image}` and `{figure}` directives show (nested ones too),
    as the lesson will name them: the import checks that each is beside the lesson."""
    found = []
    for directive in directives(text):
        path = directive.argument
        if directive.name in ("image", "figure") and _IMAGE.match(path) and "//" not in path:
            found.append(unquote(path))
        if directive.name not in CODE_DIRECTIVES:
            found += directive_images("\n".join(directive.body))
    return found


# sphinxcontrib-youtube's directives: the site, and the address of a video by its id.
_VIDEO_SITES = {
    "youtube": ("YouTube", "https://www.youtube.com/watch?v={}"),
    "vimeo": ("Vimeo", "https://vimeo.com/{}"),
}


def _video_address(name: str, argument: str) -> str:
    """The address of the video a `{youtube}`/`{vimeo}` directive embeds (given by id or
    by address)."""
    video = argument.split()[0]
    return video if re.match(r"^https?://", video) else _VIDEO_SITES[name][1].format(video)


def _settled(text: str, where: str, notes: list[str], glued: Glued, inside: str) -> list[str]:
    """`text`'s lines with its directives settled; `inside` names what holds it: a block
    kind, "a list or a quote", or "" for the top level of a stage, the one place blocks go."""
    lines = text.split("\n")
    said: list[list[str]] = []  # each directive's notes, in the order of the text
    for directive in reversed(directives(text)):  # from the end: earlier lines stay put
        said.insert(0, [])
        place = inside or ("a list or a quote" if directive.contained else "")
        locate = _LOCATE.get()
        opening = lines[directive.first].strip()
        # The same opening line again (three `- ```{hint}` of one list) is found as the
        # how-manieth it is, not each at the first.
        again = sum(line.strip() == opening for line in lines[: directive.first])
        here = locate(opening, again) if locate else where
        kept = _replacement(directive, here, said[0], glued, place)
        label = directive.label()
        above = lines[directive.first - 1].strip() if directive.first else ""
        if label is not None and above not in (f"({label})=", f"({anchor_for(label)})="):
            kept = [f"({anchor_for(label)})=", *kept]  # unless a target says it already
        lines[directive.first : directive.end] = directive.placed(kept)
    notes += [note for group in said for note in group]
    return lines


def _replacement(
    directive: Directive, where: str, notes: list[str], glued: Glued, inside: str
) -> list[str]:
    """The lines that stand for `directive` (its own indent taken off)."""
    name, argument = directive.name, directive.argument
    what = f"{where}: {{{name}}}" + (f" {argument}" if argument else "")
    body = "\n".join(directive.body)
    if name in _EXERCISE_MARKERS or (
        name in ("exercise", "solution") and _sphinx_exercise(directive)
    ):
        return _exercise_prose(directive, where, notes, glued, inside)
    if is_proof_block(name):
        return _proof_block(directive, what, notes, glued, inside)
    if name in ("image", "figure") and re.match(r"^(https?:)?//", argument):
        notes.append(
            f"{what} is on another site, from which pages load nothing: it became a link to "
            "it; save the file beside the lesson to show it"
        )
        shown = directive.options.get("alt", "").strip() or argument
        caption = ["", *_settled(body, where, notes, glued, inside)] if body.strip() else []
        return [f"[{shown}]({argument})", *caption]
    # A sub-block ({hint} of an {exercise}) is one only in its block.
    if (kind_named(name) and not inside) or (inside and parent_of(name) == inside):
        return _known(directive, where, notes, glued)
    if kind_named(name):
        place = inside if inside == "a list or a quote" else "another block"
        alt = directive.options.get("alt", "")
        if name in ("image", "figure") and _IMAGE.match(argument) and alt:
            notes.append(f"{what} cannot go in {place}: it became a Markdown image")
            caption = ["", *_settled(body, where, notes, glued, inside)] if body.strip() else []
            return [f"![{alt}]({argument})", *caption]
        notes.append(f"{what} cannot go in {place}: it became its title in bold and its body")
        heading = [f"**{argument}**", ""] if argument else []
        return heading + _settled(body, where, notes, glued, inside)
    if name == "index":  # an entry of Sphinx's general index: no text of the page
        notes.append(f"{where}: {{index}} entries make Sphinx's index of a site: left out")
        return []
    if name in _UNSEEN:
        notes.append(f"{what} {_UNSEEN[name]}: left out")
        return []
    if name in _NAVIGATION:
        notes.append(
            f"{what} is navigation of the notebook's site, which a lesson has no use "
            "for: it was left out (link what it listed from the prose if readers need it)"
        )
        return []
    if name.startswith("glue"):
        caption = _settled(body, where, notes, glued, inside) if body.strip() else []
        return pasted_block(name, argument, glued, caption, where, notes)
    if name in _VERSIONS or name in _LIKE:
        kind, title = _VERSIONS.get(name) or (_LIKE[name], argument)
        title = f"{title} {argument}".strip() if name in _VERSIONS else title
        inner = _settled(body, where, notes, glued, name) if body.strip() else []
        if inside or not inner:
            title = title or _OWN_TITLES.get(name, "")
            notes.append(
                f"{what} became {'its title in bold and its body' if title else 'its body'}, "
                f"as lessons lack it{' where it is' if inside else ''}"
            )
            return ([f"**{title}**", ""] if title else []) + inner
        options = (
            [":class: dropdown"]
            if name == "dropdown" or "dropdown" in directive.options.get("class", "")
            else []
        )
        notes.append(
            f"{what} became {{{kind}}}"
            + (f" {title}" if title else "")
            + ", the closest block lessons have"
        )
        fence = ":::" if directive.markup.startswith(":") else directive.markup
        return [f"{fence}{{{kind}}} {title}".rstrip(), *options, *inner, fence]
    if name == "table":
        notes.append(
            f"{what} became its table, its caption a bold line above it: lessons have no "
            "table captions"
        )
        caption = [f"**{argument}**", ""] if argument else []
        return caption + _settled(body, where, notes, glued, inside)
    if name == "math":
        notes.append(f"{what} became display math ($$)")
        return ["$$", *directive.body, "$$"] if body.strip() else []
    if name in _CODE:
        language = argument.split()[0] if argument else "text"
        info = "python norun" if language in _PYTHON else language
        notes.append(f"{what} became a ```{info} block: lessons run only the code of their blocks")
        return _fence(directive.body, info)
    if name == "only":
        if not _shown_in_html(argument):
            notes.append(
                f"{what} is for another output than HTML, which a page is: it was left out"
            )
            return []
        notes.append(f"{what} is for the HTML output, which a page is: its body is kept")
        return _settled(body, where, notes, glued, inside)
    if name in _CONTAINERS:
        notes.append(f"{what} is layout lessons lack: its body is kept without it")
        heading = [f"**{argument}**", ""] if argument else []
        return heading + _settled(body, where, notes, glued, inside)
    if name == "list-table" and (table := _pipe_table(directive.body)):
        notes.append(f"{what} became a Markdown table, its first row the header")
        return ([f"**{argument}**", ""] if argument else []) + table
    if name in _VIDEO_SITES and argument:
        address = _video_address(name, argument)
        notes.append(f"{what} embeds a video, which pages never load: it became a link to it")
        return [f"[Watch the video on {_VIDEO_SITES[name][0]}]({address})"]
    if not body.strip():
        notes.append(
            f"{what} is a directive lessons lack, with no body to show: it was left out; "
            "write what it showed into the lesson if the lesson needs it"
        )
        return []
    if name == "raw" and (unseen := _unseen_raw(argument, body)):
        notes.append(f"{what} {unseen}: it was left out")
        return []
    shown_as = {"raw": argument.split()[0] if argument else "text", "eval-rst": "rst"}
    notes.append(
        f"{what} is a directive lessons lack: its body is shown as code; rewrite it in "
        "Markdown, or delete it"
    )
    return _fence(directive.body, shown_as.get(name, "text"))


def _shown_in_html(expression: str) -> bool:
    """Whether Sphinx's `{only}` with this tag expression shows its body in HTML: a builder
    name or an `or` of them must name html; `not X` is shown unless X is html; anything
    more (an `and`, a project's own tags) is kept, as a reader may meet it."""
    words = expression.lower().replace("(", " ").replace(")", " ").split()
    if words[:1] == ["not"] and len(words) == 2:
        return words[1] != "html"
    builders = [word for word in words if word != "or"]
    if "and" in words or not builders or not set(builders) <= _BUILDERS:
        return True
    return "html" in builders


_BUILDERS = {"html", "latex", "epub", "text", "man", "texinfo", "singlehtml", "dirhtml", "pdf"}


def _unseen_raw(output_format: str, body: str) -> str:
    """Why a `{raw}` block shows a reader of the notebook's own HTML pages nothing a lesson
    could keep, or "": it is for another output (LaTeX), or its HTML holds no text (a
    site's logo header, a spacer), which would reach the page only as its source."""
    formats = output_format.lower().split()
    if formats and "html" not in formats:
        return f"is for the {formats[0]} output only, which an HTML page never shows"
    if formats and not shown_text(body):
        return "holds HTML with no text (links, images, layout), which a page shows only as code"
    return ""


def _pipe_table(body: list[str]) -> list[str]:
    """A `{list-table}`'s rows (`* - a` then `  - b`) as a pipe table, or [] when a cell
    holds more than one line."""
    rows: list[list[str]] = []
    for line in body:
        if not line.strip():
            continue
        if re.match(r"\*\s+-\s", line):
            rows.append([line.split("-", 1)[1].strip()])
        elif re.match(r"\s+-\s", line) and rows:
            rows[-1].append(line.split("-", 1)[1].strip())
        else:
            return []
    width = max((len(row) for row in rows), default=0)
    if not rows or width == 0:
        return []
    cells = [[cell.replace("|", "\\|") for cell in row] + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    return [lines[0], "|" + " --- |" * width, *lines[1:]]


def _known(directive: Directive, where: str, notes: list[str], glued: Glued) -> list[str]:
    """A block the build knows, with the options its kind takes, its body settled."""
    kind = kind_named(directive.name)
    allowed = kind.options if kind else ()
    options = []
    for option, value in directive.options.items():
        if option in allowed:
            options.append(f":{option}: {value}".rstrip())
        elif option in ("name", "label") and (label := directive.label()):
            notes.append(
                f"{where}: the :{option}: of {{{directive.name}}} became the target "
                f"({anchor_for(label)})= before it"
            )
        else:
            notes.append(
                f"{where}: the option :{option}: of {{{directive.name}}} is not one lessons "
                "take: it was dropped"
            )
    for option in kind.required if kind else ():
        if option not in directive.options:
            what = "what it shows" if option == "alt" else f"its {option}"
            options.append(f":{option}: {PLACEHOLDER} {what}")
            notes.append(
                f"{where}: {{{directive.name}}} needs :{option}:, which the notebook does not "
                f"give: fill in its {PLACEHOLDER} line"
            )
    body = "\n".join(directive.body)
    inner = (
        body.split("\n")
        if directive.name in CODE_DIRECTIVES
        else _shown_python(_settled(body, where, notes, glued, directive.name))
    )
    opening = f"{directive.markup}{{{directive.name}}} {directive.argument}".rstrip()
    return [opening, *options, *inner, *([directive.markup] if directive.closed else [])]


_EXERCISE_MARKERS = {
    "exercise-start": "Exercise",
    "exercise-end": "",
    "solution-start": "Solution",
    "solution-end": "",
}


def _sphinx_exercise(directive: Directive) -> bool:
    """Whether an {exercise} or {solution} is sphinx-exercise's (Jupyter Book's): prose,
    maybe with code to read (a ```python block in a Markdown cell runs nowhere), not a
    lesson's exercise, which has a :kind: and ```python scaffold, solution or check blocks."""
    ours = re.search(
        r"^\s*(`{3,}|~{3,})\s*python\s+(?:scaffold|solution|check)\b",
        "\n".join(directive.body),
        re.M,
    )
    return "kind" not in directive.options and not ours


def _exercise_prose(
    directive: Directive, where: str, notes: list[str], glued: Glued, inside: str
) -> list[str]:
    """sphinx-exercise's blocks, as prose: a lesson's {exercise} is a task with a scaffold
    and a solution to check, which a notebook's exercise is not. Its -start/-end markers
    enclose cells that ran in the notebook's order, so they stay steps, in that order."""
    name, argument = directive.name, directive.argument
    what = f"{where}: {{{name}}}" + (f" {argument}" if argument else "") + " (sphinx-exercise)"
    if name.endswith("-end"):
        notes.append(f"{what} ends what its -start opened: it was left out")
        return []
    title = _EXERCISE_MARKERS.get(name) or name.capitalize()
    if name in ("solution", "solution-start"):  # its argument is the exercise's label
        argument = ""
    heading = f"{title}: {argument}" if argument else title
    body = _settled("\n".join(directive.body), where, notes, glued, inside or "admonition")
    body = _shown_python("\n".join(body).strip("\n").split("\n")) if "".join(body).strip() else []
    if name.endswith("-start") or inside:
        notes.append(
            f"{what} became a bold line, '{heading}'; the cells up to its -end stay steps, "
            f"where they ran{_OWN_EXERCISES}"
        )
        return _in_bold(heading, body)
    closed = "dropdown" in directive.options.get("class", "") or name == "solution"
    notes.append(
        f"{what} became {{admonition}} {heading}{', shown closed' if closed else ''}"
        f"{_OWN_EXERCISES}"
    )
    return _admonition(directive, heading, body, closed)


def _proof_block(
    directive: Directive, what: str, notes: list[str], glued: Glued, inside: str
) -> list[str]:
    """A sphinx-proof block (sphinxproof.py) as an admonition; inside a list or another
    block, where no block goes, its title in bold and its body."""
    title = proof_title(directive.name, directive.argument)
    body = _settled("\n".join(directive.body), what, notes, glued, inside or "admonition")
    if inside:
        notes.append(f"{what} (sphinx-proof) became its title in bold, '{title}', and its body")
        return _in_bold(title, body)
    notes.append(f"{what} (sphinx-proof) became {{admonition}} {title}, unnumbered")
    return _admonition(directive, title, body)


def _in_bold(title: str, body: list[str]) -> list[str]:
    """A block where no block can go (a list item, another block): its title in bold."""
    return [f"**{title}**", *(["", *body] if body else [])]


def _admonition(
    directive: Directive, title: str, body: list[str], closed: bool = False
) -> list[str]:
    """`body` in an {admonition} titled `title`, fenced as the directive was."""
    fence = ":::" if directive.markup.startswith(":") else directive.markup
    return [
        f"{fence}{{admonition}} {title}",
        *([":class: dropdown"] if closed else []),
        *body,
        fence,
    ]


# Said with each: what a lesson's own exercises are, which the import cannot make.
_OWN_EXERCISES = (
    " (a lesson's {exercise} has a scaffold and a solution a learner's attempt is checked "
    "against: docs/authoring.md)"
)


def _shown_python(lines: list[str]) -> list[str]:
    """`lines` (a block's body) with each Python fence marked `norun`: in a block that
    does not run, a plain ```python fence would look as if it ran, and the build refuses
    it (the import marks those of the top level of prose so too)."""
    lines = list(lines)
    for token in MarkdownIt("commonmark").parse("\n".join(lines)):
        words = token.info.split() if token.type == "fence" else []
        if token.map and words and words[0] in _PYTHON and "norun" not in words:
            first = token.map[0]
            at = lines[first].index(words[0])
            lines[first] = lines[first][:at] + "python norun" + lines[first][at + len(words[0]) :]
    return lines


def _fence(lines: list[str], info: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", "\n".join(lines))), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *lines, fence]
