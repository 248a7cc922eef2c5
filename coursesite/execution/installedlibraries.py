"""Failures that are the installed libraries' and not the code's: a package not installed
where the site is built, a name or keyword its installed version lacks, a call it retired.

Code written for another version of a library (an imported tutorial, often) fails on a name
that version does not have; the hint names the installed version and says what to do, and
blockfailures.py asks the same of every failing block at once.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from coursesite.execution.dependencies import distribution_version
from coursesite.execution.missingmodules import (
    NO_MODULE,
    is_installed,
    is_third_party,
    provided_module,
)
from coursesite.importers.hostedmodules import hosted_hint, hosted_only


class Lacked(NamedTuple):
    """What an installed package lacks that the code uses: `package` (its top module) and
    `name`, dotted (`jax.core.Primitive`, or a module: `jaxlib.mhlo_helpers`)."""

    package: str
    name: str


def lacked_by_installed(failure: dict) -> Lacked | None:
    """The name an installed package no longer (or not yet) has, if `failure` fails on one,
    as code written for another of its versions meets (an imported tutorial, often). A
    class's missing attribute is found on the failing line the traceback quotes, its module
    through the names the lesson imported (`failure["aliases"]`: `ocp` for orbax's v1)."""
    message = failure["message"]
    if missing := NO_MODULE.match(message):
        dotted = missing.group(1)
        module, _, inner = dotted.partition(".")
        # A namespace package's part another distribution provides is not installed.
        provided = inner and provided_module(dotted) == module
        if provided and not hosted_only(dotted) and is_installed(module):
            return Lacked(module, dotted)
        return None
    # Python's words, or a package's own module type's (Flax: "Module flax.nnx has no ...").
    if absent := re.match(
        r"AttributeError: [Mm]odule '?([\w.]+)'? has no attribute '(\w+)'", message
    ):
        module, name = absent.groups()
    elif absent := re.match(r"ImportError: cannot import name '(\w+)' from '([\w.]+)'", message):
        name, module = absent.groups()
    elif absent := re.match(
        r"AttributeError: type object '(?:[\w.]+\.)?(\w+)' has no attribute '(\w+)'", message
    ):  # the class's own name, which a type of C qualifies with its module
        return _called_on_installed(failure, f"{absent[1]}.{absent[2]}", r"\b")
    elif absent := re.match(r"AttributeError: '[\w.]+' object has no attribute '(\w+)'", message):
        return _instance_of_installed(failure, absent[1])
    else:
        return None
    return Lacked(module.split(".")[0], f"{module}.{name}")


def _called_on_installed(failure: dict, dotted: str, after: str) -> Lacked | None:
    """The installed package whose `dotted` name (`Class.attribute`) the failing line the
    traceback quotes reaches through a module (`ocp.options.Class.attribute`), followed by
    `after`; the full name, with the module the lesson's alias stands for."""
    found = re.search(
        rf"\b([A-Za-z_][\w.]*)\.{re.escape(dotted)}{after}", failure.get("traceback") or ""
    )
    if not found:
        return None
    head, _, rest = found.group(1).partition(".")
    module = ".".join(filter(None, [failure.get("aliases", {}).get(head, head), rest]))
    package = module.split(".")[0]
    return Lacked(package, f"{module}.{dotted}") if is_installed(package) else None


def _instance_of_installed(failure: dict, name: str) -> Lacked | None:
    """An installed package's object that lacks `name` where the lesson's line asks for it
    (runner: `attribute_of`, which leaves out a name close to one it has: a typo)."""
    owner = failure.get("attribute_of") or ""
    package = owner.partition(".")[0]
    if not owner or not is_third_party(package):
        return None
    return Lacked(package, f"{owner.rpartition('.')[2]}.{name}")


def library_hint(failure: dict) -> str:
    """For what the environment, not the code, lacks: a package that is not installed, or
    a name an installed package lacks (lacked_by_installed). The traceback names the
    installed library that imported a missing module as it ran, when one did."""
    message, traceback = failure["message"], failure.get("traceback", "")
    if lacked := lacked_by_installed(failure):
        noun = "module " if "No module named" in message else ""
        if (user := failing_library(traceback)) and user != lacked.package:
            return (  # tensorflow-probability 0.25 reaching into jax 0.10's internals
                f"the installed {installed_version(user)} uses {lacked.name}, which the "
                f"installed {installed_version(lacked.package)} lacks: it was made for "
                f"another {lacked.package}, and the two do not go together; install a {user} "
                f"made for this {lacked.package}, or the {lacked.package} it was made for"
            )
        return (
            f"the installed {lacked.package} has no {noun}{lacked.name}: "
            f"{another_version(lacked.package)}"
        )
    if missing := NO_MODULE.match(message):
        dotted = missing.group(1)
        module = dotted.partition(".")[0]
        if hosted_only(dotted):
            return hosted_hint(dotted)
        importer = _importing_library(traceback, module)
        return (
            f"{module} is not installed where the site is built"
            + (
                f" ({importer} imports it as it runs, without asking pip for it)"
                if importer
                else ""
            )
            + f": install its package there (pip install {module}, or its distribution's "
            "name) and build again"
        )
    return ""


# A library saying that what the code asks of it is gone: Flax's "In-place operations are
# no longer supported for Variable", "... has been removed", "... is deprecated".
_RETIRED = re.compile(
    r"\bno longer (?:supported|available|allowed|accepted)\b|\bhas been removed\b|"
    r"\bwas removed\b|\bis deprecated\b|\bhas been deprecated\b|"
    r"\bchanged in (?:[\w-]+ )?version \d|"  # Optimistix: "this changed in ... version 0.1.0"
    r"\b(?:as of|since) [\w-]+ (?:version )?v?\d+\.\d",  # Flax: "As of Flax 0.11.0 ... is required"
    re.I,
)


def retired_hint(failure: dict) -> str:
    """For a library that raised because the code asks what its installed version retired."""
    frames = _LIBRARY_FRAME.findall(failure.get("traceback") or "")
    if not frames or not _RETIRED.search(failure["message"]):
        return ""
    return (
        f"the installed {frames[-1]} says it no longer does what this line asks: the code was "
        f"written for an older version of {installed_version(frames[-1])}; change it as the "
        "message says, or install the version it was written for"
    )


# pydantic's words for arguments a library validates and refuses: "1 validation error for
# InitSchema\nsize\n  Field required" (albumentations 2's RandomResizedCrop, called as 1.x
# took it: width= and height= where it now takes size=).
_REFUSED_ARGUMENTS = re.compile(
    r"^\w*Error: \d+ validation errors? for \w+\n(\w+)\n\s+(.+?)(?: \[|$)", re.M
)


def refused_arguments_hint(failure: dict) -> str:
    """For a call whose arguments the installed library validated and refused: code written
    for another version of it, which took other arguments."""
    frames = _LIBRARY_FRAME.findall(failure.get("traceback") or "")
    refused = _REFUSED_ARGUMENTS.match(failure["message"])
    if not frames or not refused:
        return ""
    library = frames[0]  # the one the lesson's line called; pydantic raised for it
    return (
        f"the installed {library} refuses the arguments this line passes ({refused[1]}: "
        f"{refused[2]}): {another_version(library)}"
    )


_LIBRARY_FRAME = re.compile(r'File "[^"]*[/\\]site-packages[/\\](\w+)[/\\]')


def traced_libraries(failure: dict) -> list[str]:
    """The installed packages the failure's traceback ran through, each once, in order."""
    return list(dict.fromkeys(_LIBRARY_FRAME.findall(failure.get("traceback") or "")))


def raised_inside_hint(failure: dict) -> str:
    """For an error raised inside the installed packages a step called, which its own line
    does not explain (statsmodels' Mediation.fit ending in NumPy's 'SVD did not converge'):
    the package the step called, and its version, which most often makes the difference
    for an imported notebook; "" for an error the lesson's own code raised."""
    traceback = failure.get("traceback") or ""
    frames = re.findall(r'^\s*(File "[^"]+")', traceback, re.M)
    called = traced_libraries(failure)
    if not frames or not called or not _LIBRARY_FRAME.search(frames[-1]):
        return ""
    through = [library for library in called[1:] if library != called[0]]
    return (
        f"it was raised inside {installed_version(called[0])}, which this line calls"
        f"{f' (and in {through[-1]})' if through else ''}: check what the code gives it; "
        f"code written for another version of {called[0]} may need that version (pin it in "
        "the lesson's requirements)"
    )


def _importing_library(traceback: str, module: str) -> str:
    """The installed package whose code the traceback last ran in, unless it is `module`'s
    own: the library that imported it (TFDS imports importlib_resources lazily)."""
    frames = _LIBRARY_FRAME.findall(traceback)
    library = frames[-1] if frames else ""
    return library if library != module else ""


_UNEXPECTED_KEYWORD = re.compile(
    r"TypeError: ([\w.]+?)(?:\.__init__)?\(\) got an unexpected keyword argument '(\w+)'"
)


def keyword_drift(failure: dict) -> Lacked | None:
    """The installed package whose function or class does not take (yet, or any more) a
    keyword the lesson's call passed: `jax.vjp(f, x, saveable_args=...)`, written for a
    newer jax. Found on the failing line the traceback quotes, by the dotted name it was
    called by; else, when it was raised inside an installed package the call went through
    (Orbax's save_pytree handing `pytree=` on to its save), that package."""
    unexpected = _UNEXPECTED_KEYWORD.match(failure["message"])
    if not unexpected:
        return None
    function, keyword = unexpected.groups()
    if (called := _called_on_installed(failure, function, r"\(")) is not None:
        return Lacked(called.package, f"{called.name}({keyword}=)")
    # A method of a class the lesson imported by name, called on an instance
    # (`ExponentialSmoothing(data).fit(use_boxcox=True)`): Python names the class.
    head, _, rest = function.partition(".")
    imported = failure.get("aliases", {}).get(head, "")
    if imported and is_third_party(imported.split(".")[0]):
        return Lacked(imported.split(".")[0], f"{imported}.{rest}({keyword}=)")
    frames = _LIBRARY_FRAME.findall(failure.get("traceback") or "")
    return Lacked(frames[-1], f"{function}({keyword}=)") if frames else None


def keyword_hint(failure: dict) -> str:
    if (drift := keyword_drift(failure)) is None:
        return ""
    function, _, keyword = drift.name.rstrip("=)").partition("(")
    return (
        f"{function} of the installed {drift.package} takes no keyword {keyword}: "
        f"{another_version(drift.package)}"
    )


def refused_drift(failure: dict) -> Lacked | None:
    """The installed package whose function the lesson's line called with arguments it
    does not take, where the runner found the function (failingcall.py): BlackJAX's
    `step_fn`, kept as `step`; Matplotlib's `Axes.grouped_bar`, called on `axs[1]`."""
    called = failure.get("called") or {}
    package = (called.get("module") or "").partition(".")[0]
    if not package or not is_third_party(package):
        return None
    return Lacked(package, f"{called['name']}(…)")


def refused_call_hint(failure: dict) -> str:
    """For such a call (refused_drift): whose function it is, what it takes, and that the
    code was written for another version; Python's message names only its qualified name."""
    if (drift := refused_drift(failure)) is None:
        return ""
    called = failure["called"]
    takes = f"takes {called['takes']}" if called.get("takes") else "takes other arguments"
    return (
        f"{called['name']}, of {called['module']}, {takes} in the installed {drift.package}, "
        f"not what this line passes: {another_version(drift.package)}"
    )


def failing_library(traceback: str) -> str:
    """The installed library whose code the traceback's last frame is in, or ''."""
    frames = re.findall(r'File "[^"]*"', traceback or "")
    found = _LIBRARY_FRAME.match(frames[-1]) if frames else None
    return found.group(1) if found else ""


def another_version(package: str) -> str:
    """What to do about code written for another version of an installed `package`."""
    return (
        f"the code was written for another version of {installed_version(package)}; write it "
        "for the version installed (the page's setup help lists it), or install the version "
        "the code needs"
    )


def installed_version(module: str) -> str:
    """`grain (installed: 0.2.18)`, `Python (installed: 3.11.7)` for the standard library,
    or the module's name alone when no installed distribution says."""
    import importlib.metadata
    import platform
    import sys

    if module in sys.stdlib_module_names:
        return f"Python (installed: {platform.python_version()})"
    for distribution in importlib.metadata.packages_distributions().get(module, []):
        try:
            return f"{distribution} (installed: {importlib.metadata.version(distribution)})"
        except importlib.metadata.PackageNotFoundError:
            continue
    return module


# A library's own words asking for a package it goes without until a call needs it
# (Plotly: 'Image export requires the Kaleido package ... $ pip install --upgrade
# "kaleido>=1"'; pandas: "Missing optional dependency 'tabulate'. Use pip or conda ...").
_ASKED_INSTALL = re.compile(
    r"""pip install (?:--?[\w-]+ )*["']?(?P<requirement>[A-Za-z0-9][\w.-]*"""
    r"""(?:\[[\w,-]*\])?(?:\s*[<>=!~]=?\s*[\w.*]+)?)"""
    r"|Missing optional dependency '(?P<module>[\w.-]+)'"
    # plotly's "Please install anywidget to use the FigureWidget class"
    r"|[Pp]lease install (?P<named>[A-Za-z0-9][\w.-]*[A-Za-z0-9])\b(?! first| it\b)"
)


# kaleido's words when it finds no browser to draw Plotly's image with.
_ASKED_BROWSER = re.compile(r"requires (?:Google )?Chrome to be installed", re.I)


def asked_browser_hint(failure: dict) -> str:
    """For a library that starts a browser the machine lacks (Plotly's image export)."""
    if not _ASKED_BROWSER.search(failure["message"]):
        return ""
    libraries = traced_libraries(failure)
    who = libraries[-1] if libraries else "the library"
    return (
        f"{who} needs a Chrome or Chromium browser (Plotly's image export starts one "
        "through kaleido), which the machine that builds the site lacks: install it there "
        "(Debian: apt-get install chromium) and build again"
    )


def asked_install_hint(failure: dict) -> str:
    """For a failure whose message asks for a package that is not installed where the
    site is built, or not at a version it takes."""
    from packaging.requirements import InvalidRequirement, Requirement

    asked = _ASKED_INSTALL.search(failure["message"])
    if asked is None:
        return ""
    said = asked.group("requirement") or asked.group("module") or asked.group("named")
    line = re.sub(r"\s+", "", said)
    try:
        requirement = Requirement(line)
    except InvalidRequirement:
        return ""
    installed = distribution_version(requirement.name)
    if installed is not None and requirement.specifier.contains(installed, prereleases=True):
        return ""  # it is there: the failure is another's
    libraries = traced_libraries(failure)
    who = f"{libraries[-1]} asks" if libraries else "the error asks"
    state = f"{installed} is installed" if installed else "it is not installed"
    return (
        f"{who} for {line}, and {state} where the site is built: add the line {line} to "
        "the course's requirements, pip install it there, and build again"
    )


def library_arguments_hint(failure: dict) -> str:
    """For a TypeError raised inside an installed library the line calls (QuantEcon's
    tauchen takes its grid size first since 0.7, and a call written before fails deep
    inside it on a float): most often a call written for another version of it."""
    frames = _LIBRARY_FRAME.findall(failure.get("traceback") or "")
    if not frames or not failure["message"].startswith("TypeError:"):
        return ""
    # What the line calls (GPJax's `gpx.likelihoods.Gaussian(...)`), not the first library
    # the call went through (equinox's metaclass, which binds GPJax's arguments).
    library = _package_the_line_calls(failure) or frames[0]
    return (
        f"raised inside {installed_version(library)}, on the arguments this line passes: "
        f"code written for another version of {library} may pass what it now takes in "
        "another order or form (see the signature of what the line calls in the version "
        "installed); else fix the code"
    )


_CALLED = re.compile(r"\b([A-Za-z_]\w*)(?:\.\w+)*\s*\(")


def _package_the_line_calls(failure: dict) -> str:
    """The installed third-party package the failing line of the lesson calls into, by the
    names the lesson imported (`gpx` for gpjax), or ''."""
    aliases = failure.get("aliases", {})
    for head in _CALLED.findall(failing_line(failure.get("traceback") or "")):
        if is_third_party(package := aliases.get(head, head).split(".")[0]):
            return package
    return ""


def failing_line(traceback: str) -> str:
    """The code the traceback quotes under its last frame in the lesson's own code."""
    lines, found = traceback.splitlines(), ""
    for at, line in enumerate(lines[:-1]):
        frame = line.strip()
        own = not _LIBRARY_FRAME.match(frame) and "/lib/python" not in frame
        if frame.startswith('File "') and own:
            found = lines[at + 1].strip()
    return found
