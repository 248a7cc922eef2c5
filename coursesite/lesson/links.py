"""Cross-lesson links (`lesson:slug#anchor`): checked after parsing, resolved when rendering."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import Path

from coursesite.config.manifest import Course
from coursesite.errors import BuildError, did_you_mean
from coursesite.lesson.model import LessonLink, LessonOutline


def check_links(
    course: Course, anchors: dict[str, frozenset[str]], links: list[tuple[Path, LessonLink]]
) -> list[BuildError]:
    """Errors for links to lessons or anchors that do not exist.

    `anchors` maps each lesson slug to the anchors its page will have.
    """
    errors = []
    slugs = [ref.slug for ref in course.lessons]
    for path, link in links:
        if link.slug not in anchors:
            errors.append(
                BuildError(
                    f"link to unknown lesson '{link.slug}'{did_you_mean(link.slug, slugs)}",
                    path,
                    link.line,
                    hint="lesson ids are the slugs in lessons.yaml",
                )
            )
        elif link.anchor and link.anchor not in anchors[link.slug]:
            known = sorted(anchors[link.slug])
            errors.append(
                BuildError(
                    f"link to unknown section '#{link.anchor}' of lesson '{link.slug}'"
                    f"{did_you_mean(link.anchor, known)}",
                    path,
                    link.line,
                    hint="anchors are slugs of '##' headings and block titles",
                )
            )
    return errors


def check_references(lessons: list[tuple[Path, LessonOutline]]) -> list[BuildError]:
    """Errors for a target label used twice in the course and for `{ref}` roles that name
    no target, or that need the target's title when it has none (`lessons`: each lesson's
    file and outline)."""
    errors = []
    places: dict[str, tuple[Path, int, str]] = {}
    for path, outline in lessons:
        for target in outline.targets:
            if target.label in places:
                first, line, _ = places[target.label]
                errors.append(
                    BuildError(
                        f"duplicate target label '{target.label}' (also in {first.name}:{line})",
                        path,
                        target.line,
                        hint="labels name one place in the course: rename one of them",
                    )
                )
            else:
                places[target.label] = (path, target.line, target.title)
    for path, outline in lessons:
        for ref in outline.label_refs:
            if ref.label not in places:
                errors.append(
                    BuildError(
                        f"{{ref}} to unknown label '{ref.label}'"
                        f"{did_you_mean(ref.label, list(places))}",
                        path,
                        ref.line,
                        hint="put a target line '(label)=' before the heading or block "
                        "it names, in any lesson of the course",
                    )
                )
            elif not ref.has_text and not places[ref.label][2]:
                errors.append(
                    BuildError(
                        f"{{ref}}`{ref.label}` needs link text: its target has no title",
                        path,
                        ref.line,
                        hint=f"write {{ref}}`the text <{ref.label}>`, or put the target "
                        "right before a heading or a titled block",
                    )
                )
    return errors


def relative_url(from_page: str, target: str) -> str:
    """The URL of site path `target` as seen from the page at site path `from_page`."""
    return posixpath.relpath(target, posixpath.dirname(from_page) or ".")


def link_resolver(course: Course, from_page: str) -> Callable[[str], str]:
    """Maps `lesson:slug#anchor` hrefs to relative URLs for links on page `from_page`."""

    def resolve(href: str) -> str:
        slug, _, anchor = href[len("lesson:") :].partition("#")
        ref = course.lesson(slug)
        if ref is None:  # check_links has already rejected these; keep the text visible
            return href
        url = relative_url(from_page, ref.url)
        return f"{url}#{anchor}" if anchor else url

    return resolve
