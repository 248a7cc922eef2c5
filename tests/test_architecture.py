"""The package's layout: subpackages by concern, each described, no module too long, and no
import circle between modules (imports for type names and inside functions count too:
a circle of any kind means two modules cannot be read, or changed, one without the other)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "coursesite"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package's modules `path` imports, anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {target for target in targets if target in modules}
    return found - {name}


def import_graph() -> dict[str, set[str]]:
    paths = list(PACKAGE.rglob("*.py"))
    modules = {module_name(path) for path in paths}
    graph = {module_name(path): imports_of(path, modules) for path in paths}
    # Importing a.b.c runs a/__init__ and a/b/__init__ first: those are not circles.
    return {
        name: {t for t in targets if not name.startswith(t + ".")}
        for name, targets in graph.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return [*stack[stack.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_module_imports_itself_through_others():
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_a_planted_circle():
    graph = import_graph()
    graph["coursesite.errors"] = graph["coursesite.errors"] | {"coursesite.pipeline"}
    assert find_cycle(graph) is not None


def test_every_subpackage_says_what_it_holds_and_no_module_is_too_long():
    for init in PACKAGE.rglob("__init__.py"):
        docstring = ast.get_docstring(ast.parse(init.read_text()))
        assert docstring, f"{init.relative_to(ROOT)} has no docstring"
    long = [
        (str(path.relative_to(ROOT)), count)
        for path in PACKAGE.rglob("*.py")
        if (count := len(path.read_text().splitlines())) > 500
    ]
    assert long == []


HEAVY = (
    "dask",
    "distributed",
    "nbformat",
    "pagefind_bin",
    "jinja2",
    "matplotlib",
    "numpy",
    "pygments",
    "latex2mathml",
    "bs4",
    "watchfiles",
)


def test_starting_a_build_imports_only_what_its_first_stages_need():
    """The command line, and the stages up to execution, load none of what renders,
    indexes, converts notebooks or talks to a cluster: a code edit's lesson starts only
    after them, and these load while it runs (pipeline.run_lessons) or when used."""
    code = (
        "import json, sys\n"
        "import coursesite.cli\n"
        "coursesite.cli.parse_arguments(['--timings', '--lesson', 'x'])\n"
        "command_line = sorted({m.split('.')[0] for m in sys.modules})\n"
        "import coursesite.cache.fingerprint, coursesite.pipeline\n"
        "stages = sorted({m.split('.')[0] for m in sys.modules})\n"
        "print(json.dumps([command_line, stages]))\n"
    )
    printed = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    command_line, stages = json.loads(printed)
    assert [name for name in HEAVY if name in stages] == []
    assert [name for name in ("markdown_it", "msgspec", "yaml") if name in command_line] == []


def test_a_local_build_chooses_its_executor_without_the_cluster_module(tmp_path):
    """The executor is chosen right before a code edit's lesson starts: a local build does
    not load the cluster module (asyncio, pickle), which only a Dask build needs."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from coursesite.config.manifest import Settings\n"
        "from coursesite.config.options import BuildOptions\n"
        "from coursesite.execution.executors import choose_executor\n"
        f"folder = Path({str(tmp_path)!r})\n"
        "options = BuildOptions(*(folder / name for name in 'mosdc'))\n"
        "print(type(choose_executor(options, Settings(), {})).__name__)\n"
        "loaded = ('asyncio', 'coursesite.execution.cluster')\n"
        "print(sorted(m for m in loaded if m in sys.modules))\n"
    )
    printed = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert printed.split("\n")[:2] == ["LocalExecutor", "[]"]
