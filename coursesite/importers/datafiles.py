"""The data files an imported notebook's code reads by name, found without running it.

A lesson runs in a folder of its own, holding only the files its front matter lists
(`files:`); a notebook reads whatever lay beside it. Found by the code's syntax tree: a
call that reads (`open(name)`, `np.load`, `pd.read_csv`, `Image.open`, `plt.imread`,
`Path(name).read_text()`, ...) given a relative file name (`rows.csv`, `data/x.npy`),
unless a step before it wrote that file or the folder it is in (`np.save`, `df.to_csv`,
`open(name, "w")`, a download's target, a shell line naming it). importcommand.py says
where each is and what to do.
"""

from __future__ import annotations

import ast
import re

READS = re.compile(
    r"^(?:open|load|loadtxt|genfromtxt|fromfile|memmap|imread|load_img|loadmat|read_\w+|"
    r"read_text|read_bytes|File|ZipFile|Dataset|ArrayRecordDataSource|TFRecordDataset)$"
)
WRITES = re.compile(
    r"^(?:save\w*|savetxt|savefig|to_\w+|dump|write_\w+|imsave|imwrite|urlretrieve|mkdir|"
    r"makedirs|download\w*|get_file|copy\w*|move|extractall|unpack_archive)$"
)
# A relative file name: no address, not absolute, with an extension.
FILE_NAME = re.compile(r"^(?![\w+.-]+://)(?![/~])[\w./-]*[\w-]\.[A-Za-z0-9]{1,8}$")


def data_reads(steps: list[tuple[int, str, str]]) -> list[tuple[int, str, int, str]]:
    """(step, cell, line in its code from 0, file name) of each read of a file that no
    earlier code wrote, in order."""
    written: set[str] = set()
    found = []
    for number, where, code in steps:
        shell = [
            word.strip("'\"")
            for line in code.splitlines()
            if line.lstrip().startswith("# notebook")  # a shell line the import turned off
            for word in line.split()
        ]
        written |= set(shell) | {word.rsplit("/", 1)[-1] for word in shell}
        try:
            tree = ast.parse(code)
        except SyntaxError:  # the build names the line
            continue
        calls = sorted(
            (node for node in ast.walk(tree) if isinstance(node, ast.Call)),
            key=lambda node: (node.lineno, node.col_offset),
        )
        for call in calls:
            names = _names_given(call)
            if _writes(call):
                written |= names | {name.rsplit("/", 1)[-1] for name in names}
                continue
            if not _reads(call):
                continue
            for name in sorted(names):
                if FILE_NAME.match(name) and not _made(name, written):
                    found.append((number, where, call.lineno - 1, name))
                    written.add(name)  # one line for each file, at its first read
    return found


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


# Calls that open a file in the mode they are given (`open(name, "w")`, `h5py.File`).
OPENERS = {"open", "File", "ZipFile"}


def _reads(call: ast.Call) -> bool:
    if _called(call) in OPENERS and re.search(r"[wax]", _mode(call)):
        return False
    return bool(READS.match(_called(call)))


def _writes(call: ast.Call) -> bool:
    """Whether the call writes the files it names: a writer, `open` to write, or a call
    that downloads into a folder (`MNIST("data", download=True)`)."""
    if any(k.arg == "download" and getattr(k.value, "value", None) is True for k in call.keywords):
        return True
    if _called(call) in OPENERS:
        return bool(re.search(r"[wax]", _mode(call)))
    return bool(WRITES.match(_called(call)))


def _mode(call: ast.Call) -> str:
    given = call.args[1:2] + [k.value for k in call.keywords if k.arg == "mode"]
    return next((str(g.value) for g in given if isinstance(g, ast.Constant)), "")


def _names_given(call: ast.Call) -> set[str]:
    """The strings the call is given: its arguments, or those of `Path(...)` it is a method
    of (`Path("rows.csv").read_text()`)."""
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
        inner = call.func.value
        arguments += [*inner.args, *(k.value for k in inner.keywords)]
    return {
        argument.value.strip()
        for argument in arguments
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
    }


def _made(name: str, written: set[str]) -> bool:
    """Whether earlier code wrote `name`, or a folder it is in, or a file of its name."""
    clean = name.removeprefix("./")
    return any(
        clean == made.removeprefix("./")
        or clean.startswith(made.removeprefix("./").rstrip("/") + "/")
        or clean.rsplit("/", 1)[-1] == made
        for made in written
        if made
    )
