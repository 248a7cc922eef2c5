"""Load YAML into a typed pydantic model, reporting every problem with its file and line.

Shared by the manifest (lessons.yaml) and the lesson front matter, so both give the same
kind of message: `lessons.yaml:12: unknown key 'titel' in phases[0] (did you mean 'title'?)`.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import BuildError, BuildErrors, did_you_mean

Model = TypeVar("Model", bound=BaseModel)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: faster


class StrictModel(BaseModel):
    """A schema that rejects unknown keys and cannot be changed after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def load_yaml_model(text: str, model: type[Model], path: Path, first_line: int = 1) -> Model:
    """Parse `text` as YAML and validate it as `model`; raise BuildErrors naming lines.

    `first_line` is the file line on which `text` starts (front matter starts on line 2).
    """
    offset = first_line - 1
    try:
        root = yaml.compose(text, Loader=_LOADER)
        data = yaml.load(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 + offset if mark else None
        raise BuildErrors([BuildError(
            f"invalid YAML: {error.problem or error.context}",
            path, line, hint="check indentation and quoting around this line",
        )]) from None
    except yaml.reader.ReaderError as error:  # a character YAML does not allow
        line = text[:error.position].count("\n") + 1 + offset
        raise BuildErrors([BuildError(
            f"invalid YAML: character {error.character!r} is not allowed", path, line,
            hint="remove the control character (it may come from a copy and paste)",
        )]) from None
    if not isinstance(data, dict):
        raise BuildErrors([BuildError(
            "expected a mapping of keys to values", path, first_line,
            hint=f"see docs/authoring.md for the keys of {model.__name__}",
        )])
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise BuildErrors([
            _describe(problem, root, model, path, offset) for problem in error.errors()
        ]) from None


def _describe(problem: dict, root: yaml.Node, model: type[BaseModel], path: Path,
              offset: int) -> BuildError:
    loc = tuple(problem["loc"])
    line = _line_of(root, loc) + offset
    where = _format_loc(loc[:-1]) if loc else ""
    place = f" in {where}" if where else ""
    if problem["type"] == "extra_forbidden":
        allowed = _allowed_keys(model, loc[:-1])
        return BuildError(
            f"unknown key '{loc[-1]}'{place}{did_you_mean(str(loc[-1]), allowed)}", path, line,
            hint="allowed keys here: " + ", ".join(allowed),
        )
    if problem["type"] == "missing":
        return BuildError(f"missing required key '{loc[-1]}'{place}", path, line,
                          hint="see docs/authoring.md for what it holds")
    message = problem["msg"].removeprefix("Value error, ")
    return BuildError(f"{_format_loc(loc)}: {message}", path, line,
                      hint="see docs/authoring.md for the keys and the values they take")


def _format_loc(loc: tuple) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _line_of(node: yaml.Node, loc: tuple) -> int:
    """The 1-based line of the deepest node along `loc` (its key's line for a mapping entry)."""
    line = node.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            entry = next(((k, v) for k, v in node.value if k.value == part), None)
            if entry is None:
                return line
            line, node = entry[0].start_mark.line + 1, entry[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _allowed_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    """The field names of the sub-model found by following `loc` from `model`."""
    current: object = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        field = current.model_fields.get(str(part))
        if field is None:
            return []
        current = _innermost_model(field.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _innermost_model(annotation: object) -> object:
    """Unwrap list[X], X | None and similar to the model class they contain."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) is not None:
        for argument in typing.get_args(annotation):
            found = _innermost_model(argument)
            if isinstance(found, type) and issubclass(found, BaseModel):
                return found
    return annotation
