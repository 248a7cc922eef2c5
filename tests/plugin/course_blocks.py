"""A course-local plugin, as docs/extending.md writes one: a `{demo}` block kind that runs
its code, shown by templates kept beside this module."""

from dataclasses import dataclass

from coursesite.blocks.registry import BlockContext, BlockKind, RawBlock, Runs
from coursesite.lesson.model import Code, Prose


@dataclass(frozen=True)
class Demo:
    title: str
    anchor: str
    note: str
    code: Code
    remark: Prose | None


def build_demo(context: BlockContext, raw: RawBlock) -> Demo | None:
    code = context.code_part(raw)
    _, remark = context.prose_around(raw, context.code_anchor(raw))
    if code is None:
        return None
    return Demo(raw.title, context.anchor(raw.title), raw.options.get("note", ""), code, remark)


def register(api):
    api.block_kind(
        BlockKind(
            "demo",
            Demo,
            build_demo,
            stages=("experiment", "evidence"),
            options=("note",),
            markdown_options=("note",),
            runs=Runs(label="demo '{item.title}'"),
        )
    )
    api.templates("plugin_templates")
