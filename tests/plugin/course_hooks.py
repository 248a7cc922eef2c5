"""A course-local plugin with a hook for each build event, as docs/extending.md writes one:
it marks the course title, refuses a run that printed TODO, tags every page with its
address, and lists the site's pages in pages.txt."""

import dataclasses

import msgspec

from coursesite.errors import BuildError


def mark_title(course):
    info = msgspec.structs.replace(course.info, title=f"{course.info.title} (hooked)")
    return dataclasses.replace(course, info=info)


def refuse_todo(lesson):
    for block in lesson.parsed().runnable_blocks():
        if "TODO" in lesson.record.blocks[block.id].stdout:
            raise BuildError(
                f"{block.label} printed TODO", lesson.path, block.code.line, hint="finish it"
            )


def tag_page(html, page):
    slug = page.lesson.ref.slug if page.lesson else ""
    return html.replace("<head>", f'<head><meta name="hooked" content="{page.url} {slug}">', 1)


def list_pages(site):
    pages = sorted(path.relative_to(site.path).as_posix() for path in site.path.rglob("*.html"))
    site.write("pages.txt", "\n".join(pages) + "\n")


def register(api):
    api.hook("on_config", mark_title)
    api.hook("on_lesson", refuse_todo)
    api.hook("on_page", tag_page)
    api.hook("on_site", list_pages)
