"""Highlights code for one build, in a process of its own; started by highlighting.py.

    python -I highlightd.py        (requests come as JSON lines on stdin)

This file is a standalone script: it imports nothing from the generator, only Pygments.
It loads Pygments and its Python lexer first (about 70 ms, most of it compiling the
lexer's patterns), while the build that started it is still importing and parsing on the
other core; then it answers each request, `["code", "language"]`, with one JSON line: the
HTML that markdown.highlight_code would give. End of input (the build ended, or died)
ends it.
"""

import json
import sys

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_LEXERS: dict = {}
_FORMATTER = HtmlFormatter(nowrap=True)


def lexer(language):
    """As markdown._lexer: the lexer for `language`, or plain text's if it has none."""
    if language not in _LEXERS:
        try:
            _LEXERS[language] = get_lexer_by_name(language)
        except ClassNotFound:
            _LEXERS[language] = get_lexer_by_name("text")
    return _LEXERS[language]


def main():
    lexer("python")  # what a changed lesson step needs: loaded before it is asked for
    for line in sys.stdin:
        code, language = json.loads(line)
        html = highlight(code, lexer(language or "text"), _FORMATTER)
        sys.stdout.write(json.dumps(html) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
