"""Which lines of an imported notebook's code read the network, found without running it.

A notebook written where the network is at hand downloads its data as it goes; the machine
that builds the site may have none. Found statically, by the code's syntax tree: a call
given an address (http, https, ftp, gs, s3, hf: a string, an f-string or a name assigned
one), a call of a known downloader (`urlopen`, `requests.get`, `tfds.load`,
`load_dataset`, NumPyro's example `load_dataset`, `keras.datasets.mnist.load_data`,
`from_pretrained`, ...) or data service (`yf.download`, pandas-datareader's `DataReader`,
`wbgapi`, `sns.load_dataset`), a call with `download=True` (torchvision's datasets), a
model builder asked for pretrained weights (torchvision's `weights=`, timm's
`pretrained=True`, Keras's applications), and a shell line that downloads (`!wget`,
`!curl`), which the import turned into a comment. lessonimport.py reports each at its
line in the lesson, with what to do.

A downloader inside a function of the notebook's own, given one of its parameters, reads
what the callers pass: where every call of that function passes a path (QuantEcon's
`_load_bundle(DATA_PATH)`, whose `urlopen` branch serves addresses only), it is no read,
and a caller that passes an address is named at its own line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from coursesite.importers.steplines import arguments_by_parameter, code_tree, lesson_line

ADDRESS = re.compile(r"^(?:https?|ftp|gs|s3|hf)://", re.I)
# Downloaders, by the full dotted name of what is called (imports resolved).
DOWNLOADERS = re.compile(
    r"^(?:"
    r"urllib\.request\.(?:urlopen|urlretrieve)"
    r"|(?:requests|httpx)(?:\.api)?\.(?:get|post|put|patch|head|delete|request|stream)"
    r"|urllib3\.request|wget\.download|gdown\.download(?:_folder)?|pooch\.retrieve"
    r"|tensorflow_datasets\.(?:load|data_source|download\.\w+)"
    r"|datasets\.load_dataset(?:_builder)?|numpyro\.examples\.datasets\.load_dataset"
    r"|huggingface_hub\.(?:hf_hub_download|snapshot_download)"
    r"|kagglehub\.\w+_download"
    r"|(?:tensorflow\.)?keras\.datasets\.\w+\.load_data"
    r"|(?:tensorflow\.)?keras\.utils\.get_file"
    r"|torch\.hub\.(?:load|load_state_dict_from_url|download_url_to_file)"
    r"|torchvision\.datasets\.utils\.download\w*"
    r"|sklearn\.datasets\.fetch_\w+"
    # Data services' clients: every call of wbgapi asks the World Bank's API.
    r"|yfinance\.download|pandas_datareader(?:\.data)?\.(?:DataReader|get_\w+)|wbgapi\..+"
    r"|(?:quandl|nasdaqdatalink)\.get|fredapi\.Fred|openml\.datasets\.get_dataset"
    r"|seaborn\.load_dataset|statsmodels\.(?:api\.)?datasets\.get_rdataset"
    r"|nltk\.download|gensim\.downloader\.load|tensorflow_hub\.(?:load|KerasLayer)"
    r"|transformers\.pipeline|sentence_transformers\.SentenceTransformer"
    # tiktoken fetches an encoding's vocabulary from OpenAI's storage on first use.
    r"|tiktoken\.(?:get_encoding|encoding_for_model)"
    r")$"
)
# Methods that download whatever object they are called on.
DOWNLOADING_METHODS = {"from_pretrained", "download_and_prepare", "urlopen", "urlretrieve"}
# A shell line (a comment once imported) that downloads.
SHELL_DOWNLOAD = re.compile(
    r"^\s*#\s*notebook (?:cell )?magic, not run: .*"
    r"\b(wget|curl|gsutil|gcloud storage|aws s3|git clone|kaggle|huggingface-cli|hf download)\b"
)
# Calls that only show, log, compare, parse or build an address: never a read.
SHOWING = {"print", "display", "Markdown", "HTML", "info", "debug", "warning", "write"}
SHOWING |= {"startswith", "endswith", "replace", "split", "strip", "find", "index", "count"}
SHOWING |= {"removeprefix", "removesuffix", "rstrip", "lstrip", "format", "join", "append"}
SHOWING |= {"match", "search", "fullmatch", "sub", "compile", "escape", "findall"}
SHOWING |= {"urlparse", "urlsplit", "quote", "unquote", "urlencode", "urljoin", "Request"}


class NetworkReads:
    """Scans a notebook's steps in order: what one step imports or names an address, the
    steps after it know."""

    def __init__(self, program: Iterable[str] = ()) -> None:
        self.modules: dict[str, str] = {}  # a name the code binds by import: what it imports
        self.addresses: set[str] = set()  # names assigned an address
        self.paths: set[str] = set()  # names assigned a string that is no address
        self.calls = _calls_by_name(program)  # the whole notebook's calls of plain names
        self.inside: dict[ast.Call, ast.FunctionDef] = {}  # of the step being scanned

    def scan(self, code: str) -> list[tuple[int, str]]:
        """(line in `code`, counting from 0, what it reads) of each network read."""
        found = [
            (number, f"`{match.group(1)}` downloads")
            for number, line in enumerate(code.splitlines())
            if (match := SHELL_DOWNLOAD.match(line))
        ]
        if (tree := code_tree(code)) is None:  # the build names the line
            return found
        self._learn(tree)
        self.inside = _enclosing_functions(tree)
        seen = {number for number, _ in found}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or node.lineno - 1 in seen:
                continue
            if what := self._reads(node):
                found.append((node.lineno - 1, what))
                seen.add(node.lineno - 1)
        return sorted(found)

    def _learn(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.modules[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                named = {t.id for t in targets if isinstance(t, ast.Name)}
                if self._given(node.value):
                    self.addresses |= named
                elif isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    self.paths |= named

    def _reads(self, call: ast.Call) -> str:
        name = self._dotted(call.func)
        written = ast.unparse(call.func) if name else "a call"  # as the author wrote it
        given = self._address_given(call)
        if any(k.arg == "download" and _false(k.value) for k in call.keywords) and not given:
            return ""  # `tfds.load(name, data_dir=..., download=False)` reads what is there
        if name.split(".")[-1] in SHOWING and not DOWNLOADERS.match(name):
            return ""  # a data service's `info` (wbgapi's `wb.series.info()`) reads too
        if DOWNLOADERS.match(name) or (
            isinstance(call.func, ast.Attribute) and call.func.attr in DOWNLOADING_METHODS
        ):
            return "" if self._given_paths_only(call) else f"{written}({given})"
        if any(keyword.arg == "download" and _true(keyword.value) for keyword in call.keywords):
            return f"{written}(..., download=True)"
        if pretrained := _pretrained(name, call):
            return f"{written}(..., {pretrained})"
        return f"{written}({given})" if given else ""

    def _given_paths_only(self, call: ast.Call) -> bool:
        """Whether `call` reads a parameter of the function it is in, and every call of that
        function in the notebook passes a path there (a string, or a name assigned one)."""
        function = self.inside.get(call)
        if function is None or not call.args or not isinstance(call.args[0], ast.Name):
            return False
        parameters = function.args.posonlyargs + function.args.args
        names = tuple(parameter.arg for parameter in parameters)
        if call.args[0].id not in names or not self.calls.get(function.name):
            return False
        return all(
            self._is_path(arguments_by_parameter(caller, names).get(call.args[0].id))
            for caller in self.calls[function.name]
        )

    def _is_path(self, node: ast.expr | None) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.paths and node.id not in self.addresses
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return not self._given(node)
        return False

    def _address_given(self, call: ast.Call) -> str:
        """The address `call` is given, as written (see _given), or ''."""
        for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
            if given := self._given(argument):
                return given
        return ""

    def _given(self, node: ast.expr) -> str:
        """What says `node` is an address: a string or f-string that starts with one, a
        name assigned one, or one extended (`BASE + "x.csv"`, `f"{BASE}/x.csv"`,
        `"https://.../{}".format(n)`, `urljoin(BASE, name)`, `os.path.join(BASE, name)`)."""
        if address := _address(node):
            return repr(address)
        if isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            return self._given(first.value) if isinstance(first, ast.FormattedValue) else ""
        if isinstance(node, ast.Name) and node.id in self.addresses:
            return f"{node.id}, an address"
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            return self._given(node.left)
        if not isinstance(node, ast.Call):
            return ""
        called = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        called = node.func.id if isinstance(node.func, ast.Name) else called
        if called == "format" and isinstance(node.func, ast.Attribute):
            return self._given(node.func.value)
        if called in ("join", "urljoin", "Request") and node.args:
            return self._given(node.args[0])
        return ""

    def _dotted(self, node: ast.expr) -> str:
        """`np.load` as `numpy.load`, imports resolved; '' for what is no dotted name."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        return ".".join([self.modules.get(node.id, node.id), *parts])


def _calls_by_name(program: Iterable[str]) -> dict[str, list[ast.Call]]:
    """Every call of a plain name (`load(...)`, not `x.load(...)`) in the steps' code."""
    calls: dict[str, list[ast.Call]] = {}
    for tree in filter(None, map(code_tree, program)):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                calls.setdefault(node.func.id, []).append(node)
    return calls


def _enclosing_functions(tree: ast.Module) -> dict[ast.Call, ast.FunctionDef]:
    """The innermost function (not method: its callers are no plain names) each call is in."""
    methods = {
        id(node)
        for owner in ast.walk(tree)
        if isinstance(owner, ast.ClassDef)
        for node in owner.body
    }
    inside: dict[ast.Call, ast.FunctionDef] = {}
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef) and id(function) not in methods:
            # ast.walk goes outer first: an inner function's calls are then marked as its own
            for node in ast.walk(function):
                if isinstance(node, ast.Call):
                    inside[node] = function
    return inside


def _address(node: ast.expr) -> str:
    """The address a string or f-string starts with, or ''."""
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    text = node.value if isinstance(node, ast.Constant) else None
    return text.strip() if isinstance(text, str) and ADDRESS.match(text.strip()) else ""


# Model builders whose pretrained weights are downloaded when asked for: torchvision's and
# timm's by `weights=`/`pretrained=True`, Keras's applications unless `weights=None`.
_MODEL_BUILDERS = re.compile(r"^(?:torchvision\.models|timm)\.")
_KERAS_APPLICATIONS = re.compile(r"^(?:tensorflow\.)?keras\.applications\.")


def _pretrained(name: str, call: ast.Call) -> str:
    """How `call`, of the model builder `name`, asks for pretrained weights, or ''."""
    given = {keyword.arg: keyword.value for keyword in call.keywords}
    weights = given.get("weights")
    if _MODEL_BUILDERS.match(name):
        if weights is not None and not _none(weights):
            return f"weights={ast.unparse(weights)}"
        return "pretrained=True" if _true(given.get("pretrained", ast.Constant(None))) else ""
    if _KERAS_APPLICATIONS.match(name) and name.split(".")[-1][:1].isupper():
        return "" if weights is not None and _none(weights) else "its pretrained weights"
    return ""


def _none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _false(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def network_notes(text: str, steps: list[tuple[int, str, str]]) -> list[str]:
    """One report line for every read of the network in the steps (number, cell.where,
    code), each at its line in the lesson `text`: one cause, said once with what to do."""
    reads = NetworkReads(code for _, _, code in steps)
    found = [
        (where, f"step {number} at lesson line {lesson_line(text, number, offset)}", what)
        for number, where, code in steps
        for offset, what in reads.scan(code)
    ]
    if not found:
        return []
    places = ", ".join(dict.fromkeys(where for where, _, _ in found))
    if len(found) == 1:
        _, at, what = found[0]
        said = f"{at} reads the network ({what})"
    else:
        listed = "; ".join(f"{at}: {what}" for _, at, what in found)
        said = f"the lesson reads the network in {len(found)} places ({listed})"
    return [
        f"{places}: {said}, and the machine that builds the site may have none: save the "
        "data beside the lesson, list it in the front matter's files: and read it from "
        "there (import again with --fetch to do so for a file the code names by address); "
        "or tag the cell skip-execution and import again, which shows its code without "
        "running it"
    ]
