"""jupytext's Markdown notebook format: ```python blocks are the code cells (Flax's guides)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coursesite.errors import BuildError
from coursesite.importers.lessonimport import convert, notebook_title
from coursesite.importers.notebooks import read_notebook

# Shaped as Flax's docs_nnx guides are kept (jupytext 1.13, format_name: markdown).
GUIDE = """\
---
jupyter:
  jupytext:
    formats: ipynb,md
    text_representation:
      extension: .md
      format_name: markdown
  kernelspec:
    display_name: Python 3
    name: python3
---

# Separating voices

Some prose.

```python
import math
```

Install what it needs first:

```bash
pip install soundfile
```

<!-- #region -->
A region keeps an example that is prose:

```python
print("only shown")
```
<!-- #endregion -->

```python tags=["hide-input"]
print(math.pi)
```

The end.
"""


def test_python_blocks_are_cells_and_other_blocks_stay_prose(tmp_path: Path):
    path = tmp_path / "audio.md"
    path.write_text(GUIDE)
    cells = read_notebook(path)
    code = [cell for cell in cells if cell.kind == "code"]
    assert [cell.source for cell in code] == ["import math", "print(math.pi)"]
    assert [cell.tags for cell in code] == [(), ("hide-input",)]
    assert code[0].where == "line 17"  # the fence's own line in the file
    prose = "\n".join(cell.source for cell in cells if cell.kind == "markdown")
    assert "pip install soundfile" in prose and 'print("only shown")' in prose
    title = notebook_title(cells, "fallback")
    assert title == "Separating voices"
    text = convert(cells, title, "audio.md", "audio.expected.yaml").text
    assert text.count(":::{step}") == 2 and ":tags: [hide-input]" in text


def test_a_markdown_file_with_no_cells_of_either_kind_is_refused_with_both_named(tmp_path: Path):
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\n```bash\nls\n```\n")
    with pytest.raises(BuildError) as raised:
        read_notebook(path)
    assert "{code-cell}" in str(raised.value) and "```python" in str(raised.value)


def test_the_kernel_under_jupyter_is_checked_too(tmp_path: Path):
    path = tmp_path / "r.md"
    path.write_text(GUIDE.replace("    name: python3", "    name: ir\n    language: R"))
    with pytest.raises(BuildError) as raised:
        read_notebook(path)
    assert "runs R, not Python" in str(raised.value)


def test_an_indented_block_after_a_cell_stays_code_on_the_page(tmp_path: Path):
    """nbconvert's Markdown keeps a cell's printed output as an indented block after it
    (Flax's key_concepts page): its first line keeps its indent, or the block becomes a
    paragraph whose `<fry>` the build refuses as raw HTML."""
    from markdown_it import MarkdownIt

    path = tmp_path / "keys.md"
    path.write_text(
        "# Keys\n\nWhat a key holds.\n\n```python\nprint(1)\n```\n\n"
        "    key: Array((), dtype=key<fry>) overlaying:\n    [0 0]\n\nAfter it.\n"
    )
    cells = read_notebook(path)
    text = convert(cells, "Keys", "keys.md", "keys.expected.yaml").text
    body = text.split(":::\n", 1)[1]
    tokens = MarkdownIt("commonmark").parse(body)
    blocks = [token.content for token in tokens if token.type == "code_block"]
    assert blocks == ["key: Array((), dtype=key<fry>) overlaying:\n[0 0]\n"]


PANDOC = """\
---
jupyter:
  nbformat: 4
---

::: {.cell .markdown}
## Centrality
:::

::: {.cell .code execution_count="4"}
``` {.python}
G = 1
```
:::
"""


def test_pandocs_markdown_of_a_notebook_is_named_with_how_to_convert_it(tmp_path: Path):
    """nx-guides keeps one notebook as Pandoc writes a notebook in Markdown (fenced divs):
    'no code cells' was untrue and said nothing of what to do."""
    path = tmp_path / "Centrality.md"
    path.write_text(PANDOC)
    with pytest.raises(BuildError) as refused:
        read_notebook(path)
    assert refused.value.message.startswith("this is Pandoc's Markdown of a notebook")
    assert refused.value.line == 6
    assert "pandoc Centrality.md -o Centrality.ipynb" in refused.value.hint
    path.write_text(PANDOC.replace("{.cell", "{.note"))
    with pytest.raises(BuildError) as refused:
        read_notebook(path)
    assert refused.value.message.startswith("no code cells")
