"""Notebooks written for Python 2, written as 2to3 writes them for Python 3.

statsmodels' older example notebooks (nbformat 3, `print res.summary()`) are Python 2: each
such cell is a syntax error to the Python that builds the lesson, and a cell that does
compile may still call what Python 3 dropped (`xrange`, `dict.iteritems`). A notebook one
of whose cells is Python 2 and not Python 3 is Python 2 throughout, so every code cell goes
through 2to3's default fixers (those of fissix, lib2to3 kept up outside the standard
library, which drops lib2to3 in 3.13), and the report names each cell they changed. What
no fixer can see is said too: `/` between two integers divides exactly now.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from coursesite.importers.steplines import code_tree

if TYPE_CHECKING:
    from fissix.refactor import RefactoringTool

# A line IPython reads and Python cannot (`%matplotlib inline`, `!ls`): left out of the
# test of which Python a cell is written in; the lesson's code has none.
_IPYTHON_LINE = re.compile(r"^\s*[%!]")

PYTHON2_NOTE = (
    "its code is Python 2: written as Python 3 as 2to3 writes it (print x becomes print(x), "
    "xrange range, d.iteritems() d.items(), ...); check it: `/` between two integers now "
    "gives a float where Python 2 gave an integer (write `//` where the notebook meant that)"
)


def is_python2(sources: list[str]) -> bool:
    """Whether the code cells `sources` are Python 2: one of them is not Python 3, and is
    once 2to3's fixers have written it."""
    for source in sources:
        code = "\n".join(line for line in source.splitlines() if not _IPYTHON_LINE.match(line))
        if code_tree(code) is None and code_tree(as_python3(code)) is not None:
            return True
    return False


def as_python3(code: str) -> str:
    """`code` as 2to3's fixers write it; `code` as it is when they cannot read it."""
    if not code.strip():
        return code
    try:
        written = str(_fixers().refactor_string(code.rstrip("\n") + "\n", "cell"))
    except Exception:  # fissix's parse errors have no common base: the code stays as it was
        return code
    return written if code.endswith("\n") else written.rstrip("\n")


@functools.cache
def _fixers() -> RefactoringTool:
    from fissix.refactor import RefactoringTool, get_fixers_from_package

    # The default set, as `2to3` runs it: explicit fixers (idioms, ws_comma) only on request.
    # fissix adds fix_sorted, which lib2to3 never had: it takes any `X.sort(a)` for a list
    # sorted by a cmp function, and made pandas' `frame.sort('p', inplace=True)` into
    # `frame.sort(, inplace=True,key=cmp_to_key('p'))`, a syntax error.
    fixers = get_fixers_from_package("fissix.fixes")
    return RefactoringTool([name for name in fixers if not name.endswith(".fix_sorted")])
