"""Outputs a lesson is expected to reproduce: those a notebook stored when it was imported.

`build.py import` keeps each code cell's stored output in a YAML file beside the lesson and
names it in the front matter (`expected_outputs:`). After every run, each block's fresh
output is compared with it, volatile lines masked as `build.py check` masks them, and each
difference is a warning (so `build.py check` fails) at the block's line, with the diff.
Once the author has read the differences, they delete the file and the front-matter line.

Where the fresh run shows nothing of a part the notebook stored (its printed text, its
messages on stderr, its value, or an image or other rich display: a figure closed before
the step ended, a display only a kernel shows), nothing of it is lost: `unshown` names
those parts, the page shows them labelled as the notebook's (outputs/storedoutputs.py),
and the warning names the step and the notebook's cell.

A stored output too long to keep whole (a notebook may store megabytes) is kept as its first
and last lines around a marker (`capped`); the fresh output is cut the same way before the
two are compared, so a long output that did not change gives no warning. A difference shows
its first lines; the whole diff is written beside the cache (diffreport.py).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import msgspec
import yaml

from coursesite.config.yamlmodel import dump_yaml
from coursesite.errors import BuildError
from coursesite.execution.diffreport import bounded_diff
from coursesite.execution.executionrecord import BlockOutput, ExecutionRecord, mask_volatile
from coursesite.lesson.model import Lesson, RunnableBlock

# Characters of a stored output the expected-outputs file keeps, from its start and its end.
KEPT_HEAD, KEPT_TAIL = 20_000, 5_000
KEPT_DISPLAY = 2_000_000  # characters of one stored rich display (an image's base64)


def capped(text: str) -> str:
    """`text`, or when it is longer than KEPT_HEAD + KEPT_TAIL (and a marker's room), its
    first and last whole lines with a line between them saying what was left out. The
    result is short enough to stay as it is when capped again."""
    if len(text) <= KEPT_HEAD + KEPT_TAIL + 200:
        return text
    head, tail = text[:KEPT_HEAD], text[-KEPT_TAIL:]
    if "\n" in head:
        head = head[: head.rindex("\n") + 1]
    if "\n" in tail[:-1]:
        tail = tail[tail.index("\n") + 1 :]
    left = text[len(head) : len(text) - len(tail)]
    marker = (
        f"[… {left.count(chr(10)):,} lines, {len(left):,} characters left out: only the "
        "first and last lines are kept and compared …]\n"
    )
    return head + ("" if head.endswith("\n") else "\n") + marker + tail


class StoredOutput(msgspec.Struct, forbid_unknown_fields=True):
    stdout: str = ""
    display: str = ""
    cell: str = ""  # where the notebook holds it ("cell 5", "line 40"); older files lack it
    stderr: str = ""  # shown when the fresh run writes nothing to stderr; never compared
    # MIME bundles of the displays it showed that hold more than text (notebooks.RICH_TYPES;
    # images as base64): shown when the fresh run shows no image or rich display
    displays: list[dict[str, str]] = msgspec.field(default_factory=list)


# The parts of a stored output, as `unshown` names them, in the words the warning uses.
PARTS = {
    "stdout": "printed output",
    "stderr": "messages on stderr",
    "value": "value",
    "displays": "displayed images or rich output",
}


class ExpectedOutputs(msgspec.Struct, forbid_unknown_fields=True):
    source: str  # the notebook they came from, as given to `build.py import`
    blocks: dict[str, StoredOutput]


def dump_expected(source: str, blocks: dict[str, StoredOutput]) -> str:
    """The YAML file `build.py import` writes; block ids are those of the lesson's record."""
    data = msgspec.to_builtins(ExpectedOutputs(source, blocks))
    for block in data["blocks"].values():  # files without them stay as they were
        for optional in ("stderr", "displays"):
            if not block[optional]:
                del block[optional]
    header = (
        "# Outputs stored in the notebook this lesson was imported from. Every build compares\n"
        "# them with what the lesson's blocks print now and warns about each difference.\n"
        "# Once you have checked them, delete this file and the lesson's `expected_outputs:`.\n"
    )
    return header + dump_yaml(data)


def output_drift(
    lesson: Lesson, record: ExecutionRecord, data: bytes, reports: Path
) -> list[BuildError]:
    """A warning per block whose fresh output differs from the stored one; a long diff is
    cut, and written whole to `reports`/BLOCK.diff."""
    name = lesson.front.expected_outputs or ""
    path = lesson.path.parent / name
    try:
        expected = read_expected(lesson, data)
    except BuildError as unreadable:
        return [unreadable]
    blocks = {block.id: block for block in lesson.runnable_blocks()}
    warnings = []
    reprinted: list[RunnableBlock] = []  # blocks whose output differs only in NumPy printing
    varying = lesson.output_varies()
    for block_id, stored in expected.blocks.items():
        fresh = record.blocks.get(block_id)
        if fresh is None or block_id not in blocks:
            warnings.append(
                BuildError(
                    f"{name} has outputs for '{block_id}', which the lesson no longer has",
                    path,
                    hint="delete that entry, or the whole file once the outputs are checked",
                )
            )
            continue
        difference = (
            ""
            if block_id in varying
            else _difference(stored, fresh, lesson.front.volatile, expected.source)
        )
        detail = bounded_diff(difference, reports / f"{block_id}.diff") if difference else None
        where = f"{expected.source}" + (f" ({stored.cell})" if stored.cell else "")
        missing = unshown(stored, fresh)
        if missing:
            warnings.append(
                BuildError(
                    f"{blocks[block_id].label} shows nothing of the "
                    f"{' and '.join(PARTS[part] for part in missing)} stored in {where}: the "
                    "page shows the notebook's stored output instead, labelled as stored",
                    lesson.path,
                    blocks[block_id].code.line,
                    hint="make the step show it (a figure: leave it open, no plt.close(); a "
                    "value: end the step with it), or, if it should show nothing, remove "
                    f"'{block_id}' from {name}",
                    detail=detail,
                )
            )
        elif difference and _printed_alike(stored, fresh, lesson.front.volatile):
            reprinted.append(blocks[block_id])
        elif difference:
            warnings.append(
                BuildError(
                    f"output of {block_id} differs from the output stored in {where}",
                    lesson.path,
                    blocks[block_id].code.line,
                    hint=f"if the new output is right, remove '{block_id}' from {name}",
                    detail=detail,
                )
            )
    if reprinted:  # said once, at the first of them
        labels = ", ".join(block.label for block in reprinted)
        warnings.append(
            BuildError(
                f"the output of {labels} differs from what {expected.source} stored only as "
                "newer NumPy prints numbers (arrays without a space kept for the sign, since "
                "1.14; a scalar with its type, np.int64(71) for 71, since 2.0)",
                lesson.path,
                reprinted[0].code.line,
                hint=f"nothing to fix; remove them from {name} once you have read them",
            )
        )
    return warnings


def read_expected(lesson: Lesson, data: bytes) -> ExpectedOutputs:
    """The lesson's expected-outputs file, read; a BuildError naming it when it cannot be."""
    name = lesson.front.expected_outputs or ""
    try:
        return msgspec.convert(yaml.safe_load(data.decode("utf-8")), ExpectedOutputs)
    except (yaml.YAMLError, UnicodeDecodeError, msgspec.ValidationError) as problem:
        raise BuildError(
            f"expected outputs file {name} cannot be read: {problem}",
            lesson.path.parent / name,
            hint="it is written by `build.py import`; delete it and the lesson's "
            "`expected_outputs:` line once its outputs are checked",
        ) from None


def stored_runs(data: bytes) -> dict[str, str]:
    """The blocks the notebook ran and kept the output of, in the expected-outputs file
    `data`, each with where it holds it ("downloads.ipynb (cell 5)"); none when the file
    cannot be read (its problems are output_drift's to report)."""
    try:
        expected = msgspec.convert(yaml.safe_load(data.decode("utf-8")), ExpectedOutputs)
    except (yaml.YAMLError, UnicodeDecodeError, msgspec.ValidationError):
        return {}
    return {
        block: expected.source + (f" ({stored.cell})" if stored.cell else "")
        for block, stored in expected.blocks.items()
    }


def unshown(stored: StoredOutput, fresh: BlockOutput) -> list[str]:
    """The parts of the stored output (keys of PARTS) of which the fresh run shows nothing:
    stored text where the fresh run has none of that kind, stored images or rich displays
    where it drew no figure and displayed nothing richer than text. A value the stored
    displays hold already is not named twice."""
    missing = [
        part
        for part, before, now in (
            ("stdout", stored.stdout, fresh.stdout),
            ("stderr", stored.stderr, fresh.stderr),
        )
        if before.strip() and not now.strip()
    ]
    rich_now = (
        fresh.captured_svgs
        or fresh.figure is not None
        or fresh.display_bundle
        or any(shown.get("bundle") for shown in fresh.displays)  # display() on earlier lines
    )
    if stored.displays and not rich_now and not _printed_as_text(stored.displays, fresh.stdout):
        missing.append("displays")
    elif stored.display.strip() and not fresh.display.strip():
        missing.append("value")
    return missing


def _printed_as_text(displays: list[dict[str, str]], stdout: str) -> bool:
    """Whether the fresh run printed each of the stored displays as its own text: a library
    that shows a rich table in a notebook (rich, Flax's visualize_array_sharding) prints
    the same table where there is no notebook. An image's text is not the image."""
    printed = {line.strip() for line in stdout.splitlines()} - {""}
    for display in displays:
        text = display.get("text/plain", "")
        lines = {line.strip() for line in text.splitlines()} - {""}
        image = any(kind.startswith("image/") for kind in display)
        if image or not lines or not lines <= printed:
            return False
    return True


def _difference(stored: StoredOutput, fresh: BlockOutput, volatile: list[str], source: str) -> str:
    def comparable(stdout: str, display: str) -> list[str]:
        return mask_volatile(capped(stdout), volatile) + [
            "Out: " + line for line in mask_volatile(capped(display), volatile)
        ]

    return "\n".join(
        difflib.unified_diff(
            comparable(stored.stdout, stored.display),
            comparable(fresh.stdout, fresh.display),
            fromfile=f"stored in {Path(source).name}",
            tofile="fresh run",
            lineterm="",
        )
    )


# NumPy 2's repr of a scalar, `np.float64(0.5)`, `np.True_`: what NumPy 1 printed, `0.5`.
_NUMPY_SCALAR = re.compile(
    r"\bnp\.(?:u?int\d+|float\d+|complex\d+|bool|str_|bytes_|c?longdouble)\(([^()]*)\)"
)
_NUMPY_BOOL = re.compile(r"\bnp\.(True|False)_")


def _printed_alike(stored: StoredOutput, fresh: BlockOutput, volatile: list[str]) -> bool:
    """Whether the two outputs hold the same numbers and words, told apart only by how
    NumPy prints: its spacing (before 1.14 an array kept a space for the sign, `[ 6.  0.]`,
    and where lines break follows from it) and NumPy 2's scalar reprs."""

    def tokens(text: str) -> str:
        text = _NUMPY_BOOL.sub(r"\1", _NUMPY_SCALAR.sub(r"\1", text))
        return re.sub(r"([\[(]) | (?=[\])])", r"\1", " ".join(text.split()))

    def whole(output: StoredOutput | BlockOutput) -> str:
        return "\n".join(mask_volatile(output.stdout + "\n" + output.display, volatile))

    return tokens(whole(stored)) == tokens(whole(fresh))
