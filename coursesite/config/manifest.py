"""Stage 1: load and validate `lessons.yaml` into a Course."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import msgspec
import yaml
from msgspec import Meta

from coursesite.config.paths import INSIDE_HINT, is_inside
from coursesite.config.yamlmodel import StrictModel, describe_pattern, line_at, load_yaml_model
from coursesite.errors import BuildError, BuildErrors, course_text


def matching(pattern: str, problem: str) -> Meta:
    """A string constraint whose error says what is wrong with the value, not the regex."""
    return Meta(pattern=describe_pattern(pattern, problem))


# Slugs become folder names in site/, so they may not contain '/', '..' or spaces. msgspec
# searches the pattern: `\Z`, not `$`, which would let a trailing newline (`slug: |`) in.
SLUG = r"[a-z0-9]+(-[a-z0-9]+)*"
PHASE_ID = r"[0-9A-Za-z]+"
Slug = Annotated[
    str,
    matching(
        rf"^{SLUG}\Z",
        "is not a slug: use lowercase letters, digits and single "
        "hyphens, like 'batch-order' (it names a folder in site/)",
    ),
]
Text = Annotated[str, matching(r"\S", "is empty: write some text")]
Positive = Annotated[int, Meta(gt=0)]
SchedulerAddress = Annotated[
    str,
    matching(
        r"^\S+\Z",
        "is not a Dask scheduler's address: write one like tcp://host:8786, or leave "
        "settings.cluster out to run the lessons on this machine",
    ),
]
ApiPattern = Annotated[
    str,
    matching(
        r"^https?://[^\s{}]*\{name\}[^\s{}]*\Z",
        "is not an API docs address: write an http(s) URL with {name} where the "
        'dotted name goes, like "https://numpy.org/doc/stable/reference/generated/{name}.html"',
    ),
]


class CourseInfo(StrictModel, frozen=True, kw_only=True):
    title: Text
    track: Text
    description: str = ""


class Settings(StrictModel, frozen=True, kw_only=True):
    record_packages: list[Text] = msgspec.field(default_factory=list)
    """Packages whose installed versions go into every execution record, besides those the
    lesson imports (always recorded)."""
    timeout_seconds: Positive = 600
    """A lesson whose code runs longer than this fails the build."""
    memory_limit_mb: Positive | None = None
    """Memory (MB) a run of a lesson may use, its processes together; past it the lesson is
    stopped. Unset: three quarters of the building machine's memory, in the share of its
    cores each lesson runs with (the lessons run at once stay within it together)."""
    output_limit: Positive = 200_000
    """Characters of stdout (and of stderr) kept per block; the rest is counted, not kept."""
    api_docs: dict[Text, ApiPattern] = msgspec.field(default_factory=dict)
    """Package -> address of its API docs with `{name}` for the dotted name: `{func}`,
    `{class}`, `{mod}`, `{meth}` and `{attr}` roles naming that package link there."""
    code_width: Positive = 88
    """Characters a code line may have before it scrolls sideways in the page's column;
    `build.py check` warns about longer lines."""
    page_weight_kib: Positive = 150
    """What a lesson page may weigh, compressed as a host serves it (its HTML with inline
    figures, and its stylesheets and scripts); `build.py check` fails a heavier page."""
    pass_environment: list[Text] = msgspec.field(default_factory=list)
    """Environment variables lesson code may read besides the allowlisted ones (PATH, the
    locale, JAX_*, ...): the build's environment may hold secrets, which a print would
    publish."""
    cluster: SchedulerAddress | None = None
    """A Dask scheduler (tcp://host:8786) to run lessons on; `--cluster` overrides it. Left
    out of the execution cache key: which machines ran a lesson does not change its output."""

    def execution_json(self) -> str:
        """The settings that can change what a lesson prints, as JSON for cache keys."""
        fields = msgspec.structs.asdict(self)
        # How pages link and lay out code, and where it runs, not what it prints.
        for name in ("cluster", "api_docs", "code_width", "page_weight_kib"):
            del fields[name]
        return msgspec.json.encode(fields).decode()


RepositoryUrl = Annotated[
    str,
    matching(
        r"^https://[A-Za-z0-9.-]+/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/?\Z",
        "is not a repository address: write https://HOST/OWNER/NAME, "
        "like https://github.com/your-org/your-course",
    ),
]
Ref = Annotated[str, matching(r"^[^\s~^:?*\[\\]+\Z", "is not a branch name")]
SiteFolder = Annotated[
    str,
    matching(
        r"^(?!/)(?!.*(^|/)\.\.(/|$))[^\s?#]*\Z",
        "is not a folder of the repository: write a relative path like docs, or leave "
        "it out for the branch's root",
    ),
]
HttpsUrl = Annotated[str, matching(r"^https://[^\s?#]+\Z", "is not an https:// address")]


# Binder's names for the hosts it builds from; Colab opens notebooks from GitHub only.
BINDER_PROVIDERS = {"github.com": "gh", "gitlab.com": "gl"}


class Repository(StrictModel, frozen=True, kw_only=True):
    """Where the built site is published from; lesson pages then offer their notebook in
    hosted Jupyter services (Colab for GitHub, Binder when `binder_url` is set)."""

    url: RepositoryUrl
    branch: Ref = "gh-pages"
    site_folder: SiteFolder = ""
    binder_url: HttpsUrl | None = None

    @property
    def host_owner_name(self) -> tuple[str, str, str]:
        host, owner, name = self.url.removeprefix("https://").rstrip("/").split("/")
        return host.lower(), owner, name.removesuffix(".git")

    def services(self) -> list[str]:
        """The hosted Jupyter services that can open notebooks from this repository."""
        host = self.host_owner_name[0]
        services = []
        if host == "github.com":
            services.append("Colab")
        if self.binder_url is not None and host in BINDER_PROVIDERS:
            services.append("Binder")
        return services


SiteUrl = Annotated[
    str,
    matching(
        r"^https?://[^\s?#]+/\Z",
        "is not a site's address: write its http(s) URL ending in /, like "
        "https://numpy.org/doc/stable/",
    ),
]


class ReferenceSite(StrictModel, frozen=True, kw_only=True):
    """Another site that imported notebooks point at (like Sphinx's intersphinx): its
    `{ref}` labels, and how its pages are named, so that the import links to them."""

    url: SiteUrl
    labels: dict[Text, Text] = msgspec.field(default_factory=dict)
    """A label -> its page and anchor on the site, like key-concepts.html#tracing."""
    pages: str | None = None
    """What the site's page files end in (".html"): a notebook from this site then keeps
    its `{doc}` and relative page links, pointed at the site."""


class LessonEntry(StrictModel, frozen=True, kw_only=True):
    slug: Slug
    source: Text


class PhaseEntry(StrictModel, frozen=True, kw_only=True):
    id: Annotated[
        str, matching(rf"^{PHASE_ID}\Z", 'is not a phase id: use letters and digits, like "01"')
    ]
    slug: Slug
    title: Text
    guide: str | None = None
    lessons: Annotated[list[LessonEntry], Meta(min_length=1)]


PluginName = Annotated[
    str,
    matching(
        r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z",
        "is not a module name: write it as in an import, like course_blocks",
    ),
]


class Manifest(StrictModel, frozen=True, kw_only=True):
    course: CourseInfo
    settings: Settings = msgspec.field(default_factory=Settings)
    plugins: list[PluginName] = msgspec.field(default_factory=list)
    """Python modules (in the course folder, or installed) that extend the generator."""
    phases: Annotated[list[PhaseEntry], Meta(min_length=1)]
    repository: Repository | None = None
    references: dict[Slug, ReferenceSite] = msgspec.field(default_factory=dict)
    """Other sites, by a name, whose labels and pages imported notebooks point at."""


@dataclass(frozen=True)
class LessonRef:
    """Where a lesson sits in the course: what every later stage needs to know of it."""

    slug: str
    source: Path
    phase: PhaseEntry
    index: int  # 1-based position within the phase
    count: int  # lessons in the phase
    course_root: Path  # the folder of lessons.yaml, which every file it names stays inside

    @property
    def number(self) -> str:
        return f"{self.phase.id}.{self.index:02d}"

    @property
    def url(self) -> str:
        """Path of the lesson page relative to the site root."""
        return f"{self.phase.slug}/{self.slug}/index.html"


@dataclass(frozen=True)
class Course:
    root: Path
    info: CourseInfo
    settings: Settings
    phases: list[PhaseEntry]
    lessons: list[LessonRef]
    manifest_text: str  # what the manifest said, for keys of work that depends on it
    plugins: list[tuple[str, int]] = field(default_factory=list)  # module, its manifest line
    repository: Repository | None = None
    references: dict[str, ReferenceSite] = field(default_factory=dict)

    def lesson(self, slug: str) -> LessonRef | None:
        return next((ref for ref in self.lessons if ref.slug == slug), None)

    def phase_lessons(self, phase: PhaseEntry) -> list[LessonRef]:
        return [ref for ref in self.lessons if ref.phase.slug == phase.slug]


def load_course(manifest_path: Path) -> Course:
    """Read `lessons.yaml`; raise BuildErrors naming the line of each problem found."""
    if not manifest_path.is_file():
        raise BuildErrors(
            [
                BuildError(
                    "course manifest not found",
                    manifest_path,
                    hint="run build.py from the course folder, or pass --manifest PATH",
                )
            ]
        )
    text = course_text(manifest_path.read_bytes(), manifest_path)
    manifest, node = load_yaml_model(text, Manifest, manifest_path)
    root = manifest_path.parent
    _check_references(manifest, manifest_path, node)
    _check_repository(manifest.repository, manifest_path, node)
    lessons = [
        LessonRef(entry.slug, root / entry.source, phase, index, len(phase.lessons), root)
        for phase in manifest.phases
        for index, entry in enumerate(phase.lessons, start=1)
    ]
    plugins = [(name, line_at(node, ("plugins", i))) for i, name in enumerate(manifest.plugins)]
    return Course(
        root,
        manifest.course,
        manifest.settings,
        list(manifest.phases),
        lessons,
        text,
        plugins,
        manifest.repository,
        dict(manifest.references),
    )


def _check_references(manifest: Manifest, path: Path, root_node: yaml.Node) -> None:
    """Slugs must be unique and every named file must exist inside the course folder."""
    errors: list[BuildError] = []
    seen_phases: set[str] = set()
    seen_lessons: set[str] = set()
    phase_nodes = _mapping_get(root_node, "phases").value
    for phase, phase_node in zip(manifest.phases, phase_nodes, strict=True):
        if phase.slug in seen_phases:
            errors.append(
                BuildError(
                    f"duplicate phase slug '{phase.slug}'",
                    path,
                    _key_line(phase_node, "slug"),
                    hint="each phase needs its own slug (its folder in site/)",
                )
            )
        seen_phases.add(phase.slug)
        if phase.guide:
            errors += _file_problems(
                "phase guide", phase.guide, path, _key_line(phase_node, "guide")
            )
        lesson_nodes = _mapping_get(phase_node, "lessons").value
        for lesson, lesson_node in zip(phase.lessons, lesson_nodes, strict=True):
            if lesson.slug in seen_lessons:
                errors.append(
                    BuildError(
                        f"duplicate lesson slug '{lesson.slug}'",
                        path,
                        _key_line(lesson_node, "slug"),
                        hint="lesson slugs are link ids and must be unique",
                    )
                )
            seen_lessons.add(lesson.slug)
            errors += _file_problems(
                "lesson file", lesson.source, path, _key_line(lesson_node, "source")
            )
    if errors:
        raise BuildErrors(errors)


def _check_repository(repository: Repository | None, path: Path, root: yaml.Node) -> None:
    """A repository is named so that notebooks open from it: some service must be able to."""
    if repository is None or repository.services():
        return
    host = repository.host_owner_name[0]
    raise BuildErrors(
        [
            BuildError(
                f"no launch service opens notebooks from {host}",
                path,
                _key_line(_mapping_get(root, "repository"), "url"),
                hint="Colab opens notebooks from github.com; for Binder (github.com, "
                "gitlab.com) set binder_url: https://mybinder.org",
            )
        ]
    )


def _file_problems(what: str, name: str, manifest: Path, line: int) -> list[BuildError]:
    """The file `name` (relative to the manifest) must exist inside the course folder."""
    file = manifest.parent / name
    if not is_inside(file, manifest.parent):
        return [
            BuildError(
                f"{what} '{name}' is outside the course folder", manifest, line, hint=INSIDE_HINT
            )
        ]
    if not file.is_file():
        return [
            BuildError(
                f"{what} '{name}' not found",
                manifest,
                line,
                hint="the path is relative to the folder of lessons.yaml",
            )
        ]
    return []


def _mapping_get(node: yaml.Node, key: str) -> yaml.Node:
    return next(value for name, value in node.value if name.value == key)


def _key_line(node: yaml.Node, key: str) -> int:
    return next(name.start_mark.line + 1 for name, _ in node.value if name.value == key)
