"""jupytext's Markdown notebook format (`format_name: markdown`): a .md file whose ```python
blocks are the code cells, as `jupytext --to ipynb` reads it. Flax's guides and many paired
notebooks are kept so; MyST's format marks its cells with ```{code-cell} instead.

A fence's info after the language is the cell's metadata as jupytext writes it,
`key=value` pairs with JSON values (```python tags=["hide-input"]). Blocks between
`<!-- #region -->` and `<!-- #endregion -->` belong to a Markdown cell and stay prose.
"""

from __future__ import annotations

import json
import re

from markdown_it.token import Token

_PYTHON = frozenset({"python", "python3", "ipython", "ipython3", "py"})
_REGION = re.compile(r"<!--\s*#(end)?region\b")
_TAGS = re.compile(r"\btags=(\[[^\]]*\])")


def python_fences(tokens: list[Token]) -> list[tuple[Token, tuple[str, ...]]]:
    """The fences that are code cells, each with its tags, in the order of the file."""
    fences: list[tuple[Token, tuple[str, ...]]] = []
    in_region = False
    for token in tokens:
        if token.type == "html_block" and (found := _REGION.search(token.content)):
            in_region = found.group(1) is None
        elif token.type == "fence" and token.map and not in_region:
            words = token.info.split(maxsplit=1)
            if words and words[0].lower() in _PYTHON:
                fences.append((token, _tags(words[1] if len(words) > 1 else "")))
    return fences


def _tags(metadata: str) -> tuple[str, ...]:
    found = _TAGS.search(metadata)
    if not found:
        return ()
    try:
        tags = json.loads(found.group(1))
    except ValueError:
        return ()
    return tuple(tag for tag in tags if isinstance(tag, str))
