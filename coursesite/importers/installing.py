"""`build.py import NB --install`: install the packages a notebook imports and the build's
environment lacks, then pin them in the course's requirements, so that the lesson builds
at once, here and on a fresh machine that installs the course from its requirements.

pip installs into the environment of the Python running the import, the one the build
runs lessons with. What it asks for is each missing module's distribution, as the
notebook's own `!pip install` line gives it (`optax==0.2.4`) or by its name, under a
constraint that every distribution installed already keeps its version: an import never
moves a package the course's other lessons use. A requirement pip cannot install so (a
notebook that needs NumPy<2, a meta-package pinning another JAX) is named in the import's
report with pip's reason, and the others are installed all the same. Afterwards every
distribution pip added, dependencies included, is pinned at its installed version in
`requirements.txt` and, when the course keeps its direct requirements apart in
`requirements.in`, the notebook's requirement there too.

Then each module installed is imported, in an interpreter of its own, as the lesson will
import it: a package that, as it is imported, imports a module its metadata does not ask
for gets that module installed too (a module imported only later, when a function runs,
is found by the build's hint instead), and one
that still fails to import is named in the report, before the first build.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from coursesite.errors import BuildError
from coursesite.execution.dependencies import normalized_name
from coursesite.execution.missingmodules import is_installed, missing_module, missing_modules
from coursesite.files import write_atomically
from coursesite.importers.requirements import distribution_of, requirement_line

LOCK_FILE, DIRECT_FILE = "requirements.txt", "requirements.in"
_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*==")


@dataclass
class Installation:
    """What `--install` did: the requirements pip was given, and the versions it left."""

    requested: list[str] = field(default_factory=list)
    pins: dict[str, str] = field(default_factory=dict)  # distribution -> installed version
    undeclared: list[str] = field(default_factory=list)  # installed for an import, not asked for
    unimportable: dict[str, str] = field(default_factory=dict)  # module -> how its import fails
    refused: dict[str, str] = field(default_factory=dict)  # requirement -> why pip would not
    # A requirement by address (`numpyro@git+https://...`) pip could not fetch -> the
    # release it installed from the package index instead: (distribution, version)
    released: dict[str, tuple[str, str]] = field(default_factory=dict)


def requirements_to_install(
    code: list[str], local: set[str], installs: list[str]
) -> dict[str, str]:
    """The requirement of each module the code imports that is not installed (and not a
    module of the lesson's own, in `local`), by module."""
    missing = missing_modules([{"id": "", "code": source} for source in code], local)
    return {m: requirement_line(distribution_of(m), installs) for m in missing}


# Rounds of installing what an installed package imports without asking for it.
_UNDECLARED_ROUNDS = 3


def install(requirements: list[str], modules: Sequence[str] = ()) -> Installation:
    """Run pip for `requirements` in this Python's environment, then for each of `modules`
    (the ones they were for) that they did not provide, by its own name; then import them
    and install what those import undeclared. pip's progress goes to stderr. A requirement
    pip refuses is in the result's `refused`, with pip's reason."""
    if not requirements:
        return Installation()
    installation = _installed_each(requirements)
    _released_instead(installation)
    # A module no requirement provided, by its own name; one the notebook pins, never
    # unpinned behind the pin's back (the report says why the pin was refused).
    asked = {_name(requirement) for requirement in requirements}
    unprovided = {distribution_of(m) for m in modules if not is_installed(m)}
    _merge(installation, _installed_each(sorted(d for d in unprovided if _name(d) not in asked)))
    present = [module for module in modules if is_installed(module)]  # the rest: reported
    installation.unimportable = _import_failures(present)
    for _ in range(_UNDECLARED_ROUNDS):
        lacking = {missing_module(message) for message in installation.unimportable.values()}
        asked = set(installation.undeclared) | set(installation.refused)
        wanted = sorted({distribution_of(m) for m in lacking if m} - asked)
        if not wanted:
            break
        more = _installed_each(wanted)
        _merge(installation, more)
        installation.undeclared += [w for w in wanted if w not in more.refused]
        installation.unimportable = _import_failures(present)  # as they import now
    return installation


def _released_instead(installation: Installation) -> None:
    """For each refused requirement that names its distribution by an address (a git
    repository, an archive: `numpyro@git+https://github.com/...`, `git+...#egg=numpyro`;
    a repository alone is named as its project: `git+https://github.com/probml/dynamax.git`),
    which the machine may not reach, the distribution's release from the package index,
    installed in its place; said in `released` (the notebook wanted another build of it)."""
    for requirement in list(installation.refused):
        named = (
            _ADDRESSED.match(requirement.strip())
            or _EGG.search(requirement)
            or _REPOSITORY.match(requirement.strip())
        )
        if named is None:
            continue
        release = _installed_each([named.group("name")])
        if release.refused:
            continue
        name = named.group("name")
        version = next(
            (v for d, v in release.pins.items() if normalized_name(d) == normalized_name(name)),
            "",
        )
        del installation.refused[requirement]
        installation.released[requirement] = (name, version)
        _merge(installation, release)


# PEP 508's `name[extras] @ url`, and pip's older `git+url#egg=name`.
_ADDRESSED = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*@\s*\S")
_EGG = re.compile(r"^(?:git|hg|svn|bzr)\+\S*#(?:\S*&)?egg=(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)")
# A repository alone, `git+https://github.com/probml/dynamax.git`: named as its project,
# as most are (the release's name is checked: pip refuses a name the index lacks).
_REPOSITORY = re.compile(
    r"^(?:git|hg)\+[a-z]+://[^\s#]*/(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*?)(?:\.git)?"
    r"(?:@[^\s#/]*)?/?$"
)


def _merge(installation: Installation, more: Installation) -> None:
    installation.requested += more.requested
    installation.pins |= more.pins
    installation.refused |= more.refused


def _installed_each(requirements: list[str]) -> Installation:
    """pip's install of `requirements` together or, when pip refuses them together, of each
    on its own: one that cannot be installed here (a meta-package that pins another JAX, a
    name no release has) keeps none of the others out. What pip refused is in `refused`,
    with its reason and what to do; nothing installed already moves either way."""
    if not requirements:
        return Installation()
    try:
        return _pip_install(requirements)
    except BuildError as failed:
        if len(requirements) == 1:
            return Installation(refused={requirements[0]: f"{failed.message}\n{failed.hint}"})
    installation = Installation()
    for requirement in requirements:
        try:
            done = _pip_install([requirement])
        except BuildError as failed:
            installation.refused[requirement] = f"{failed.message}\n{failed.hint}"
            continue
        installation.requested.append(requirement)
        installation.pins |= done.pins
    return installation


def _import_failures(modules: Sequence[str]) -> dict[str, str]:
    """How each of `modules` fails to import in a fresh interpreter of this environment."""
    if not modules:
        return {}
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, *modules],
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {modules[0]: done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""}


_IMPORT_EACH = """
import importlib, json, sys
failed = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except BaseException as error:
        failed[name] = f"{type(error).__name__}: {error}"
print(json.dumps(failed))
"""


def _pip_install(requirements: list[str]) -> Installation:
    before = installed_versions()
    print(f"installing {' '.join(requirements)} with pip ({sys.executable})", file=sys.stderr)
    with tempfile.TemporaryDirectory() as folder:
        kept = Path(folder) / "installed.txt"  # what pip may not move
        kept.write_text("".join(f"{name}=={version}\n" for name, version in before.items()))
        command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check"]
        # pip's progress is shown as it goes, and kept: its reason for a refusal is there.
        with subprocess.Popen(
            [*command, "--constraint", str(kept), *requirements],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as pip:
            assert pip.stdout is not None
            said = []
            for line in pip.stdout:
                sys.stderr.write(line)
                said.append(line)
    if pip.returncode != 0:
        raise _pip_failed(requirements, "".join(said))
    importlib.invalidate_caches()  # the new packages are found by this process too
    after = installed_versions()
    changed = {name: version for name, version in after.items() if before.get(name) != version}
    return Installation(requirements, changed)


def _pip_failed(requirements: list[str], stderr: str) -> BuildError:
    last = _pip_reason(stderr)
    wanted = " ".join(requirements)
    if "ResolutionImpossible" in stderr or "conflict" in stderr.lower():
        return BuildError(
            f"pip could not install {wanted} without changing a package installed already:\n{last}",
            hint="the notebook needs other versions than this environment has: install what "
            "it needs in an environment of its own, or write it for the versions installed; "
            "then import again without --install",
        )
    if "to install build dependencies did not run successfully" in stderr:
        # No release installs beside what is installed, so pip went back to an old one
        # published as source, and its build asked for what this Python cannot install.
        needed = re.search(r"No matching distribution found for (\S+)", stderr)
        return BuildError(
            f"pip could not install {wanted}: no release of it installs beside the packages "
            "installed here, and the older one pip then tried to build from source needs "
            f"{needed.group(1) if needed else 'what this Python cannot install'} to build",
            hint="the notebook needs other versions than this environment has (its release's "
            "requirements, on PyPI, say which): install what it needs in an environment of its "
            "own, or write the code for the packages installed; then import again without "
            "--install",
        )
    if unknown := re.search(r"No matching distribution found for ([A-Za-z0-9._-]+)", stderr):
        return BuildError(
            f"pip could not install {wanted}: no release of {unknown.group(1)} fits here:\n{last}",
            hint=f"unless a !pip install line of the notebook names it, {unknown.group(1)} is "
            "its module's name, and the distribution may be named otherwise (the project's "
            "install instructions say): install it yourself (pip install ...) and import "
            "again without --install",
        )
    return BuildError(
        f"pip could not install {wanted}:\n{last}",
        hint="pip was held to the versions installed already, so that nothing the course "
        "uses moves; if no version of them fits those (pip tried older ones above), the "
        "notebook needs an environment of its own; else install them yourself (pip "
        "install ...) and import again without --install",
    )


def _pip_reason(said: str) -> str:
    """What of pip's output says why it failed: the requirements in conflict, as pip lists
    them ("The conflict is caused by: ... depends on ..."), and its last lines."""
    lines = said.strip().splitlines()
    start = next((n for n, line in enumerate(lines) if line.startswith("The conflict is")), None)
    if start is None:
        return "\n".join(lines[-6:])
    end = next((n for n in range(start, len(lines)) if not lines[n].strip()), len(lines))
    return "\n".join([*lines[start:end], *lines[-2:]])


def installed_versions() -> dict[str, str]:
    """Every distribution of this environment, by its normalised name -> version."""
    return {
        normalized_name(dist.metadata["Name"]): dist.version
        for dist in importlib.metadata.distributions()
        if dist.metadata["Name"]
    }


def pin_requirements(root: Path, installation: Installation, slug: str) -> list[str]:
    """Pin what was installed in the course's requirements files; what to tell the author."""
    lock, direct = root / LOCK_FILE, root / DIRECT_FILE
    if not installation.pins:
        return []
    pins = ", ".join(f"{name}=={version}" for name, version in sorted(installation.pins.items()))
    if not lock.is_file():
        return [f"pip installed {pins}: pin them in the requirements you build the course with"]
    write_atomically(lock, pinned(lock.read_text(encoding="utf-8"), installation.pins, slug))
    notes = [f"pip installed {pins}, now pinned in {LOCK_FILE}"]
    if direct.is_file():
        text = direct.read_text(encoding="utf-8")
        comment = f"  # lesson {slug} (build.py import --install)"
        added = [line for line in installation.requested if _name(line) not in _names(text)]
        if added:
            lines = "".join(f"{line}{comment}\n" for line in added)
            write_atomically(
                direct, text + ("" if text.endswith("\n") or not text else "\n") + lines
            )
            notes.append(f"{' '.join(added)} added to {DIRECT_FILE}")
    return notes


def pinned(text: str, pins: dict[str, str], slug: str) -> str:
    """`text`, a requirements file, with each of `pins` replacing its distribution's pin,
    or added at the end."""
    left = dict(pins)
    lines = []
    for line in text.splitlines():
        name, pin = _name(line), _PIN.match(line)
        if name in left and pin:
            lines.append(f"{pin.group(1)}=={left.pop(name)}")
        else:
            lines.append(line)
    lines += [f"{name}=={version}  # for lesson {slug}" for name, version in sorted(left.items())]
    return "\n".join(lines) + "\n"


def _names(text: str) -> set[str]:
    return {_name(line) for line in text.splitlines()} - {""}


def _name(line: str) -> str:
    requirement = line.split("#", 1)[0].strip()
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    return normalized_name(found.group(0)) if found else ""
