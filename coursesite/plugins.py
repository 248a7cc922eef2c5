"""Course plugins: the Python modules `plugins:` in lessons.yaml names, loaded by the
manifest stage.

A plugin is a module with a `register(api)` function, found in the course folder first and
then among the installed packages, the way `md.use(plugin)` or an MkDocs plugin is. Through
the `PluginAPI` it is given, it adds block kinds (coursesite.blocks.registry.BlockKind),
renderers of output types (coursesite.outputs.displays) and the template folders that show
them, build hooks (coursesite.hooks) and device probes (coursesite.execution.probes). A
plugin's source is part of every parse and page key, so editing it rebuilds what it may
change; a changed plugin is loaded again in a long-running `serve`.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from coursesite import PACKAGE, hooks
from coursesite.blocks.registry import BlockKind, register, unregister
from coursesite.config.manifest import Course
from coursesite.errors import BuildError, BuildErrors
from coursesite.execution import probes
from coursesite.execution.probes import BUILT_IN, DeviceProbe
from coursesite.files import short_digest
from coursesite.outputs.displays import (
    OutputRenderer,
    Renderer,
    register_renderer,
    unregister_renderer,
)

PLUGIN_HINT = (
    "a plugin is a module in the course folder (course_blocks.py) or an installed package, "
    "with a function register(api); see docs/extending.md"
)


@dataclass
class PluginAPI:
    """What a plugin's `register(api)` may do."""

    module: ModuleType
    kinds: list[str] = field(default_factory=list)
    template_folders: list[Path] = field(default_factory=list)
    output_types: list[str] = field(default_factory=list)
    build_hooks: list[hooks.Hook] = field(default_factory=list)
    device_probes: list[DeviceProbe] = field(default_factory=list)

    def block_kind(self, kind: BlockKind) -> BlockKind:
        """Add a block kind, as the built-in kinds are added (docs/extending.md)."""
        register(kind)
        self.kinds.append(kind.name)
        return kind

    def output_renderer(self, mime: str, render: Renderer, priority: int = 5) -> None:
        """Show values whose MIME bundle holds `mime` with `render(data, context)`, which
        returns a DisplayView that the template outputs/<view.kind>.html shows. Lower
        priorities are chosen first: the built-in text/html is 10, text/plain 100."""
        register_renderer(OutputRenderer(mime, render, priority))
        self.output_types.append(mime)

    def hook(self, event: str, function: Callable[..., Any]) -> None:
        """Call `function` at `event` of every build: one of coursesite.hooks.EVENTS."""
        if event not in hooks.EVENTS:
            raise ValueError(f"no build event '{event}'; the events are {', '.join(hooks.EVENTS)}")
        if not callable(function):
            raise TypeError(f"the {event} hook must be a function, not {type(function).__name__}")
        self.build_hooks.append(hooks.Hook(self.module.__name__, event, function))

    def device_probe(self, module: str, name: str, file: str | Path) -> None:
        """After a lesson that imported `module` ran, run `devices()` of the standalone
        `file` (relative to the plugin's module) in its process: the platform of each device
        the library `name` sees, for the run's receipt (coursesite.execution.probes)."""
        path = self._beside(file)
        if not path.is_file():
            raise FileNotFoundError(f"no device probe file {path}")
        if any(probe.module == module for probe in [*BUILT_IN, *self.device_probes]):
            raise ValueError(f"the module '{module}' has a device probe already")
        self.device_probes.append(DeviceProbe(module, name, path))

    def unregister(self) -> None:
        """Take back everything this plugin registered."""
        for kind in self.kinds:
            unregister(kind)
        for mime in self.output_types:
            unregister_renderer(mime)

    def templates(self, folder: str | Path) -> None:
        """Look up templates in `folder` (relative to the plugin's module) after the course's
        own templates/ and before the theme's: where a plugin keeps its kinds' templates."""
        self.template_folders.append(self._beside(folder))

    def _beside(self, relative: str | Path) -> Path:
        return (Path(self.module.__file__ or ".").parent / relative).resolve()


@dataclass(frozen=True)
class LoadedPlugin:
    name: str
    files: list[Path]  # its source: the module, or every module of its package
    digest: str  # of those files
    api: PluginAPI

    def inputs(self) -> list[Path]:
        """What the build reads of it: its source and its device probes' files."""
        return [*self.files, *(probe.path for probe in self.api.device_probes)]


# Kept for the life of the process: `serve` builds again and again in one process, and a
# plugin's kinds stay registered until its source changes.
_LOADED: dict[str, LoadedPlugin] = {}
_ACTIVE: list[LoadedPlugin] = []  # those the course being built named


def active_plugins_digest() -> str:
    """What the plugins of the course being built are: part of every parse and page key."""
    return "".join(f"{plugin.name}={plugin.digest};" for plugin in _ACTIVE)


def _probing_twice(
    loaded: list[LoadedPlugin], named: list[tuple[str, int]], manifest: Path
) -> list[BuildError]:
    """An error at the line of each plugin that probes a module an earlier one probes."""
    lines, errors = dict(named), []
    probed = {probe.module: "coursesite" for probe in BUILT_IN}
    for plugin in loaded:
        for probe in plugin.api.device_probes:
            if probe.module in probed:
                errors.append(
                    BuildError(
                        f"plugin '{plugin.name}' adds a device probe for '{probe.module}', "
                        f"which plugin '{probed[probe.module]}' probes already",
                        manifest,
                        lines[plugin.name],
                        hint="a run's receipt asks one probe per module: keep one of them",
                    )
                )
            probed[probe.module] = plugin.name
    return errors


def _active_probes() -> list[DeviceProbe]:
    return [probe for plugin in _ACTIVE for probe in plugin.api.device_probes]


def load_plugins(course: Course, manifest: Path) -> list[LoadedPlugin]:
    """Import and register each plugin the course names; BuildErrors at the manifest line
    of each one that cannot be imported or fails to register."""
    _ACTIVE.clear()
    hooks.activate([])
    probes.activate([])
    if not course.plugins:
        return []
    root = str(course.root.resolve())
    if root not in sys.path:
        sys.path.insert(0, root)  # a course-local module is found before an installed one
    loaded, errors = [], []
    for name, line in course.plugins:
        try:
            loaded.append(_load(name))
        except Exception as error:  # the plugin's own code: any failure is reported at its line
            errors.append(_plugin_error(name, error, manifest, line))
    errors += _probing_twice(loaded, course.plugins, manifest)
    if errors:
        raise BuildErrors(errors)
    _ACTIVE.extend(loaded)
    hooks.activate([hook for plugin in loaded for hook in plugin.api.build_hooks])
    probes.activate(_active_probes())
    return loaded


def _load(name: str) -> LoadedPlugin:
    previous = _LOADED.get(name)
    module = importlib.import_module(name)
    files = _source_files(module)
    digest = _digest(files)
    if previous and previous.digest == digest:
        return previous
    if previous:
        previous.api.unregister()
        module = importlib.reload(module)
    register_plugin = getattr(module, "register", None)
    if not callable(register_plugin):
        raise _NoRegister
    api = PluginAPI(module)
    try:
        register_plugin(api)
    except BaseException:
        api.unregister()  # a half-registered plugin leaves nothing behind
        raise
    _LOADED[name] = plugin = LoadedPlugin(name, files, digest, api)
    return plugin


class _NoRegister(Exception):
    pass


def _source_files(module: ModuleType) -> list[Path]:
    """The module's file, or every .py file of its package."""
    file = Path(module.__file__ or "").resolve()
    return sorted(file.parent.rglob("*.py")) if file.name == "__init__.py" else [file]


def _digest(files: list[Path]) -> str:
    return short_digest(b"".join(path.name.encode() + b"\0" + path.read_bytes() for path in files))


def _plugin_error(name: str, error: Exception, manifest: Path, line: int) -> BuildError:
    if isinstance(error, _NoRegister):
        return BuildError(
            f"plugin '{name}' has no register(api) function", manifest, line, hint=PLUGIN_HINT
        )
    if isinstance(error, ModuleNotFoundError) and error.name == name.split(".")[0]:
        return BuildError(f"plugin '{name}' not found", manifest, line, hint=PLUGIN_HINT)
    # The plugin's own frames: the generator's and importlib's say nothing to its author.
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith("<")
        and not Path(frame.filename).resolve().is_relative_to(PACKAGE)
    ]
    return BuildError(
        f"plugin '{name}' failed to load: {type(error).__name__}: {error}",
        manifest,
        line,
        hint="fix the plugin's code; the lines below show where it failed",
        detail="".join(traceback.format_list(frames)) or None,
    )
