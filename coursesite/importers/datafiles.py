"""The data files an imported notebook's code reads by name, and the folders it writes
into without making them, found without running it.

A lesson runs in a folder of its own, holding only the files its front matter lists
(`files:`); a notebook reads whatever lay beside it. Found by the code's syntax tree: a
call that reads (`open(name)`, `np.load`, `pd.read_csv`, `Image.open`, `plt.imread`,
`Path(name).read_text()`, ...) given a relative file name (`rows.csv`, `data/x.npy`),
unless a step before it wrote that file or the folder it is in (`np.save`, `df.to_csv`,
`open(name, "w")`, a download's target, a shell line naming it). A write into a relative
folder (`np.savez("_generated/x.npz")`) fails unless the code made that folder before it:
the notebook's repository had it, the folder the build runs the code in has none.
importcommand.py says where each is and what to do.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from coursesite.importers.steplines import arguments_by_parameter, code_tree

READS = re.compile(
    r"^(?:open|load|loadtxt|genfromtxt|fromfile|memmap|imread|load_img|loadmat|read_\w+|"
    r"read|read_text|read_bytes|File|ZipFile|BZ2File|GzipFile|LZMAFile|Dataset|"
    r"ArrayRecordDataSource|TFRecordDataset|"
    # a spreadsheet or store opened to read its sheets (pandas, openpyxl, xlrd, xarray)
    r"ExcelFile|HDFStore|ParquetFile|load_workbook|open_workbook|open_dataset|"
    r"open_mfdataset|open_dataarray|open_zarr|"
    r"Image|SVG)$"  # IPython.display's, given a file name
)
WRITES = re.compile(
    r"^(?:save\w*|savetxt|savefig|to_\w+|dump|write_\w+|imsave|imwrite|mimsave|mimwrite|urlretrieve|mkdir|"
    r"makedirs|download\w*|get_file|copy\w*|move|extractall|unpack_archive)$"
)
# A relative file name: no address, not absolute, with an extension; or a pattern of such
# names (`img_*.png`, from `f"img_{i}.png"`): `*` stands for what the code computes.
FILE_NAME = re.compile(r"^(?![\w+.-]+://)(?![/~])[\w./*-]*[\w*-]\.[A-Za-z0-9]{1,8}$")


def data_reads(steps: list[tuple[int, str, str]]) -> list[tuple[int, str, int, str]]:
    """(step, cell, line in its code from 0, file name) of each read of a file that no
    earlier code wrote, in order. A name is told as writes_without_folder tells it: a
    string, or a path built of strings and names assigned one (`os.path.join(DIR, "a.png")`)."""
    written: set[str] = set()
    found = []
    for number, where, code, calls in _calls(steps, with_unparsed=True):
        shell = [
            word.strip("'\"")
            for line in code.splitlines()
            if line.lstrip().startswith("# notebook")  # a shell line the import turned off
            for word in line.split()
        ]
        written |= set(shell) | {word.rsplit("/", 1)[-1] for word in shell}
        for node, names in calls:
            given = _paths_given(node, names)
            if writes_files(node):
                written |= given | {name.rsplit("/", 1)[-1] for name in given}
                continue
            if (own := _own_reader_paths(node, names)) is not None:
                given = own  # a function of the notebook's own that reads what it is given
            elif not reads_files(node):
                continue
            for name in sorted(given):
                if _file_like(name, node, names) and _specific(name) and not _made(name, written):
                    found.append((number, where, node.lineno - 1, name))
                    written.add(name)  # one line for each file, at its first read
    return found


# A relative path with a folder, or what `open()` is given, names a file though it has no
# extension (nx-guides' `open("data/pos", "rb")`, a pickle).
_PLAIN_PATH = re.compile(r"^(?![/~])[\w.-]+(?:/[\w.*-]+)*$")


def _file_like(name: str, call: ast.Call, names: _Scope) -> bool:
    if FILE_NAME.match(name):
        return True
    if _PLAIN_PATH.match(name) is None or name.strip(".") == "":
        return False
    return "/" in name or (called_name(call) == "open" and name == _opened(call, names))


def _opened(call: ast.Call, names: _Scope) -> str | None:
    """The file `open()` is given: its first argument, or `file=` (never its `mode`)."""
    given = next((k.value for k in call.keywords if k.arg == "file"), None)
    given = call.args[0] if call.args else given
    return _path(given, names) if given is not None else None


def files_written(steps: list[tuple[int, str, str]]) -> set[str]:
    """The relative files the code writes by a name that can be told (`%%writefile
    helpers.py` became `open("helpers.py", "w")`): a module it writes is its own."""
    return {
        name
        for _, _, _, calls in _calls(steps)
        for node, names in calls
        for name in _written_files(node, names)
    }


def _calls(
    steps: list[tuple[int, str, str]], with_unparsed: bool = False
) -> Iterator[tuple[int, str, str, Iterator[tuple[ast.Call, _Scope]]]]:
    """For each step (number, cell, code), its calls in the order they are written, each
    with the paths names hold as it is made (`DIR = "data"` before it); a step that does not
    parse has none (and is left out unless `with_unparsed`: the build names its line)."""
    names = _Scope()  # a name assigned a path: the path
    for number, where, code in steps:
        if (tree := code_tree(code)) is not None:
            yield number, where, code, _step_calls(tree, names)
        elif with_unparsed:
            yield number, where, code, iter(())


def _step_calls(tree: ast.Module, names: _Scope) -> Iterator[tuple[ast.Call, _Scope]]:
    for node in _in_order(tree):
        if isinstance(node, ast.Assign):
            _remember(node, names)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            _remember(_spelled_out(node, node.target.id), names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _remember_defaults(node.args, names)
            names.readers[node.name] = _reader(node)
        elif isinstance(node, ast.Call):
            yield node, names


def _specific(name: str) -> bool:
    """A file name, or a pattern that names some files rather than any (`img_*.png`,
    `frames/*.png`; not `*.png`, which is every image beside the notebook)."""
    folder, _, file = name.rpartition("/")
    stem = file.rsplit(".", 1)[0]
    return "*" not in name or stem.strip("*") != "" or (folder != "" and "*" not in folder)


def _in_order(tree: ast.Module) -> list[ast.stmt | ast.expr]:
    """The calls, assignments (`+=` too) and function definitions of `tree`, in the order
    they are written."""
    kinds = (ast.Call, ast.Assign, ast.AugAssign, ast.FunctionDef, ast.AsyncFunctionDef)
    nodes: list[ast.stmt | ast.expr] = [n for n in ast.walk(tree) if isinstance(n, kinds)]
    return sorted(nodes, key=lambda node: (node.lineno, node.col_offset))


class _Scope(dict[str, str]):
    """The paths names hold, and the notebook's own functions that read a file named by a
    parameter (`def load(url): ... open(Path(url))`), by name: the parameters that do."""

    def __init__(self) -> None:
        super().__init__()
        self.readers: dict[str, Reader] = {}
        # The string a name was assigned, as written: `data_path + "rows.csv"` joins it so
        # (QuantEcon's `data_path = '_static/lecture_specific/x/'`).
        self.texts: dict[str, str] = {}


@dataclass(frozen=True)
class Reader:
    positional: tuple[str, ...]  # its parameters, in the order calls give them
    reading: frozenset[str]  # those whose value names a file it reads


def _reader(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Reader:
    arguments = function.args
    positional = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args))
    return Reader(positional, frozenset(_reading_parameters(function)))


def _reading_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The parameters of `function` whose value reaches the path a reading call in it is
    given, directly or through names assigned from them (`path = Path(url)`)."""
    arguments = function.args
    parameters = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    derived = {parameter: {parameter} for parameter in parameters}
    assigns = [node for node in ast.walk(function) if isinstance(node, ast.Assign)]
    changed = True
    while changed:  # until no name learns more: one may be assigned from one assigned later
        changed = False
        for assign in assigns:
            sources = set().union(*(derived.get(name, set()) for name in _names_in(assign.value)))
            for target in (t.id for t in assign.targets if isinstance(t, ast.Name)):
                if not sources <= derived.get(target, set()):
                    derived[target] = derived.get(target, set()) | sources
                    changed = True
    reached: set[str] = set()
    for call in ast.walk(function):
        if isinstance(call, ast.Call) and reads_files(call):
            given = [*call.args, *(k.value for k in call.keywords), call.func]
            reached |= set().union(*(derived.get(n, set()) for g in given for n in _names_in(g)))
    return tuple(parameter for parameter in parameters if parameter in reached)


def _names_in(node: ast.AST) -> set[str]:
    return {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}


def _own_reader_paths(call: ast.Call, names: _Scope) -> set[str] | None:
    """The paths a call of the notebook's own reading function gives the parameters that
    name what it reads; None for any other call."""
    reader = names.readers.get(call.func.id) if isinstance(call.func, ast.Name) else None
    if reader is None or not reader.reading:
        return None
    return {
        path
        for name, value in arguments_by_parameter(call, reader.positional).items()
        if name in reader.reading and (path := _path(value, names)) is not None
    }


def _remember_defaults(arguments: ast.arguments, names: _Scope) -> None:
    """A parameter whose default is a path (`def load(csv_path="returns.csv")`, QuantEcon's
    loaders) is that path in the body, which reads it: `pd.read_csv(csv_path)`."""
    positional = [*arguments.posonlyargs, *arguments.args]
    pairs = [
        *zip(
            positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True
        ),
        *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
    ]
    for parameter, default in pairs:
        path = _path(default, names) if default is not None else None
        if path is not None:
            names[parameter.arg] = path


def _spelled_out(augmented: ast.AugAssign, name: str) -> ast.Assign:
    """`data_path += "x/"` as the `data_path = data_path + "x/"` it is (`/=` of a Path so)."""
    value = ast.BinOp(ast.Name(name, ast.Load()), augmented.op, augmented.value)
    return ast.Assign([augmented.target], value, lineno=augmented.lineno)


def _remember(assign: ast.Assign, names: _Scope) -> None:
    """Note the path a name is assigned, or forget the one it had."""
    path, text = _path(assign.value, names), _text(assign.value, names)
    texts = names.texts
    for target in assign.targets:
        if isinstance(target, ast.Name) and path is not None:
            names[target.id] = path
        elif isinstance(target, ast.Name):  # no longer the path it was
            names.pop(target.id, None)
        if isinstance(target, ast.Name) and text is not None:
            texts[target.id] = text
        elif isinstance(target, ast.Name):
            texts.pop(target.id, None)


def called_name(call: ast.Call) -> str:
    """The name a call is made by: `open` of `open(...)`, `savez` of `np.savez(...)`."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


# Calls that open a file in the mode they are given (`open(name, "w")`, `h5py.File`).
OPENERS = {"open", "File", "ZipFile", "BZ2File", "GzipFile", "LZMAFile"}


def reads_files(call: ast.Call) -> bool:
    """Whether the call reads the files it names (`pd.read_csv`, `open` to read, ...)."""
    if called_name(call) in OPENERS and re.search(r"[wax]", _mode(call)):
        return False
    return bool(READS.match(called_name(call)))


def writes_files(call: ast.Call) -> bool:
    """Whether the call writes the files it names: a writer, `open` to write, or a call
    that downloads into a folder (`MNIST("data", download=True)`)."""
    if any(k.arg == "download" and getattr(k.value, "value", None) is True for k in call.keywords):
        return True
    if called_name(call) in OPENERS:
        return bool(re.search(r"[wax]", _mode(call)))
    return bool(WRITES.match(called_name(call)))


def _mode(call: ast.Call) -> str:
    given = call.args[1:2] + [k.value for k in call.keywords if k.arg == "mode"]
    return next((str(g.value) for g in given if isinstance(g, ast.Constant)), "")


def _paths_given(call: ast.Call, names: _Scope) -> set[str]:
    """The paths the call is given: its arguments, or those of `Path(...)` it is a method
    of (`Path("rows.csv").read_text()`)."""
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
        inner = call.func.value
        arguments += [*inner.args, *(k.value for k in inner.keywords)]
    return {path for argument in arguments if (path := _path(argument, names)) is not None}


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


# Calls that make the folder they are given, or the folders of the files they are given:
# folder makers, unpackers and downloaders (which make their target's folders themselves).
MAKERS = re.compile(r"^(?:mkdir|makedirs|extractall|unpack_archive|download\w*|get_file)$")
# Writers given a source before their target (`shutil.copy(src, dst)`): only the last
# argument is written.
COPIERS = re.compile(r"^(?:copy\w*|move)$")


def writes_without_folder(
    steps: list[tuple[int, str, str]], present: Collection[str] = ()
) -> list[tuple[int, str, int, str, str]]:
    """(step, cell, line in its code from 0, file name, folder) of the first write of a
    file into each relative folder that no earlier code made (`np.save("out/x.npy")` with no
    `os.makedirs("out")` before it): the build runs the code in a folder of its own, where
    writing there raises FileNotFoundError. Folders are told by the code's syntax tree, and
    from names the code assigned a folder (`OUT = Path("out")`); once a folder is made by a
    name that cannot be told (`os.makedirs(args.out)`), no later write is reported. The
    folders of the `present` files (those `files:` lists) are there before any code runs."""
    made = {
        made for name in present if "/" in name for made in _with_parents(name.rpartition("/")[0])
    }
    found: list[tuple[int, str, int, str, str]] = []
    for number, where, _, calls in _calls(steps):
        for node, names in calls:
            if MAKERS.match(called_name(node)) or _downloads(node):
                told = _made_folders(node, names)
                if told is None:
                    return found
                made |= {folder for path in told for folder in _with_parents(path)}
                continue
            for name in _written_files(node, names):
                folder = name.rpartition("/")[0]
                if folder and folder not in made and FILE_NAME.match(name):
                    found.append((number, where, node.lineno - 1, name, folder))
                    made.add(folder)  # one line for each folder, at its first write
    return found


def _downloads(call: ast.Call) -> bool:
    return any(
        k.arg == "download" and getattr(k.value, "value", None) is True for k in call.keywords
    )


def _made_folders(call: ast.Call, names: _Scope) -> set[str] | None:
    """The folders a call makes: the one `os.makedirs`, `os.mkdir` or `Path(...).mkdir()`
    is given (None when it cannot be told), or for an unpacker or a downloader, each
    folder it is given and the folders of the files it is given (it makes them itself)."""
    if called_name(call) in ("mkdir", "makedirs"):
        given = [*call.args[:1], *(k.value for k in call.keywords if k.arg in ("name", "path"))]
        if isinstance(call.func, ast.Attribute) and not given:
            given = [call.func.value]  # Path("out").mkdir()
        folders = [_path(argument, names) for argument in given]
        return {folders[0]} if folders and folders[0] is not None else None
    given = [*call.args, *(k.value for k in call.keywords)]
    paths = {path for argument in given if (path := _path(argument, names)) is not None}
    return {path.rpartition("/")[0] if FILE_NAME.match(path) else path for path in paths}


def _written_files(call: ast.Call, names: _Scope) -> set[str]:
    """The relative files a call writes by a name that can be told."""
    if not writes_files(call):
        return set()
    if COPIERS.match(called_name(call)):
        given: list[ast.expr] = call.args[1:2] + [k.value for k in call.keywords if k.arg == "dst"]
    else:
        given = [*call.args, *(k.value for k in call.keywords)]
        if isinstance(call.func, ast.Attribute):
            given.append(call.func.value)  # Path("out/x.txt").write_text(...)
    return {path for argument in given if (path := _path(argument, names)) is not None}


def _path(node: ast.expr, names: _Scope) -> str | None:
    """The relative path an expression names, without a leading `./` or a trailing `/`:
    a string, a name assigned one, `Path(...)`, `a / "b"`, `os.path.join(a, "b")`, `a + "b"`,
    `os.getcwd()` or `Path.cwd()` (the folder the code runs in), `p.parent`, an f-string
    as a pattern (`img_*.png`); None for anything else (a computed name, an absolute path,
    an address)."""
    if isinstance(node, ast.JoinedStr):  # f"img_{i}.png": a pattern, `*` for each value
        pieces = [
            str(piece.value)
            if isinstance(piece, ast.Constant)
            else _path(piece.value, names) or "*"  # f"{DIR}/x.csv": the path DIR names
            for piece in node.values
            if isinstance(piece, (ast.Constant, ast.FormattedValue))
        ]
        node = ast.Constant("".join(pieces))
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        path = node.value.strip()
        relative = path and not path.startswith(("/", "~")) and "://" not in path
        return path.removeprefix("./").rstrip("/") or "." if relative else None
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Call) and called_name(node) in ("getcwd", "cwd") and not node.args:
        return "."  # os.getcwd(), Path.cwd(): the folder the code runs in
    if isinstance(node, ast.Call) and called_name(node) in ("Path", "PurePath", "join"):
        parts = [_path(argument, names) for argument in node.args]
        if not parts or None in parts or node.keywords:
            return None
        return "/".join(part for part in parts if part and part != ".") or "."
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _path(node.left, names), _path(node.right, names)
        return None if left is None or right is None else f"{left}/{right}".removeprefix("./")
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        inner = _path(node.value, names)
        return inner.rpartition("/")[0] or "." if inner is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        text = _text(node, names)
        return _path(ast.Constant(text), names) if text is not None else None
    return None


def _text(node: ast.expr, names: _Scope) -> str | None:
    """The string an expression of string literals, `+` and names assigned one is."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.texts.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, names), _text(node.right, names)
        return None if left is None or right is None else left + right
    return None


def _with_parents(folder: str) -> set[str]:
    """`folder` and every folder it is in (`a/b` -> `a/b`, `a`): making it made them."""
    parts = folder.split("/")
    return {"/".join(parts[:end]) for end in range(1, len(parts) + 1)}
