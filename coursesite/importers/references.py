"""An imported notebook's references, settled so that the lesson builds at once.

A tutorial points at its own documentation: `{ref}` labels and `{doc}` pages of the site it
came from, relative links to its sibling pages, Sphinx roles a course has no use for. The
lesson keeps what reaches inside the notebook (its own `(label)=` targets, any MyST label,
slugged where a page anchor needs it), links what `references:` in lessons.yaml maps to
another site (its labels; the pages of the site the notebook came from), and turns the
rest into its plain text, each change a line of the import report: nothing is left for the
first build to refuse one at a time. A reStructuredText role (:ref:`label`), which MyST
would show as it is, is read as the MyST role of its name. Code (spans, fenced and
indented blocks) is left as written: `vjp(f, x)[1](1.0)` is no link.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from coursesite.config.manifest import ReferenceSite
from coursesite.importers.fences import code_lines, labels_of, regions
from coursesite.importers.glue import Glued, pasted_role
from coursesite.importers.sphinxproof import is_proof_block, proof_title
from coursesite.markup.markdown import slugify
from coursesite.markup.myst import (
    IN_PARAGRAPH_BREAK,
    KNOWN_ROLES,
    LABEL,
    ROLE_SOURCE,
    role_kind,
    split_role_text,
)

_TARGET = re.compile(r"^( {0,3})\(([^()\n]+)\)=[ \t]*$", re.M)
# MyST's label of display math, after its closing `$$`: `$$ (eq:budget)`.
MATH_LABEL = re.compile(r"^([ \t]*\$\$[ \t]*)\(([^()\n]+)\)([ \t]*)$", re.M)
# A link's text may run over a line break, never past its paragraph (a blank line).
_LINK = re.compile(r"(?<!!)\[((?:[^\]\n]|\n(?![ \t]*\n))*)\]\(([^)\s]+)(?:\s+\"[^\"\n]*\")?\)")
# A role (whose content is in backticks, but is no code span), or a CommonMark code span: a
# run of backticks up to the next run of the same length.
# A code span ends with its paragraph: a backtick left open (``solved'' in LaTeX's quotes,
# a role closed with a quote) is text, and makes no code of the paragraphs after it.
_ROLE_OR_CODE = re.compile(
    ROLE_SOURCE.pattern
    + r"|(?<!`)(?P<ticks>`+)(?!`)(?:[^\n]|"
    + IN_PARAGRAPH_BREAK
    + r")*?(?<!`)(?P=ticks)(?!`)"
)
# A role written as reStructuredText writes it, :ref:`label`, which MyST shows as it is.
_RST_ROLE = re.compile(r"(?<![\w:`{}]):([A-Za-z][\w+.-]*(?::[A-Za-z][\w+.-]*)?):(`[^`\n]+`)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_DEFINITION = re.compile(r"^ {0,3}\[([^\]\n]+)\]:", re.M)
# A full or collapsed reference link, `[text][name]` or `[text][]` (MkDocs' autorefs write
# `[`equinox.partition`][]` for a page of their API), not `a[i][j]`.
_REFERENCE_LINK = re.compile(r"(?<![\w\])!`])\[((?:[^\[\]\n`]|`[^`\n]*`)+)\]\[([^\[\]\n]*)\]")
_PAGE_SUFFIX = r"\.(md|ipynb|rst|html)"  # what a documentation page's source file ends in
_PAGE_FILE = re.compile(_PAGE_SUFFIX + r"(#|$)|/")  # a link to a page, not to a label


@dataclass
class NotebookLabels:
    """The notebook's own target labels, and the anchor each becomes."""

    anchors: dict[str, str] = field(default_factory=dict)
    # The link definitions of the notebook (`[name]: https://...`), normalised as CommonMark
    # matches them: a reference link to any other name would show its brackets.
    definitions: set[str] = field(default_factory=set)
    # What a {ref} to a label shows when it names no text and no title follows the target
    # (a heading or a titled block): the page has none to show.
    shown: dict[str, str] = field(default_factory=dict)
    # Sphinx keeps equations' labels apart from all others, so one label may be both
    # (equationlabels.py renames the equation's).
    equations: set[str] = field(default_factory=set)
    others: set[str] = field(default_factory=set)

    @classmethod
    def of(
        cls, texts: list[str], keeps_title: Callable[[str], bool] = lambda name: True
    ) -> NotebookLabels:
        """The `(label)=` targets of `texts`, and the labels their directives' `:name:`
        options give (mystdirectives.py makes each a target); `keeps_title` says of a
        directive whether its title stays a block's, which a {ref} to it shows."""
        labels = cls()
        for text in texts:
            code = code_lines(text)
            labels.definitions |= {
                _definition_name(match.group(1))
                for match in _DEFINITION.finditer(text)
                if text.count("\n", 0, match.start()) not in code
            }
            for match in _TARGET.finditer(text):
                if text.count("\n", 0, match.start()) not in code:
                    label = match.group(2).strip()
                    labels.anchors[label] = anchor_for(label)
                    labels.others.add(label)
                    after = _TITLED.match(text, match.end())
                    if not after or (after.group(1) and not keeps_title(after.group(1))):
                        labels.shown[label] = _words(label)
            for match in MATH_LABEL.finditer(text):
                if text.count("\n", 0, match.start()) not in code:
                    label = match.group(2).strip()
                    labels.anchors[label] = anchor_for(label)
                    labels.equations.add(label)
                    labels.shown[label] = _equation_words(label)
            for label, directive in labels_of(text):
                labels.anchors[label] = anchor_for(label)
                (labels.equations if directive.name == "math" else labels.others).add(label)
                glue = directive.name.startswith("glue")
                shown = directive.argument if directive.argument and not glue else ""
                if is_proof_block(directive.name):
                    shown = proof_title(directive.name, directive.argument)
                if directive.name == "math":  # its argument is the formula, if any
                    shown = _equation_words(label)
                labels.shown[label] = shown or _words(label)
        return labels

    def add_figure(self, label: str, caption: str) -> None:
        """A figure a code cell draws, named in its options: its step is the target."""
        self.anchors[label] = anchor_for(label)
        self.shown[label] = caption or _words(label)


def _definition_name(name: str) -> str:
    return " ".join(name.split()).casefold()


def anchor_for(label: str) -> str:
    """The page anchor a label becomes: itself, or slugged when it is no plain name."""
    return label if LABEL.match(label) else slugify(label)


# What follows a target that may give it a title: a heading, or a directive with a title.
_TITLED = re.compile(
    r"\s*\n(?:\s*\n)*(?: {0,3}#{1,6} | {0,3}(?:`{3,}|~{3,}|:{3,})\{([\w:-]+)\}[ \t]*\S)"
)


def _equation_words(label: str) -> str:
    """What a reference to a labelled formula shows where a book shows its number "(3)",
    as lessons number none: the label's words in brackets (`eq:lag_c` -> '(lag c)'), which
    reads on after the "equation" the prose says before it."""
    words = re.sub(r"^(?:eqn?|equation)\b[-_:/ ]*", "", label.strip(), flags=re.I)
    return f"({_words(words) or _words(label)})"


def _words(label: str) -> str:
    return re.sub(r"[-_:/]+", " ", label).strip()


@dataclass(frozen=True)
class OtherSites:
    """What `references:` in lessons.yaml says of other sites: the address of each label
    they define, and where the pages of the notebook's own site are."""

    labels: dict[str, str] = field(default_factory=dict)  # label -> its absolute address
    pages: ReferenceSite | None = None  # the site the notebook came from, if it names pages

    @classmethod
    def of(cls, sites: dict[str, ReferenceSite], origin: str | None) -> OtherSites:
        """The sites' labels (the origin's first); relative links resolve against the
        origin, or against the one site that names its pages when no origin is given."""
        # Later entries of the dict win: the origin comes last, the first site listed in
        # lessons.yaml just before it.
        order = sorted(sites, key=lambda name: name != origin)
        labels = {
            label: sites[name].url + path
            for name in reversed(order)
            for label, path in sites[name].labels.items()
        }
        if origin is not None:
            return cls(labels, sites[origin] if sites[origin].pages else None)
        with_pages = [site for site in sites.values() if site.pages]
        return cls(labels, with_pages[0] if len(with_pages) == 1 else None)

    def page(self, target: str) -> str | None:
        """The address of a page of the notebook's site, named as `{doc}` or a relative
        link names it (`key-concepts`, `../jit.md#caching`)."""
        if self.pages is None:
            return None
        path, hash_mark, anchor = target.partition("#")
        stem = re.sub(_PAGE_SUFFIX + "$", "", path)
        # Where the notebook sat in its site is not known: a path is read from the root.
        stem = re.sub(r"^(\.\.?/|/)+", "", stem)
        return self.pages.url + stem + (self.pages.pages or "") + hash_mark + anchor


def settle_references(
    text: str,
    labels: NotebookLabels,
    where: str,
    notes: list[str],
    sites: OtherSites | None = None,
    glued: Glued | None = None,
    locate: Callable[[str], str] | None = None,
) -> str:
    """`text` (a Markdown cell) with every reference the lesson can keep kept, links into
    `sites`, MyST-NB's pasted values (`glued`) as live values, and the rest as plain text,
    noted in `notes`; `locate` says where the author finds a reference by its text (its
    own line of a text notebook), else each note names `where`. Code fences are left as
    they are."""
    sites = sites or OtherSites()
    glued = glued or Glued()
    places = locate or (lambda found: where)
    return in_prose(text, lambda prose: _settled(prose, labels, places, notes, sites, glued))


def in_prose(text: str, settle: Callable[[str], str]) -> str:
    """`text` with `settle` applied to each run of its prose lines, and to each directive's
    opening line (its title is prose); code blocks and fences are left as they are."""
    code, fences = regions(text)
    settled: list[str] = []
    chunk: list[str] = []
    for number, line in enumerate(text.split("\n")):
        if number not in code and number not in fences:
            chunk.append(line)
            continue
        if chunk:
            settled.append(settle("\n".join(chunk)))
            chunk = []
        settled.append(line if number in code else settle(line))
    if chunk:
        settled.append(settle("\n".join(chunk)))
    return "\n".join(settled)


def _settled(
    text: str,
    labels: NotebookLabels,
    place: Callable[[str], str],
    notes: list[str],
    sites: OtherSites,
    glued: Glued,
) -> str:
    text = _TARGET.sub(lambda m: f"{m.group(1)}({anchor_for(m.group(2).strip())})=", text)
    text = MATH_LABEL.sub(lambda m: f"{m[1]}({anchor_for(m[2].strip())}){m[3]}", text)
    text = outside_code(_RST_ROLE, text, lambda m: _myst_role(m, place(m[0]), notes))
    text = outside_code(
        ROLE_SOURCE, text, lambda m: _role(m, labels, place(m[0]), notes, sites, glued)
    )
    text = outside_code(_REFERENCE_LINK, text, lambda m: _reference(m, labels, place(m[0]), notes))
    return outside_code(_LINK, text, lambda m: _link(m, labels, place(m[0]), notes, sites))


def _reference(match: re.Match[str], labels: NotebookLabels, where: str, notes: list[str]) -> str:
    """A reference link to a definition the notebook has, kept; to none, its text."""
    shown, name = match.group(1), match.group(2) or match.group(1)
    if _definition_name(name) in labels.definitions:
        return match.group(0)
    notes.append(
        f"{where}: the reference link {match.group(0)} names no link the notebook defines "
        "(another tool's cross-reference): it became its text"
    )
    return shown


def outside_code(
    pattern: re.Pattern[str], text: str, replace: Callable[[re.Match[str]], str]
) -> str:
    """`text` with each match of `pattern` replaced, except those that start inside a code
    span: `vjp(f, x)[1](1.0)` in backticks is code, not a link. (Code blocks and fences
    never reach here: settle_references leaves the lines `regions` finds in code out.)"""
    spans = [m.span() for m in _ROLE_OR_CODE.finditer(text) if m.group("ticks")]

    settled, at = [], 0
    while (match := pattern.search(text, at)) is not None:
        code = next((span for span in spans if span[0] <= match.start() < span[1]), None)
        # A match that starts in code is none, and may not swallow what follows the code.
        end = code[1] if code else match.end()
        settled += [text[at:end]] if code else [text[at : match.start()], replace(match)]
        at = max(end, at + 1)
    return "".join(settled) + text[at:]


def _myst_role(match: re.Match[str], where: str, notes: list[str]) -> str:
    myst = f"{{{match.group(1)}}}{match.group(2)}"
    notes.append(f"{where}: the reStructuredText role {match.group(0)} became {myst}")
    return myst


def _linked(shown: str, address: str, what: str, where: str, notes: list[str]) -> str:
    notes.append(f"{where}: {what} became a link to {address}")
    return f"[{shown}]({address})"


def _role(
    match: re.Match[str],
    labels: NotebookLabels,
    where: str,
    notes: list[str],
    sites: OtherSites,
    glued: Glued,
) -> str:
    name, content = role_kind(match.group(1)), match.group(2)
    if name == "glue" or name.startswith("glue:"):
        return pasted_role(name, content, glued, where, notes)
    text, target = split_role_text(content)
    if name in ("eq", "numref") and target in labels.anchors:
        # A number the page has not: the reference shows the target's title, or its text.
        shown = text if text and "%s" not in text and "{" not in text else None
        shown = shown or labels.shown.get(target)
        to = labels.anchors[target]
        ref = f"{{ref}}`{shown} <{to}>`" if shown else f"{{ref}}`{to}`"
        notes.append(  # one text for all, so that the report says it once, at every line
            f"{where}: {{{name}}} became {{ref}}, which shows the target's title or label in "
            "place of its number: lessons number no equations, figures or tables"
        )
        return ref
    if name in ("ref", "prf:ref", "eq", "numref"):  # {eq} of another page's formula too
        anchor = labels.anchors.get(target)
        text = text or labels.shown.get(target)
        if anchor is not None:
            return f"{{ref}}`{text} <{anchor}>`" if text else f"{{ref}}`{anchor}`"
        shown = text or re.sub(r"[-_]+", " ", target)
        if target in sites.labels:
            return _linked(shown, sites.labels[target], match.group(0), where, notes)
        notes.append(
            f"{where}: {match.group(0)} points at a label outside this notebook: it became "
            f"the text '{shown}'"
        )
        return shown
    if name == "value" or (name in KNOWN_ROLES and name != "doc"):
        return match.group(0)
    shown = text or target
    if name == "doc" and (page := sites.page(target)):
        return _linked(shown, page, match.group(0), where, notes)
    notes.append(
        f"{where}: {match.group(0)} is "
        + ("a page outside the course" if name == "doc" else f"a role ({{{name}}}) lessons lack")
        + f": it became the text '{shown}'"
    )
    return f"`{shown}`" if name in ("download", "nb-download", "file", "envvar") else shown


def _link(
    match: re.Match[str], labels: NotebookLabels, where: str, notes: list[str], sites: OtherSites
) -> str:
    text, target = match.group(1), match.group(2)
    # MyST's [text](label) and [](label) name a target of the notebook: the {ref} to it.
    anchor = labels.anchors.get(target)
    if anchor is not None:
        text = text or labels.shown.get(target, "")
        myst = f"{{ref}}`{text} <{anchor}>`" if text else f"{{ref}}`{anchor}`"
        if "`" in text:  # a role's text cannot hold code: the link to the anchor can
            myst = f"[{text}](#{anchor})"
        notes.append(f"{where}: the link {match.group(0)} became {myst}")
        return myst
    if target.startswith("#") or _SCHEME.match(target) or target.startswith("//"):
        return match.group(0) if text else f"[{target}]({target})"
    shown = text or target
    # MyST lets a link name a label ([Tracers](key-concepts-tracing)) or a page.
    address = sites.labels.get(target) or (_PAGE_FILE.search(target) and sites.page(target))
    if address:
        return _linked(shown, address, f"the link {match.group(0)}", where, notes)
    notes.append(
        f"{where}: the link {match.group(0)} points at a page beside the notebook, which "
        "the course does not have: it became its text"
    )
    return shown
