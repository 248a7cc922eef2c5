"""A large catalogue: pages stay bounded however many lessons a phase holds, and a search
index in shards re-indexes only what changed."""

import gzip
import json
import os

from bs4 import BeautifulSoup

from conftest import THEME, authoring_example, search_entries
from coursesite.execution.execute import prepare_job, run_job
from coursesite.lesson.lessonbuild import LessonBuild
from coursesite.lesson.parse import parse_lesson
from coursesite.publish.searchindex import SEARCH, SHARD_LIST, index_search
from coursesite.render.lessonpage import SIDEBAR_AROUND
from coursesite.render.pages import plan_site

LESSONS = 60


def big_phase(course_folder) -> dict[str, BeautifulSoup]:
    """A 60-lesson phase of copies of one lesson, run once (they share their code, so they
    share its record); the lesson pages of the first, the 30th and the last lesson."""
    text = authoring_example()
    course = course_folder.write(text, extra={f"copy-{n:02d}": text for n in range(2, LESSONS + 1)})
    lessons = [parse_lesson(ref) for ref in course.lessons]
    record = run_job(prepare_job(lessons[0], course.settings))  # in a real child process
    builds = [LessonBuild(lesson.ref, record=record) for lesson in lessons]
    for build, lesson in zip(builds, lessons, strict=True):
        build.set_parsed(lesson)
    jobs = {job.name: job for job in plan_site(course, builds, {}, [THEME / "templates"])}
    pages = {}
    for slug in ("count-batches", "copy-30", f"copy-{LESSONS}"):
        # the page, then the full-size files of its figures
        file, *_ = jobs[f"lesson:{slug}"].render()
        pages[slug] = BeautifulSoup(file.content, "html.parser")
    return pages


def test_sidebar_of_a_large_phase_is_a_window_around_the_lesson(course_folder):
    pages = big_phase(course_folder)
    window = 2 * SIDEBAR_AROUND + 1
    for slug, page in pages.items():
        sidebar = page.select_one("nav.sidebar")
        lessons = sidebar.select("li:not(.sidebar-more) a")
        assert len(lessons) == window, slug  # bounded, not the 60 lessons of the phase
        current = sidebar.select("a[aria-current=page]")
        assert len(current) == 1 and current[0]["href"] == "index.html", slug
        assert current[0].parent["class"] == ["is-current"]
        assert f"of {LESSONS}" in sidebar.select_one(".sidebar-position").get_text()
        # Every lesson not listed is one link away: the phase page lists them all.
        more = sidebar.select("li.sidebar-more a")
        assert more and all(a["href"] == "../index.html#lessons" for a in more), slug
        assert sidebar.select_one(".sidebar-title a")["href"] == "../index.html"
    middle = pages["copy-30"].select("nav.sidebar li")
    assert "24 earlier lessons" in middle[0].get_text()
    assert "is-current" in middle[1 + SIDEBAR_AROUND]["class"]
    assert "25 later lessons" in middle[-1].get_text()
    first = pages["count-batches"].select("nav.sidebar li")
    assert "is-current" in first[0]["class"] and "49 later lessons" in first[-1].get_text()
    last = pages[f"copy-{LESSONS}"].select("nav.sidebar li")
    assert "49 earlier lessons" in last[0].get_text() and "is-current" in last[-1]["class"]


def write_pages(site, names):
    for name in names:
        path = site / name / "index.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f'<html lang="en"><body><main data-pagefind-body><h1>{name}</h1>'
            f"<p>Words of {name}.</p></main></body></html>"
        )


def test_search_index_in_shards_reindexes_only_the_changed_shard(tmp_path):
    """The pages of a shard left untouched keep its files (hard links, not a new index)."""
    names = [f"phase/lesson-{n}" for n in range(8)]
    old, new = tmp_path / "old", tmp_path / "new"
    write_pages(old, names)
    (old / "index.html").write_text("<html><body><h1>Home</h1></body></html>")
    state = tmp_path / "search.json"
    index_search(old, shard_pages=2, state=state, overlay_pages=0)
    shards = json.loads((old / SEARCH / SHARD_LIST).read_text())["shards"]
    assert len(shards) == 4 and shards[0] == ""
    indexed = json.loads(state.read_text())
    assert sorted(page for folder in shards for page in indexed["shards"][folder]) == sorted(
        f"{name}/index.html" for name in names
    )  # the home page has nothing to index
    # The next site: every page hard-linked from the old one but one, written anew.
    for path in old.rglob("*.html"):
        if SEARCH not in path.parts:
            (new / path.relative_to(old)).parent.mkdir(parents=True, exist_ok=True)
            os.link(path, new / path.relative_to(old))
    changed = "phase/lesson-5/index.html"
    (new / changed).unlink()
    write_pages(new, ["phase/lesson-5"])
    index_search(new, previous=old / SEARCH, shard_pages=2, state=state, overlay_pages=0)
    assert json.loads((new / SEARCH / SHARD_LIST).read_text())["shards"] == shards
    for folder in shards:
        entry = f"{SEARCH}/{folder}pagefind-entry.json"
        same = os.path.samefile(old / entry, new / entry)
        assert same == (changed not in indexed["shards"][folder]), folder
    # Other shards do not carry Pagefind's scripts: the search page loads the first one's.
    assert (new / SEARCH / "pagefind.js").is_file()
    assert not list((new / SEARCH / "shards").rglob("*.js"))


def next_site(old, new, rewritten: dict[str, str]):
    """`new`: every page of `old` hard-linked, as a build keeps unchanged pages, but those
    named in `rewritten` (page name -> its new words), written anew."""
    for path in old.rglob("*.html"):
        if SEARCH not in path.parts:
            (new / path.relative_to(old)).parent.mkdir(parents=True, exist_ok=True)
            os.link(path, new / path.relative_to(old))
    for name, words in rewritten.items():
        (new / name / "index.html").unlink()
        (new / name / "index.html").write_text(
            f'<html lang="en"><body><main data-pagefind-body><h1>{name}</h1>'
            f"<p>{words}</p></main></body></html>"
        )


def indexed_text(index) -> dict[str, str]:
    """Fragment id -> the text Pagefind indexed of its page."""
    return {
        path.name.removesuffix(".pf_fragment"): json.loads(gzip.decompress(path.read_bytes())[12:])[
            "content"
        ]
        for path in (index / "fragment").iterdir()
    }


def test_changed_pages_are_indexed_alone_into_an_overlay_that_hides_their_stale_entries(
    tmp_path,
):
    """A one-shard index (a course under 50 lessons): an edited page is indexed alone into
    pagefind/overlay/, the shard is linked unchanged, and shards.json names the page's stale
    entry in the shard, for the search page to leave out. Past the overlay's size, the shard
    is indexed again in full and the overlay goes."""
    names = [f"phase/lesson-{n}" for n in range(6)]
    sites = [tmp_path / f"site-{n}" for n in range(4)]
    write_pages(sites[0], names)
    state = tmp_path / "search.json"
    index_search(sites[0], state=state, overlay_pages=2)
    first = indexed_text(sites[0] / SEARCH)
    [old_id] = [i for i, text in first.items() if "Words of phase/lesson-3." in text]
    # An edit of lesson 3: only it is indexed, into the overlay.
    next_site(sites[0], sites[1], {"phase/lesson-3": "Rewritten zebra words."})
    index_search(sites[1], previous=sites[0] / SEARCH, state=state, overlay_pages=2)
    listed = json.loads((sites[1] / SEARCH / SHARD_LIST).read_text())
    assert listed == {"shards": ["", "overlay/"], "stale": [old_id]}
    assert os.path.samefile(
        sites[0] / SEARCH / "pagefind-entry.json", sites[1] / SEARCH / "pagefind-entry.json"
    )
    assert indexed_text(sites[1] / SEARCH) == first  # the shard as it was
    [overlaid] = indexed_text(sites[1] / SEARCH / "overlay").values()
    assert "Rewritten zebra words." in overlaid
    assert not list((sites[1] / SEARCH / "overlay").glob("*.js"))  # the first shard's load
    # Another edit of lesson 3 and one of lesson 1: both in the overlay, still in the cap.
    edits = {"phase/lesson-3": "Rewritten again.", "phase/lesson-1": "Also rewritten."}
    next_site(sites[1], sites[2], edits)
    index_search(sites[2], previous=sites[1] / SEARCH, state=state, overlay_pages=2)
    listed = json.loads((sites[2] / SEARCH / SHARD_LIST).read_text())
    assert listed["shards"] == ["", "overlay/"] and len(listed["stale"]) == 2
    assert old_id in listed["stale"]  # lesson 3's entry in the shard is still the first one
    texts = indexed_text(sites[2] / SEARCH / "overlay").values()
    assert sorted(texts) == sorted(f"{name}. {words}" for name, words in edits.items())
    # A third changed page passes the cap: the shard is indexed again, holding every edit.
    next_site(sites[2], sites[3], {"phase/lesson-5": "Fifth rewritten."})
    index_search(sites[3], previous=sites[2] / SEARCH, state=state, overlay_pages=2)
    assert json.loads((sites[3] / SEARCH / SHARD_LIST).read_text()) == {
        "shards": [""],
        "stale": [],
    }
    assert not (sites[3] / SEARCH / "overlay").exists()
    texts = " ".join(indexed_text(sites[3] / SEARCH).values())
    assert all(words in texts for words in [*edits.values(), "Fifth rewritten."])
    assert "Words of phase/lesson-3." not in texts and "zebra" not in texts


def test_an_index_that_never_replaced_the_site_is_not_taken_at_its_states_word(tmp_path):
    """A build that failed after indexing left a state describing its index, not the
    site's: the next build must not keep the site's shard on that word, nor name as stale
    entries ids the site's shard does not hold (its old entry would show beside the new)."""
    names = [f"phase/lesson-{n}" for n in range(6)]
    sites = [tmp_path / f"site-{n}" for n in range(3)]
    write_pages(sites[0], names)
    state = tmp_path / "search.json"
    index_search(sites[0], state=state, overlay_pages=2)
    # A build that indexed its shard in full (as --frozen does), then failed: its state
    # stays, the site (and its index) stays as sites[0].
    next_site(sites[0], sites[1], {"phase/lesson-3": "Second words."})
    index_search(sites[1], previous=sites[0] / SEARCH, state=state, overlay_pages=0)
    # The next build starts from sites[0] again.
    next_site(sites[0], sites[2], {"phase/lesson-3": "Third words."})
    index_search(sites[2], previous=sites[0] / SEARCH, state=state, overlay_pages=2)
    entries = search_entries(sites[2])  # fails on a page found twice
    assert entries["/phase/lesson-3/index.html"] == "phase/lesson-3. Third words."
    assert len(entries) == len(names)
