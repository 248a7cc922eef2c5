"""A lesson's front matter: the YAML between its opening '---' lines, and what it must
satisfy besides its schema (model.FrontMatter): patterns that compile, declared files that
exist inside the course. Errors point at the line of the value, from the YAML's marks."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import yaml

from coursesite.config.manifest import LessonRef
from coursesite.config.paths import data_files_outside
from coursesite.config.yamlmodel import line_at, node_tree
from coursesite.errors import BuildError, BuildErrors
from coursesite.lesson.model import FrontMatter, LessonImage, LessonLink
from coursesite.outputs.assets import IMAGE_TYPES, TYPE_HINT


def split_front_matter(text: str, path: Path) -> tuple[str, int]:
    """The YAML between the opening '---' lines and the number of lines it spans."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise BuildErrors(
            [
                BuildError(
                    "the lesson must start with front matter ('---' line)",
                    path,
                    1,
                    hint="see docs/authoring.md, 'Front matter'",
                )
            ]
        )
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "\n".join(lines[1:index]), index + 1
    raise BuildErrors(
        [
            BuildError(
                "front matter is not closed",
                path,
                1,
                hint="end it with a line containing only '---'",
            )
        ]
    )


def front_matter_problems(
    ref: LessonRef, text: str, front: FrontMatter, root: yaml.Node
) -> list[BuildError]:
    """Volatile patterns that are not regular expressions, and declared files missing or
    outside the course."""
    path = ref.source
    problems = []
    for index, pattern in enumerate(front.volatile):
        try:
            re.compile(pattern)
        except re.error as problem:
            problems.append(
                BuildError(
                    f"volatile pattern {pattern!r} is not a regular expression: {problem}",
                    path,
                    front_line(root, ("volatile", index)),
                    hint="see 'volatile' in docs/authoring.md",
                )
            )
    problems += missing_data_files(path, text, front)
    problems += _unpublishable_writes(path, front, root)
    return problems + data_files_outside(path, text, front.declared_files(), ref.course_root)


def prerequisite_links(front: FrontMatter, root: yaml.Node) -> list[LessonLink]:
    """A `lesson:slug` prerequisite, checked with the prose's lesson links."""
    if not (front.prerequisite and front.prerequisite.startswith("lesson:")):
        return []
    slug = front.prerequisite[len("lesson:") :]
    return [LessonLink(slug, None, front_line(root, ("prerequisite",)))]


def missing_data_files(path: Path, text: str, front: FrontMatter) -> list[BuildError]:
    """The files the front matter declares that are not beside the lesson file."""
    missing: list[tuple[tuple, str]] = [
        (("files", index), name)
        for index, name in enumerate(front.files)
        if not (path.parent / name).is_file()
    ]
    if front.expected_outputs and not (path.parent / front.expected_outputs).is_file():
        missing.append((("expected_outputs",), front.expected_outputs))
    if not missing:
        return []
    # Only now read the YAML's lines: a cached lesson keeps its text, not its node tree.
    root = node_tree(split_front_matter(text, path)[0])
    assert root is not None, "front matter that declares files is not empty"
    return [
        BuildError(
            f"data file '{name}' not found",
            path,
            front_line(root, location),
            hint="files are relative to the folder of the lesson file",
        )
        for location, name in missing
    ]


def written_name(path: str) -> str | None:
    """The name `path` (from `writes:`) has in the folder the code runs in, if it is one
    inside that folder: a file the run leaves anywhere else is not the lesson's to publish."""
    name = PurePosixPath(path)
    if name.is_absolute() or ".." in name.parts or not name.name:
        return None
    return name.as_posix()


def _unpublishable_writes(path: Path, front: FrontMatter, root: yaml.Node) -> list[BuildError]:
    """`writes:` entries that cannot be an image the run leaves in the lesson's folder."""
    problems = []
    for index, name in enumerate(front.writes):
        if written_name(name) is None:
            problem = f"'{name}' in writes: is not a path inside the lesson's folder"
            hint = "the code runs in the lesson's folder: name what it writes there (out/plot.png)"
        elif PurePosixPath(name).suffix.lower() not in IMAGE_TYPES:
            problem, hint = f"'{name}' in writes: is not an image file", TYPE_HINT
        else:
            continue
        problems.append(BuildError(problem, path, front_line(root, ("writes", index)), hint=hint))
    return problems


def unshown_writes(
    path: Path, front: FrontMatter, root: yaml.Node, images: list[LessonImage]
) -> list[BuildError]:
    """`writes:` entries no image of the lesson shows: the build would publish nothing."""
    shown = {written_name(image.path) for image in images if image.written}
    return [
        BuildError(
            f"'{name}' in writes: is shown by no image of the lesson",
            path,
            front_line(root, ("writes", index)),
            hint=f"show it where the lesson discusses it (![what it shows]({name})), "
            "or take it out of 'writes:'",
        )
        for index, name in enumerate(front.writes)
        if (run_name := written_name(name)) is not None and run_name not in shown
    ]


def front_line(root: yaml.Node, loc: tuple) -> int:
    """The file line of the front-matter value at `loc` (front matter starts on line 2)."""
    return line_at(root, loc, first_line=2)
