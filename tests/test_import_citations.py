"""A Jupyter Book's citations ({cite}) become the author-year text its pages show, from
the project's own BibTeX files, with the works cited listed at the end of the lesson's
prose; a key no bibliography holds stays visible, in brackets, and is reported."""

from __future__ import annotations

from conftest import authoring_example, line_of
from coursesite.importers.citations import Bibliography

BIB = r"""@article{diamond1965national,
  author = {Diamond, Peter A.},
  title = {National Debt in a Neoclassical Growth Model},
  journal = {American Economic Review},
  volume = {55}, pages = {1126--1150}, year = {1965}
}
@book{auerbach1987dynamic,
  author = {Auerbach, Alan J. and Kotlikoff, Laurence J.},
  title = {Dynamic Fiscal Policy},
  publisher = {Cambridge University Press},
  year = {1987}
}
@misc{godel1931,
  author = {G{\"o}del, Kurt and Bernays, Paul and Church, Alonzo},
  year = {1931}
}
"""

LECTURE = """---
kernelspec:
  name: python3
  language: python
---

# Overlapping generations

The model follows {cite}`diamond1965national`, as {cite:t}`auerbach1987dynamic` extend it
(see {cite:p}`diamond1965national,godel1931`), and `{cite}` in code stays as written.

Lost: {cite}`nowhere2020`.

    a ` stray backtick in an indented code block

Again {cite:t}`diamond1965national`.

Reading, its first backtick left open as a QuantEcon lecture leaves it:

* {cite}`godel1931, chapter 2
* {cite}`auerbach1987dynamic`, chapter 11

```{code-cell} ipython3
print("generations")
```
"""


def test_citations_become_author_year_text_from_the_books_bibliography(
    course_folder, tmp_path_factory
):
    course_folder.write(authoring_example())
    book = tmp_path_factory.mktemp("book")  # a checkout beside the course, its own folder
    (book / "lectures").mkdir(parents=True)
    (book / "_static").mkdir()
    (book / "_static" / "refs.bib").write_text(BIB)
    (book / "_config.yml").write_text("title: A book\nbibtex_bibfiles:\n  - _static/refs.bib\n")
    (book / "lectures" / "olg.md").write_text(LECTURE)
    imported = course_folder.cli("import", str(book / "lectures" / "olg.md"), "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    text = next((course_folder.root / "content").rglob("*-overlapping-generations.md")).read_text()
    assert "The model follows (Diamond, 1965), as Auerbach and Kotlikoff (1987) extend it" in text
    assert "(see (Diamond, 1965; Gödel et al., 1931))" in text
    assert "`{cite}` in code stays as written" in text
    assert "Lost: [nowhere2020]." in text
    assert "Again Diamond (1965)." in text  # the backtick in the code block opens no span
    # A role ends with its list item: the open one stays text, the next is a citation.
    assert "* {cite}`godel1931, chapter 2\n* (Auerbach and Kotlikoff, 1987), chapter 11" in text
    lost = line_of(LECTURE, "Lost:")
    assert (
        f"line {lost}: {{cite}} names nowhere2020, but no bibliography of the project holds "
        "it: each is shown as its key in brackets"
    ) in imported.stdout
    references = text.split("## References\n\n")[1]
    assert references.index("Auerbach") < references.index("Diamond") < references.index("del")
    assert "*Dynamic Fiscal Policy*" in references and "American Economic Review" in references
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_citations_without_a_bibliography_stay_visible_as_their_keys(course_folder):
    course_folder.write(authoring_example())
    (course_folder.root / "olg.md").write_text(LECTURE)
    imported = course_folder.cli("import", "olg.md", "--phase", "02")
    assert imported.returncode == 0, imported.stderr
    text = next((course_folder.root / "content").rglob("*-overlapping-generations.md")).read_text()
    assert "The model follows [diamond1965national], as [auerbach1987dynamic] extend it" in text
    assert "## References" not in text
    said = [line for line in imported.stdout.splitlines() if "names no bibliography" in line]
    assert len(said) == 1, said  # every work cited, at every line, said once
    assert "{cite} names diamond1965national, auerbach1987dynamic, " in said[0]


def test_a_key_given_twice_keeps_the_first_entry_and_the_rest_of_the_file(tmp_path):
    """BlackJAX's sampling book repeats a key in its references.bib: Jupyter Book warns and
    builds, so the import keeps the first entry, reads the entries after it, and says so
    (it had refused the whole file, and every citation became its key in brackets)."""
    repeated = BIB.replace(
        "@book{auerbach1987dynamic",
        "@article{diamond1965national,\n  author = {Other, A.}, title = {Later}, year = {2000}\n}"
        "\n@book{auerbach1987dynamic",
    )
    (tmp_path / "refs.bib").write_text(repeated)
    (tmp_path / "_config.yml").write_text("title: A book\nbibtex_bibfiles:\n  - refs.bib\n")
    (tmp_path / "olg.md").write_text(LECTURE)
    found = Bibliography.of_checkout(tmp_path / "olg.md")
    assert found.problems == [
        "the bibliography refs.bib: repeated bibliography entry: diamond1965national: "
        "the rest of it is used"
    ]
    assert found.entries["diamond1965national"].fields["title"].startswith("National Debt")
    assert set(found.entries) == {"diamond1965national", "auerbach1987dynamic", "godel1931"}
