"""reStructuredText as MyST Markdown, for the prose of scripts in sphinx-gallery's format
(galleryscripts).

docutils parses the text; its document tree is written out as MyST (rstwriter), so the
rest of the import reads it as it reads a Jupyter Book notebook's prose. Roles and
directives docutils does not know (Sphinx's `:func:`, `.. seealso::`, a project's own)
become MyST roles and directives of the same name, which the import then renders, turns
into text or reports, as it does for MyST. What docutils cannot read is a note, never a
silent loss.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

from docutils import nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles
from docutils.parsers.rst.languages import en
from docutils.statemachine import StringList

from coursesite.importers.mystdirectives import holds_prose
from coursesite.importers.rstwriter import ForeignDirective, ForeignRole, myst_blocks

# Sphinx's directives that take no argument: a line right after them is their body.
_NO_ARGUMENT = frozenset({"seealso", "toctree", "autosummary", "hlist", "tab-set", "glossary"})
_ROLE = re.compile(r"(?<![\w`]):((?:[A-Za-z][\w+.-]*:)*[A-Za-z][\w+.-]*):`")
_DIRECTIVE = re.compile(r"^\s*\.\.\s+([A-Za-z][\w+.:-]*)::", re.MULTILINE)
# docutils' report of a warning or worse: `<string>:12: (ERROR/3) Unknown target name: "x".`
_REPORTED = re.compile(r"^<string>:(?:(\d+):)? \((?:WARNING|ERROR|SEVERE)/\d\) (.+)$", re.M)
_SETTINGS = {
    "report_level": 2,  # warnings and worse reach the notes; info does not
    "halt_level": 5,
    "doctitle_xform": False,  # a script's blocks share one run of heading levels
    "sectsubtitle_xform": False,
    "file_insertion_enabled": False,  # `.. include::` reads nothing from the disk
    "raw_enabled": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
}


def rst_to_myst(
    text: str, place: Callable[[int], str] = lambda line: f"line {line}"
) -> tuple[str, list[str]]:
    """MyST Markdown for `text`, and a note for each problem docutils found, at the place
    `place` names for the line of `text` it is on."""
    _register_foreign(text)
    messages = io.StringIO()
    document = publish_doctree(text, settings_overrides={**_SETTINGS, "warning_stream": messages})
    notes = [
        f"{place(int(line)) if line else 'the prose'}: reStructuredText: {said}"
        for line, said in _REPORTED.findall(messages.getvalue())
    ]
    return "\n\n".join(myst_blocks(document)), notes


def _register_foreign(text: str) -> None:
    """Register each role and directive `text` names that docutils lacks as one that keeps
    its name and content, for the MyST it becomes."""
    for name in set(_ROLE.findall(text)) - set(en.roles):
        roles.register_local_role(name, _foreign_role)
    for name in set(_DIRECTIVE.findall(text)) - set(en.directives):
        directives.register_directive(name, _foreign_directive(name))


def _foreign_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    del lineno, inliner, options, content
    # As written: `:mathmpl:`\\alpha`` keeps its backslash.
    return [ForeignRole(rawtext, role=name, content=utils.unescape(text, True))], []


class _AnyOption(dict):
    """Every option a foreign directive is given is taken as text."""

    def __getitem__(self, key: str) -> Callable[[str | None], str]:
        return directives.unchanged

    def __contains__(self, key: object) -> bool:
        return True

    def __bool__(self) -> bool:  # docutils reads options only of a directive that has some
        return True


def _foreign_directive(name: str) -> type[Directive]:
    class Foreign(Directive):
        optional_arguments = 0 if name in _NO_ARGUMENT else 1
        final_argument_whitespace = True
        has_content = True
        option_spec = _AnyOption()

        def run(self) -> list[nodes.Node]:
            # An argument's lines after its first begin the body, as Sphinx's version notes
            # read them (`.. versionadded:: 3.7` and the note's text on the next line).
            argument, *more = " ".join(self.arguments).split("\n") or [""]
            source = self.content.source(0) if self.content else ""
            content = (StringList([*more, ""], source) if more else StringList()) + self.content
            body = "\n".join(content)
            node = ForeignDirective(
                directive=name, argument=argument, options=dict(self.options), body=body
            )
            # A body of prose is read as reStructuredText; any other (math, code, a
            # project's own format) is kept line for line.
            if not holds_prose(name) or not body.strip():
                return [node]
            self.state.nested_parse(content, self.content_offset - len(more) - 1, node)
            node["parsed"] = True
            return [node]

    return Foreign
