"""Build hooks: functions a plugin registers (`api.hook(event, function)`) for named moments
of the build, as MkDocs plugins have events. docs/extending.md describes each event.

A hook that raises stops the build with a BuildError at the hook's own line, naming the
plugin; a BuildError it raises itself (a problem it found in a lesson, at that lesson's
line) is reported as it is. This module holds the hooks of the course being built;
coursesite.plugins fills it.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coursesite import PACKAGE
from coursesite.config.manifest import Course
from coursesite.errors import BuildError, BuildErrors

if TYPE_CHECKING:
    from coursesite.lesson.lessonbuild import LessonBuild

EVENTS = {
    "on_config": "on_config(course): after lessons.yaml is read; may return a changed Course",
    "on_lesson": "on_lesson(lesson): each LessonBuild, parsed, run and validated",
    "on_page": "on_page(html, page): each HTML page rendered; may return changed HTML",
    "on_site": "on_site(site): the finished site folder, before it replaces the old one",
}


@dataclass(frozen=True)
class Hook:
    plugin: str  # the module name lessons.yaml gives
    event: str
    function: Callable[..., Any]


@dataclass(frozen=True)
class Page:
    """What `on_page` is told about the page it may change."""

    url: str  # the page's path in the site: "basics/count-batches/index.html"
    lesson: Any = None  # the lesson model (coursesite.lesson.model.Lesson) of a lesson page


_ACTIVE: list[Hook] = []  # the hooks of the course being built, in plugins: order


def activate(hooks: list[Hook]) -> None:
    _ACTIVE[:] = hooks


def hooked(event: str) -> list[Hook]:
    return [hook for hook in _ACTIVE if hook.event == event]


def call(hook: Hook, *arguments: Any) -> Any:
    """`hook.function(*arguments)`; a BuildError naming the hook's line if it raises."""
    try:
        return hook.function(*arguments)
    except BuildError:
        raise
    except Exception as error:  # the plugin's code: anything it raises is reported
        raise hook_error(hook, error) from None


def configured(course: Course) -> Course:
    """`course` after every `on_config` hook; a hook returning None leaves it as it is."""
    try:
        for hook in hooked("on_config"):
            changed = call(hook, course)
            if changed is not None and not isinstance(changed, Course):
                problem = TypeError(f"returned {type(changed).__name__}, not a Course or None")
                raise hook_error(hook, problem)
            course = changed or course
    except BuildError as error:
        raise BuildErrors([error]) from None
    return course


def check_lessons(lessons: list[LessonBuild]) -> None:
    """Every `on_lesson` hook on every lesson; BuildErrors for all that raised."""
    errors = []
    for hook in hooked("on_lesson"):
        for lesson in lessons:
            try:
                call(hook, lesson)
            except BuildError as error:
                errors.append(error)
    if errors:
        raise BuildErrors(errors)


def changed_page(html: str, page: Page) -> str:
    """`html` after every `on_page` hook; a hook returning None leaves it as it is."""
    for hook in hooked("on_page"):
        result = call(hook, html, page)
        if result is not None:
            if not isinstance(result, str):
                raise hook_error(hook, TypeError(f"returned {type(result).__name__}, not str"))
            html = result
    return html


def hook_error(hook: Hook, error: Exception) -> BuildError:
    """The error at the plugin's last line in the traceback (the hook's first line if the
    traceback never reaches the plugin); the generator's frames say nothing to its author."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith("<")
        and not Path(frame.filename).resolve().is_relative_to(PACKAGE)
    ]
    code = hook.function.__code__ if hasattr(hook.function, "__code__") else None
    path = frames[-1].filename if frames else code and code.co_filename
    line = frames[-1].lineno if frames else code and code.co_firstlineno
    return BuildError(
        f"plugin '{hook.plugin}': its {hook.event} hook failed: {type(error).__name__}: {error}",
        path,
        line,
        hint=f"fix the hook ({EVENTS[hook.event]}); the site was not changed",
        detail="".join(traceback.format_list(frames)) or None,
    )
