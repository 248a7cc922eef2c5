"""Add a lesson to lessons.yaml the way its author would: by adding lines.

The manifest is read as YAML nodes only to find where the lines go; nothing is re-dumped,
so the author's comments, quoting and layout stay as they are.
"""

from __future__ import annotations

import yaml

from coursesite.config.yamlmodel import dump_yaml


class ManifestLayoutError(Exception):
    """lessons.yaml is written in a layout the import cannot extend (flow-style lists)."""


def with_lesson(manifest: str, phase_id: str, slug: str, source: str, phase: dict) -> str:
    """`manifest` with the lesson appended to the phase `phase_id`, which is appended to
    `phases` (with the fields of `phase`) when it does not exist. Only lines are added:
    the author's comments and layout stay as they are."""
    lines = manifest.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    phases = _mapping_value(yaml.compose(manifest), "phases")
    if not isinstance(phases, yaml.SequenceNode) or phases.flow_style:
        raise ManifestLayoutError("'phases' is not a block list")
    target = next(
        (node for node in phases.value if _scalar(_mapping_value(node, "id")) == phase_id), None
    )
    if target is None:
        if not phases.value:
            raise ManifestLayoutError("'phases' is empty")
        indent = " " * (phases.value[-1].start_mark.column - 2)
        entry = {**phase, "lessons": [{"slug": slug, "source": source}]}
        text = dump_yaml([entry])
        lines.insert(_last_line(phases.value[-1]) + 1, _indented(text, indent))
        return "".join(lines)
    lessons = _mapping_value(target, "lessons")
    if not isinstance(lessons, yaml.SequenceNode) or lessons.flow_style or not lessons.value:
        raise ManifestLayoutError(f"phase {phase_id}'s 'lessons' is not a block list")
    indent = " " * (lessons.value[-1].start_mark.column - 2)
    text = dump_yaml([{"slug": slug, "source": source}])
    lines.insert(_last_line(lessons.value[-1]) + 1, _indented(text, indent))
    return "".join(lines)


def _mapping_value(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for name, value in node.value:
            if _scalar(name) == key:
                return value
    return None


def _scalar(node: yaml.Node | None) -> str | None:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else None


def _last_line(node: yaml.Node) -> int:
    """The 0-based index of the last line that holds part of `node`."""
    if isinstance(node, yaml.MappingNode) and node.value:
        return _last_line(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and node.value and not node.flow_style:
        return _last_line(node.value[-1])
    end = node.end_mark
    # A block scalar ends at the start of the line after it.
    return end.line - 1 if end.column == 0 and end.line > node.start_mark.line else end.line


def _indented(text: str, indent: str) -> str:
    return "".join(indent + line if line.strip() else line for line in text.splitlines(True))
