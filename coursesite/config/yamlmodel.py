"""Load YAML into a typed model, reporting problems with their file and line.

Shared by the manifest (lessons.yaml) and the lesson front matter, so both give the same
kind of message: `lessons.yaml:12: unknown key 'titel' in phases[0] (did you mean 'title'?)`.
The models are msgspec Structs: validating with msgspec costs a few milliseconds to import,
where pydantic cost 0.13 s on every build (docs/benchmarks.md). msgspec stops at the first
problem in a file, so a file with several is fixed one message at a time.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import TypeVar

import msgspec
import yaml

from coursesite.errors import BuildError, BuildErrors, did_you_mean

Model = TypeVar("Model", bound=msgspec.Struct)
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: faster

# msgspec's names for JSON types, in the words of someone writing YAML.
_TYPE_WORDS = {
    "str": "text",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "nothing",
    "date": "a date",
    "datetime": "a date and time",
    "time": "a time",
}
# Parser contexts in which YAML reports an unclosed '[', '{' or quote after the fact.
_UNCLOSED = ("while parsing a flow", "while scanning a quoted scalar")
# What a regular expression constraint means, for the message when a value does not match.
PATTERN_MEANINGS: dict[str, str] = {}


class StrictModel(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """A schema that rejects unknown keys and cannot be changed after validation.

    Subclasses pass `kw_only=True` too (msgspec does not inherit it), so that required keys
    may follow keys with defaults, and `frozen=True` (inherited, but type checkers need it).
    """


def describe_pattern(pattern: str, meaning: str) -> str:
    """Register what `pattern` asks of a value, e.g. 'is not a slug: use lowercase ...'."""
    PATTERN_MEANINGS[pattern] = meaning
    return pattern


def load_yaml_model(
    text: str, model: type[Model], path: Path, first_line: int = 1
) -> tuple[Model, yaml.Node]:
    """Parse `text` as YAML and validate it as `model`; raise BuildErrors naming the line.

    Returns the model and the YAML's node tree (for the lines of later checks).
    `first_line` is the file line on which `text` starts (front matter starts on line 2).
    """
    offset = first_line - 1
    loader = LOADER(text)
    try:
        root = loader.get_single_node()
        data = None if root is None else loader.construct_document(root)
    except yaml.MarkedYAMLError as error:
        raise BuildErrors([yaml_error(error, path, first_line)]) from None
    except yaml.reader.ReaderError as error:  # a character YAML does not allow
        line = text[: error.position].count("\n") + 1 + offset
        raise BuildErrors(
            [
                BuildError(
                    f"invalid YAML: character {error.character!r} is not allowed",
                    path,
                    line,
                    hint="remove the control character (it may come from a copy and paste)",
                )
            ]
        ) from None
    finally:
        loader.dispose()
    if root is None or not isinstance(data, dict):
        raise BuildErrors(
            [
                BuildError(
                    "expected a mapping of keys to values",
                    path,
                    first_line,
                    hint=f"see docs/authoring.md for the keys of {model.__name__}",
                )
            ]
        )
    try:
        return msgspec.convert(data, model), root
    except msgspec.ValidationError as error:
        raise BuildErrors([_describe(str(error), root, model, path, offset)]) from None


def yaml_error(error: yaml.MarkedYAMLError, path: Path, first_line: int = 1) -> BuildError:
    """The error of YAML that starts on file line `first_line`, at the line at fault."""
    mark = error.problem_mark or error.context_mark
    hint = "check indentation and quoting around this line"
    # An unclosed bracket or quote is noticed lines later; the mistake is where it opened.
    if error.context_mark and (error.context or "").startswith(_UNCLOSED):
        mark, hint = error.context_mark, "close the bracket or quote opened on this line"
    line = mark.line + first_line if mark else None
    return BuildError(f"invalid YAML: {error.problem or error.context}", path, line, hint=hint)


def node_tree(text: str) -> yaml.Node | None:
    """The node tree of `text`, which load_yaml_model has already accepted."""
    loader = LOADER(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def line_at(root: yaml.Node, loc: tuple, first_line: int = 1) -> int:
    """The file line of the value at `loc`, e.g. ('files', 2), from the YAML's own marks.

    A mapping entry is located by its key, a list item by the item; when `loc` goes deeper
    than the YAML does, the deepest part that exists. `first_line` is as for load_yaml_model.
    """
    return _line_of(root, loc) + first_line - 1


def _describe(text: str, root: yaml.Node, model: type, path: Path, offset: int) -> BuildError:
    message, _, at = text.partition(" - at `")
    if at.startswith("key` in `"):  # a mapping key that YAML read as a number, date, ...
        loc = _parse_loc(at.removeprefix("key` in `").rstrip("`"))
        return BuildError(
            f"a key in {_format_loc(loc) or 'the top level'} is not text",
            path,
            _non_text_key_line(root, loc) + offset,
            hint="keys are names such as 'title'; put a key in quotes to keep it",
        )
    loc = _parse_loc(at.rstrip("`"))
    where = _format_loc(loc)
    place = f" in {where}" if where else ""
    if field := _quoted(r"Object contains unknown field `(.*)`", message):
        allowed = _allowed_keys(model, loc)
        return BuildError(
            f"unknown key '{field}'{place}{did_you_mean(field, allowed)}",
            path,
            _line_of(root, (*loc, field)) + offset,
            hint="allowed keys here: " + ", ".join(allowed),
        )
    if field := _quoted(r"Object missing required field `(.*)`", message):
        return BuildError(
            f"missing required key '{field}'{place}",
            path,
            _line_of(root, loc) + offset,
            hint="see docs/authoring.md for what it holds",
        )
    line = _line_of(root, loc) + offset
    return BuildError(
        f"{where}: {_explain(message, root, loc, model)}",
        path,
        line,
        hint="see docs/authoring.md for the keys and the values they take",
    )


def _quoted(pattern: str, message: str) -> str | None:
    match = re.fullmatch(pattern, message)
    return match.group(1) if match else None


def _explain(message: str, root: yaml.Node, loc: tuple, model: type) -> str:
    """msgspec's words for a bad value, said in terms of YAML and of what the value means."""
    value = _value_at(root, loc)
    if pattern := _quoted(r"Expected `str` matching regex '(.*)'", message):
        meaning = PATTERN_MEANINGS.get(pattern.replace("\\\\", "\\"), f"does not match {pattern}")
        return f"{value!r} {meaning}"
    if message.startswith("Invalid enum value"):
        allowed = typing.get_args(_annotation_at(model, loc))
        return f"{value!r} is not one of " + ", ".join(repr(option) for option in allowed)
    for name, words in _TYPE_WORDS.items():
        message = message.replace(f"`{name}`", words)
    if message.startswith("Expected text, got a date"):
        message += " (YAML reads 2026-11-29 as a date: put it in quotes)"
    return message[0].lower() + message[1:]


def _parse_loc(at: str) -> tuple:
    """('phases', 0, 'title') from msgspec's `$.phases[0].title`."""
    return tuple(
        int(index) if index else name
        for name, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", at.removeprefix("$"))
    )


def _format_loc(loc: tuple) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _nodes_along(node: yaml.Node, loc: tuple) -> typing.Iterator[tuple[int, yaml.Node]]:
    """(line, node) for each step along `loc` that the YAML has (the key's line for mappings)."""
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            entry = next(((k, v) for k, v in node.value if k.value == part), None)
            if entry is None:
                return
            node = entry[1]
            yield entry[0].start_mark.line + 1, node
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            node = node.value[part]
            yield node.start_mark.line + 1, node
        else:
            return


def _line_of(root: yaml.Node, loc: tuple) -> int:
    """The 1-based line of the deepest node along `loc` that exists."""
    return ([root.start_mark.line + 1] + [line for line, _ in _nodes_along(root, loc)])[-1]


def _non_text_key_line(root: yaml.Node, loc: tuple) -> int:
    """The line of the first key at `loc` that YAML did not read as text."""
    nodes = [root] + [node for _, node in _nodes_along(root, loc)]
    if isinstance(nodes[-1], yaml.MappingNode):
        for key, _ in nodes[-1].value:
            if key.tag != "tag:yaml.org,2002:str":
                return key.start_mark.line + 1
    return _line_of(root, loc)


def _value_at(root: yaml.Node, loc: tuple) -> object:
    nodes = [node for _, node in _nodes_along(root, loc)]
    return nodes[-1].value if len(nodes) == len(loc) and nodes else None


def _annotation_at(model: type, loc: tuple) -> object:
    """The type annotation of the field `loc` leads to, starting from `model`."""
    current: object = model
    for part in loc:
        if isinstance(part, int):
            continue
        struct = _innermost_struct(current)
        if struct is None:
            return None
        current = typing.get_type_hints(struct).get(str(part))
    return current


def _allowed_keys(model: type, loc: tuple) -> list[str]:
    """The field names of the struct found by following `loc` from `model`."""
    struct = _innermost_struct(_annotation_at(model, loc))
    return list(struct.__struct_fields__) if struct else []


def _innermost_struct(annotation: object) -> type[msgspec.Struct] | None:
    """Unwrap list[X], X | None and similar to the struct class they contain."""
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    for argument in typing.get_args(annotation):
        found = _innermost_struct(argument)
        if found is not None:
            return found
    return None


class _ReadableDumper(yaml.SafeDumper):
    """YAML as people write it: list items indented under their key, multi-line text as
    `|` blocks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, "|" if "\n" in value else None)


_ReadableDumper.add_representer(str, _text)


def dump_yaml(data: object) -> str:
    """`data` as YAML for files an author will read and edit (written by `build.py import`)."""
    return yaml.dump(data, Dumper=_ReadableDumper, sort_keys=False, allow_unicode=True, width=100)
