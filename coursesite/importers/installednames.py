"""Run by apidrift.py in an interpreter of its own, where the notebook's packages are
imported: reads the dotted names the code uses (JSON) on stdin, writes what of them the
installed packages lack (JSON) on stdout. What the packages print as they import goes to
stderr. Run as a script (`python -P installednames.py`), so that no module beside it, and
none of the notebook's, is imported in a package's place.
"""

import ast
import contextlib
import difflib
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import re
import sys
import types

imported_from: dict[str, str] = {}  # a dotted name -> the module a `from` import reads it from
needs: dict[str, list[str]] = {}  # a dotted name -> [the module the code imports, the one it lacks]
distributions: dict[str, list[str]] = {}
moved_up: dict[str, str] = {}  # a dotted name -> the same object, as the package above has it
loaded_first: set[str] = set()  # the modules loaded once the code's own imports ran
walk_imported: set[str] = set()  # modules the walks below imported, not loaded first


def missing(path):
    parts = path.split(".")
    if path in imported_from and (gone := unimportable(imported_from[path])):
        return gone
    try:
        found = importlib.import_module(parts[0])
    except ImportError as error:
        if error.name and error.name != parts[0]:
            lacking(path, parts[0], error)
        return None  # not installed (the import reports it), or it lacks another module
    except BaseException:
        return None  # broken: the build reports it
    for at in range(1, len(parts)):
        if not isinstance(found, (types.ModuleType, type)):
            return None
        above = found
        try:
            if hasattr(found, parts[at]):
                found = getattr(found, parts[at])
                # A module the walk of another name imported is as unloaded here.
                named = (
                    getattr(found, "__name__", None)
                    if isinstance(found, types.ModuleType)
                    else None
                )
                if named in walk_imported and (gone := unloaded(path, above, found, parts, at)):
                    return gone
                continue
        except BaseException:
            return None
        if not isinstance(found, types.ModuleType):
            return None  # a class may get attributes as it is used: say nothing wrong
        if optional(found, parts[at]):
            return None  # imported only if another package is there: not this version's
        # By the module's own name: the chain may have reached it by an attribute that is
        # no module path (`from orbax.checkpoint import v1`: orbax.checkpoint.experimental.v1).
        submodule = found.__name__ + "." + parts[at]
        try:
            found = importlib.import_module(submodule)
        except ImportError as error:
            if error.name and error.name != submodule:
                lacking(path, ".".join(parts[: at + 1]), error)
                return None  # no drift: the submodule needs another module
            return ".".join(parts[: at + 1])
        except BaseException:
            return None
        if submodule not in loaded_first:
            walk_imported.add(submodule)
            if gone := unloaded(path, above, found, parts, at):
                return gone
    return None


def unloaded(path, above, module, parts, at):
    # `qe.lqcontrol.LQ` after `import quantecon as qe`: quantecon no longer imports its
    # lqcontrol (a deprecated namespace now), so the attribute read fails, though the module
    # is there. Where the package above has the same object (`qe.LQ`), that is the name to
    # use, and the chain the code reads is gone; else "", and nothing is said (another
    # import may load the module).
    if at + 1 >= len(parts):
        return ""
    name = parts[at + 1]
    shown = attribute_of(module, name)
    if shown is None or attribute_of(above, name) is not shown:
        return ""
    # The whole chain is what fails, and what is written anew (`qe.lqcontrol.LQ.size`).
    moved_up[path] = ".".join([above.__name__, *parts[at + 1 :]])
    return path


def unimportable(module):
    # A from-import's module Python cannot import, though its package is installed: gone
    # (dynamax's `...linear_gaussian_ssm.linear_gaussian_ssm`), or a name of the package
    # now (`from jax.config import config`), which no walk of attributes would tell.
    # imported_above says where the name is now.
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        lacked = error.name or ""
        if "." in lacked and (module + ".").startswith(lacked + "."):
            return lacked
    except BaseException:
        pass  # a package that fails to import is the build's to report
    return None


def imported_above(path, lacked):
    # `from dynamax.linear_gaussian_ssm.linear_gaussian_ssm import LinearGaussianSSM`, whose
    # module is gone, or `from jax.config import config`, whose module is now a name: the
    # name, where the nearest package above the module has it.
    if not (module := from_gone_module(path, lacked)):
        return ""
    name, parts = path.rpartition(".")[2], module.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        above = sys.modules.get(".".join(parts[:depth]))
        if above is not None and hasattr(above, name):
            return ".".join(parts[:depth]) + "." + name
    return ""


def imported_elsewhere(path, lacked):
    # `from sklearn.cross_validation import train_test_split`, whose module is gone: where
    # else the package has the name it imports (sklearn.model_selection).
    if not from_gone_module(path, lacked):
        return ""
    return elsewhere(path.split(".")[0], path.rpartition(".")[2])


def from_gone_module(path, lacked):
    # The module a `from` import reads `path` from, when `lacked` (what is gone) is it or a
    # package above it; else "".
    module = imported_from.get(path, "")
    return module if module and (module + ".").startswith(lacked + ".") else ""


def lacking(path, module, error):
    # A module the code imports fails for want of another that is not installed at all
    # (orbax's training helpers import tensorflow_datasets): the build would fail there.
    lacked = error.name or ""
    top = lacked.split(".")[0]
    if isinstance(error, ModuleNotFoundError) and top and importlib.util.find_spec(top) is None:
        needs[path] = [module, lacked]


def optional(module, name):
    # Whether the module imports the name under a try that catches ImportError.
    try:
        with open(module.__file__, encoding="utf-8") as source:
            tree = ast.parse(source.read())
    except BaseException:
        return False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = [ast.unparse(handler.type) if handler.type else "" for handler in node.handlers]
        words = ("", "ImportError", "ModuleNotFoundError", "Exception", "BaseException")
        if not any(text in words for text in caught):
            continue
        for inner in node.body:
            for statement in ast.walk(inner):
                if isinstance(statement, (ast.Import, ast.ImportFrom)):
                    for alias in statement.names:
                        if (alias.asname or alias.name).split(".")[0] == name:
                            return True
    return False


def elsewhere(top, name):
    # The package itself, its public modules (a lazy package's too: dir() lists them), then
    # the public modules loaded below those, the shallowest first, where the name is the
    # package's own (statsmodels' `sm.ols` is statsmodels.formula.api.ols now), not what a
    # module imported from elsewhere (pandas.compat's datetime, a module's `np`).
    module = sys.modules.get(top)
    if module is None:
        return ""
    if hasattr(module, name):
        return top + "." + name
    for attribute in sorted(dir(module)):
        inner = attribute_of(module, attribute)
        public = isinstance(inner, types.ModuleType) and not attribute.startswith("_")
        if public and attribute_of(inner, name) is not None:
            return top + "." + attribute + "." + name
    loaded = sorted(
        (dotted.count("."), dotted)
        for dotted, inner in list(sys.modules.items())
        if dotted.startswith(top + ".")
        and isinstance(inner, types.ModuleType)
        and not any(part.startswith("_") for part in dotted.split("."))
    )
    for _, dotted in loaded:
        found = attribute_of(sys.modules.get(dotted), name)
        home = str(attribute_of(found, "__module__") or "")
        if found is not None and (home + ".").startswith(top + ".") and owned(dotted):
            return dotted + "." + name
    return ""


def attribute_of(thing, name):
    # A lazy package's attribute may import a module that fails (for want of another):
    # as good as absent here.
    try:
        return getattr(thing, name, None)
    except BaseException:
        return None


def owned(dotted):
    # A module of the package's API: not its compatibility shims or its tests.
    return not {"compat", "tests", "testing", "conftest"} & set(dotted.split("."))


def suggested(lacked):
    # What the package's own message says to use instead: NumPy 2's "`np.unicode_` was
    # removed in the NumPy 2.0 release. Use `np.str_` instead.", the alias standing for
    # the package; a name it has, or "".
    owner, _, name = lacked.rpartition(".")
    module = sys.modules.get(owner)
    if module is None:
        return ""
    try:
        getattr(module, name)
        return ""
    except AttributeError as error:
        said = re.search(r"\b[Uu]se `([A-Za-z_][\w.]*)` instead", str(error))
    except BaseException:
        return ""
    if not said:
        return ""
    first, _, rest = said.group(1).partition(".")
    dotted = owner.split(".")[0] + "." + rest if rest else owner + "." + first
    return dotted if resolved(dotted) is not None else ""


def serves(instead, path, names):
    # Whether the name found elsewhere has what the code reads off the one it replaces: a
    # module of a draft (`from statsmodels.kernel_methods import fast_linbin`, then
    # `fast_linbin.fast_linbin_nd`) is no function of the same name (nonparametric.kde's).
    found = resolved(instead)
    read = [used[len(path) + 1 :] for used in names if used.startswith(path + ".")]
    return found is not None and all(walked(found, rest) is not None for rest in read)


def resolved(dotted):
    # What the dotted name is among the modules imported here, or None.
    top, _, rest = dotted.partition(".")
    return walked(sys.modules.get(top), rest) if rest else sys.modules.get(top)


def walked(thing, dotted):
    for part in dotted.split("."):
        thing = attribute_of(thing, part)
    return thing


def close(lacked):
    # A name of the same module spelled almost alike: a misspelling (`np.linespace`) is no
    # other version's name.
    owner, _, name = lacked.rpartition(".")
    names = [n for n in dir(sys.modules.get(owner)) if not n.startswith("_")]
    found = difflib.get_close_matches(name, names, n=1, cutoff=0.85)
    return owner + "." + found[0] if owner in sys.modules and found else ""


def refused_keywords(path, given):
    # The keywords of `given` that what `path` names, as installed, takes in no way: its
    # signature has no parameter of that name and no **kwargs.
    found = resolved(path)
    if not callable(found):
        return []
    try:
        parameters = inspect.signature(found).parameters.values()
    except BaseException:  # no signature to read (a builtin): nothing to say
        return []
    if any(p.kind == p.VAR_KEYWORD for p in parameters):
        return []
    names = {p.name for p in parameters if p.kind != p.POSITIONAL_ONLY}
    return [keyword for keyword in given if keyword not in names]


def version(top):
    for distribution in distributions.get(top, []):
        try:
            return distribution, importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            pass
    if top in sys.stdlib_module_names:
        return "Python", ".".join(map(str, sys.version_info[:3]))
    return top, str(getattr(sys.modules.get(top), "__version__", "unknown"))


def main() -> None:
    asked, out = json.load(sys.stdin), sys.stdout
    sys.stdout = sys.stderr
    imported_from.update(asked["imported_from"])
    distributions.update(importlib.metadata.packages_distributions())
    for module in asked.get("imports", []):  # what the code's import lines load, first
        # A module that fails to import is found below, by the names it holds.
        with contextlib.suppress(BaseException):
            importlib.import_module(module)
    loaded_first.update(sys.modules)
    gone = {path: missing(path) for path in asked["names"]}
    found = {}
    # Where else a name is, asked once every name was looked up: the submodules the code's
    # other names imported (matplotlib.pyplot, for matplotlib.cm.get_cmap) are loaded by then.
    for path, lacked in gone.items():
        if lacked:
            top = path.split(".")[0]
            package, installed = version(top)
            instead = (
                moved_up.get(path, "")
                or imported_above(path, lacked)
                or suggested(lacked)
                or elsewhere(top, lacked.rsplit(".", 1)[1])
                or imported_elsewhere(path, lacked)
            )
            if instead and not serves(instead, path, asked["names"]):
                instead = ""
            found[path] = [lacked, package, installed, instead, "" if instead else close(lacked)]
    refused = {}  # a dotted name called -> {a keyword it does not take: [package, version]}
    for path, given in asked["called"].items():
        if path in gone and not gone[path]:
            unknown = refused_keywords(path, given)
            if unknown:
                refused[path] = {keyword: version(path.split(".")[0]) for keyword in unknown}
    json.dump({"gone": found, "needs": needs, "refused": refused}, out)


if __name__ == "__main__":
    main()
