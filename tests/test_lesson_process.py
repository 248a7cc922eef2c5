"""Lesson code runs in the build as it runs as `python main.py`."""

from conftest import authoring_example, replace_block
from coursesite.pipeline import build

STEP_1 = """\
:::{step} 1. Make the records
Start `main.py` with the data.

```python
import os
import pickle
import sys
from dataclasses import dataclass
from multiprocessing import Pool

import numpy as np


@dataclass
class Batch:
    ids: list


def double(n):
    return 2 * n


ids = np.arange(11)
with Pool(2) as pool:
    print("doubled:", pool.map(double, [1, 2]))
print("argv:", sys.argv)
print("round trip:", pickle.loads(pickle.dumps(Batch([1, 2]))))
os.makedirs("elsewhere", exist_ok=True)
os.chdir("elsewhere")
```
:::
"""


def test_main_module_argv_and_current_folder_are_those_of_main_py(course_folder):
    text = replace_block(authoring_example(), ":::{step} 1.", STEP_1)
    course_folder.write(text)
    result = build(course_folder.options())  # main.py itself must print the same
    [page] = [p for p in (course_folder.root / "site").rglob("count-batches/index.html")]
    html = page.read_text()
    assert result.executed == ["count-batches"]
    assert "argv: [&#39;main.py&#39;]" in html
    assert "round trip: Batch(ids=[1, 2])" in html
    assert "doubled: [2, 4]" in html
