"""What may be published as an image (outputs/assets.py) and what an SVG is rebuilt from
(markup/svgclean.py), in-process and fast. test_published_assets.py shows the same rules
through the real command line."""

import base64
import os

import pytest

from coursesite.config.paths import INSIDE_HINT
from coursesite.markup.svgclean import UnsafeSvg, clean_svg
from coursesite.outputs.assets import (
    TYPE_HINT,
    MissingAsset,
    RefusedAsset,
    check_image_file,
    check_location,
    published_image,
    read_regular,
    sniffed_type,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 8
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><rect width="2"/></svg>'
CLEANED = (
    '<svg xmlns="http://www.w3.org/2000/svg" stroke-linejoin="round" stroke-linecap="butt" '
    'viewBox="0 0 2 2"><rect width="2"></rect></svg>\n'
)


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (PNG, "PNG"),
        (JPEG, "JPEG"),
        (b"GIF87a...", "GIF"),
        (b"GIF89a...", "GIF"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "WebP"),
        (SVG.encode(), "SVG"),
        (b'\xef\xbb\xbf \t\r\n<?xml version="1.0"?>' + SVG.encode(), "SVG"),
        (b"<!-- drawn by hand -->" + SVG.encode(), "SVG"),
        (b"<!DOCTYPE svg>" + SVG.encode(), "SVG"),
        (b" " * 2044 + SVG.encode(), "SVG"),  # it must start within the first 2 KB
        (b" " * 2045 + SVG.encode(), None),
        (b"X" + SVG.encode(), None),  # only a byte order mark and whitespace may come first
        (b"<?xml version='1.0'?><html></html>", None),  # XML, but no <svg>
        (b"<html><svg></svg></html>", None),
        (b"RIFF\x00\x00\x00\x00WAVEfmt ", None),
        (b"\x89PNG\r\n", None),  # cut short
        (b"GIF90a", None),
        (b"", None),
        (b"DEPLOY_TOKEN=s3cr3t\n", None),
    ],
)
def test_the_bytes_say_what_image_they_are(content, kind):
    assert sniffed_type(content) == kind


def test_a_raster_image_is_published_as_it_is_and_an_svg_as_the_allowlist_rebuilt_it():
    assert published_image(PNG, ".png", "a.png", "p") is PNG
    assert published_image(JPEG, ".JPG", "a.JPG", "p") is JPEG
    assert published_image(JPEG, ".jpeg", "a.jpeg", "p") is JPEG
    assert published_image(b"\xef\xbb\xbf" + SVG.encode(), ".svg", "a.svg", "p") == (
        CLEANED.encode()
    )
    marked = SVG.replace("<rect", '<marker id="m"/><rect marker-end="url(#m)"')
    assert b'<marker id="lesson-m"></marker>' in published_image(
        marked.encode(), ".svg", "a.svg", "lesson"
    )


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        (PNG, ".jpg", "image 'shown' is a PNG image, though its name says JPEG"),
        (b"DEPLOY_TOKEN=x", ".png", "image 'shown' is not an image, though its name says PNG"),
        (SVG.encode(), ".png", "image 'shown' is a SVG image, though its name says PNG"),
        (PNG, ".txt", "'shown' is not an image file"),
        (PNG, "", "'shown' is not an image file"),
        (
            b'<svg xmlns="http://www.w3.org/2000/svg" onload="x()"/>',
            ".svg",
            "SVG image 'shown' cannot be published: attribute 'onload' on <svg> is not allowed",
        ),
        (b"<svg>\xff</svg>", ".svg", "SVG image 'shown' cannot be published: 'utf-8' codec"),
    ],
)
def test_bytes_that_are_not_the_image_their_name_says_are_refused(content, suffix, message):
    with pytest.raises(RefusedAsset) as caught:
        published_image(content, suffix, "shown", "p")
    assert caught.value.message.startswith(message), caught.value.message
    assert str(caught.value) == caught.value.message
    if message.startswith("SVG image"):
        assert caught.value.hint == (
            "an SVG image may hold drawing only (no script, event handlers, links to "
            "other files or embedded HTML); export it again or save it as PNG"
        )
    else:
        assert caught.value.hint == TYPE_HINT
    assert TYPE_HINT == "images are PNG, JPEG, GIF, WebP or SVG files whose suffix says which"


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    (root / "content" / "images").mkdir(parents=True)
    (root / "content" / "images" / "a.png").write_bytes(PNG)
    return root


def refusal(path, root, shown="shown"):
    with pytest.raises(RefusedAsset) as caught:
        check_location(path, root, shown)
    return caught.value


def test_an_image_inside_the_course_is_found_where_its_links_lead(course):
    image = course / "content" / "images" / "a.png"
    assert check_location(image, course, "a.png") == image
    (course / "content" / "b.PNG").symlink_to(image)
    assert check_location(course / "content" / "b.PNG", course, "b.PNG") == image.resolve()
    (course / "content" / "records").mkdir()  # only the course's own records/ is private
    (course / "content" / "records" / "c.png").write_bytes(PNG)
    assert check_location(course / "content" / "records" / "c.png", course, "c") is not None
    (course / "content" / "a.b.png").write_bytes(PNG)  # a dot inside a name is no dotfile
    assert check_location(course / "content" / "a.b.png", course, "a.b.png") is not None
    check_image_file(image, course, "a.png")


def test_an_image_outside_the_course_or_among_its_private_files_is_refused(course, tmp_path):
    (tmp_path / "outside.png").write_bytes(PNG)
    outside = refusal(course / ".." / "outside.png", course)
    assert (outside.message, outside.hint) == (
        "image 'shown' is outside the course folder",
        INSIDE_HINT,
    )
    for private in (".env.png", ".git/config.png", "records/count.png", "content/.hidden/x.png"):
        path = course / private
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(PNG)
        problem = refusal(path, course)
        assert problem.message == "image 'shown' is a hidden or private file of the course"
        assert problem.hint == (
            "images may not come from dot-files, dot-folders or records/: "
            "save the image beside the lesson"
        )
    (course / "content" / "dot.png").symlink_to(course / ".env.png")
    assert "hidden or private" in refusal(course / "content" / "dot.png", course).message


def test_what_is_not_a_regular_image_file_is_refused_without_opening_it(course):
    gone = refusal(course / "content" / "gone.png", course, "gone.png")
    assert isinstance(gone, MissingAsset)
    assert (gone.message, gone.hint) == (
        "image file 'gone.png' not found",
        "image paths are relative to the folder of the lesson file; list an image the "
        "lesson's code writes under 'writes:' in the front matter",
    )
    (course / "content" / "folder.png").mkdir()
    os.mkfifo(course / "content" / "fifo.png")
    for name in ("folder.png", "fifo.png"):
        problem = refusal(course / "content" / name, course)
        assert not isinstance(problem, MissingAsset)
        assert (problem.message, problem.hint) == ("image 'shown' is not a regular file", TYPE_HINT)
    (course / "content" / "notes.txt").write_text("secret")
    problem = refusal(course / "content" / "notes.txt", course)
    assert (problem.message, problem.hint) == ("'shown' is not an image file", TYPE_HINT)


def test_reading_follows_no_link_and_never_waits_on_a_fifo(course):
    image = course / "content" / "images" / "a.png"
    assert read_regular(image) == PNG
    (course / "content" / "link.png").symlink_to(image)
    with pytest.raises(RefusedAsset) as caught:
        read_regular(course / "content" / "link.png")
    assert caught.value.message == "cannot read 'link.png' (Too many levels of symbolic links)"
    assert caught.value.hint == TYPE_HINT
    os.mkfifo(course / "content" / "fifo.png")
    with pytest.raises(RefusedAsset) as caught:
        read_regular(course / "content" / "fifo.png")
    assert (caught.value.message, caught.value.hint) == (
        "'fifo.png' is not a regular file",
        TYPE_HINT,
    )
    (course / "content" / "text.png").write_text("not an image")
    with pytest.raises(RefusedAsset, match=r"^image 'text\.png' is not an image, though its name"):
        check_image_file(course / "content" / "text.png", course, "text.png")
    with pytest.raises(MissingAsset, match=r"^image file 'gone\.png' not found$"):
        check_image_file(course / "content" / "gone.png", course, "gone.png")


# svgclean


def test_a_drawing_is_rebuilt_from_the_allowlist_with_its_references_prefixed():
    # Graphviz names its parts' classes (class="node"): with no stylesheet, they go.
    svg = (
        '<?xml version="1.0"?>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="20" '
        'stroke-linecap="square" inkscape:version="1">\n'
        "  <metadata><title>made by</title></metadata>\n"
        "  <style>*{stroke-linejoin: round}</style>\n"
        "  <title>t</title><desc>d</desc>\n"
        '  <inkscape:grid id="grid"><inkscape:x/></inkscape:grid>\n'
        '  <defs><clipPath id="clip1"><rect width="4"/></clipPath>'
        '<path id="m" d="M 0 0"/><path id="unused" d="M 1 1"/></defs>\n'
        '  <g class="node" inkscape:label="l" clip-path="url(#clip1)" '
        'style="fill: #fff;; stroke:none;" id="g1">'
        '<use xlink:href="#m" x="1"/><use href="#m"/></g>\n'
        '  <text x="1" xml:space="preserve">a &lt;b&gt; &amp; "c"<tspan dy="1">d</tspan>e</text>\n'
        "</svg>"
    )
    assert clean_svg(svg, "fig") == (
        '<svg xmlns="http://www.w3.org/2000/svg" stroke-linejoin="round" '
        'stroke-linecap="square" width="20">'
        '<defs><clipPath id="fig-clip1"><rect width="4"></rect></clipPath>'
        '<path id="fig-m" d="M 0 0"></path><path d="M 1 1"></path></defs>'
        '<g clip-path="url(#fig-clip1)" fill="#fff" stroke="none">'
        '<use href="#fig-m" x="1"></use><use href="#fig-m"></use></g>'
        '<text x="1">a &lt;b&gt; &amp; &quot;c&quot;<tspan dy="1">d</tspan>e</text>'
        "</svg>\n"
    )


def test_a_filter_of_drawing_primitives_is_kept_with_its_reference_prefixed():
    """matplotlib's SVG of Gouraud-shaded triangles (tripcolor(shading='gouraud'), as its
    unstructured-data guide draws) composes them with filters; they load nothing."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><filter id="colorAdd">'
        '<feComposite in="SourceGraphic" in2="BackgroundImage" operator="arithmetic" '
        'k2="1" k3="1"/></filter><filter id="colorMat"><feColorMatrix type="matrix" '
        'values="1 0 0 0 0"/></filter><g filter="url(#colorAdd)" shape-rendering="crispEdges">'
        '<path d="M 0 0"/></g></svg>'
    )
    cleaned = clean_svg(svg, "fig")
    assert '<filter id="fig-colorAdd"><feComposite in="SourceGraphic"' in cleaned
    assert 'operator="arithmetic" k2="1" k3="1"></feComposite></filter>' in cleaned
    assert '<feColorMatrix type="matrix" values="1 0 0 0 0"></feColorMatrix>' in cleaned
    assert '<g filter="url(#fig-colorAdd)" shape-rendering="crispEdges">' in cleaned


def test_a_bare_svg_root_is_rebuilt_but_its_parts_must_be_svg():
    assert clean_svg('<svg viewBox="0 0 2 2"/>', "p") == (
        '<svg xmlns="http://www.w3.org/2000/svg" stroke-linejoin="round" '
        'stroke-linecap="butt" viewBox="0 0 2 2"></svg>\n'
    )
    with pytest.raises(UnsafeSvg, match=r"^element <rect> is outside SVG$"):
        clean_svg('<svg><rect width="2"/></svg>', "p")


PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def test_an_image_may_hold_only_the_png_or_jpeg_it_says_inline():
    jpeg_url = "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
    for url in (PNG_URL, jpeg_url):
        svg = f'<svg xmlns="http://www.w3.org/2000/svg"><image href=" {url} "/></svg>'
        assert f'<image href="{url}"></image>' in clean_svg(svg, "p")
    wrapped = PNG_URL[:30] + "\n  " + PNG_URL[30:]
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><image href="{wrapped}"/></svg>'
    assert f'<image href="{PNG_URL}"></image>' in clean_svg(svg, "p")


UNSAFE = {
    "entities": (
        '<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>',
        "the SVG declares XML entities",
    ),
    "not xml": ("<svg", "the SVG is not well-formed XML (unclosed token"),
    "html": ("<html><svg/></html>", "the drawing is a <html>, not an <svg>"),
    "script": ("<svg><script>alert(1)</script></svg>", "element <script> is not one a figure"),
    "foreign object": (
        "<svg><foreignObject/></svg>",
        "element <foreignObject> is not one a figure may contain",
    ),
    "xhtml": (
        '<svg><p xmlns="http://www.w3.org/1999/xhtml">x</p></svg>',
        "element <{http://www.w3.org/1999/xhtml}p> is outside SVG",
    ),
    "event handler": ('<svg><rect onclick="x()"/></svg>', "attribute 'onclick' on <rect> is not"),
    "namespaced attribute": (
        '<svg xmlns:e="urn:e"><rect e:on="x"/></svg>',
        "attribute 'on' on <rect> is not allowed",
    ),
    "style property": (
        '<svg><rect style="fill: red; behavior: url(x.htc)"/></svg>',
        "style property 'behavior' is not allowed in a figure",
    ),
    "style without colon": ('<svg><rect style="fill"/></svg>', "style property 'fill' is not"),
    "outside link": (
        '<svg><use href="https://example.org/a.svg#x"/></svg>',
        "<use> links to 'https://example.org/a.svg#x': a figure may link only to its parts",
    ),
    "filter image": (
        '<svg><filter id="f"><feImage href="https://example.org/a.png"/></filter></svg>',
        "element <feImage> is not one a figure may contain",
    ),
    "javascript link": (
        '<svg xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="javascript:x"/></svg>',
        "element <a> is not one a figure may contain",
    ),
    "outside url": (
        '<svg><rect fill="url(https://example.org/p.svg#x)"/></svg>',
        "'fill' on <rect> refers outside the figure: 'url(https://example.org/p.svg#x)'",
    ),
    "outside url in a style": (
        '<svg><rect style="fill: url(https://example.org/p.svg#x)"/></svg>',
        "'fill' on <rect> refers outside the figure",
    ),
    "url with a space": ('<svg><rect fill="url (x.svg)"/></svg>', "'fill' on <rect> refers"),
    "url in capitals": ('<svg><rect fill="URL( x)"/></svg>', "'fill' on <rect> refers outside"),
    "escaped url": ('<svg><rect fill="u\\72l(x)"/></svg>', "'fill' on <rect> refers outside"),
    "odd id": (
        '<svg><g id="a b"/><use href="#a b"/></svg>',
        "id 'a b' is not a plain name",
    ),
    "text in a group": ("<svg><g>hello</g></svg>", "<g> holds text outside a <text> element"),
    "text after a group": ("<svg><g/>hello</svg>", "<svg> holds text outside a <text>"),
    "remote image": (
        '<svg><image href="https://example.org/a.png"/></svg>',
        "an <image> may only hold a PNG or JPEG inline (a data: URL), not "
        "'https://example.org/a.png'",
    ),
    "svg image": (
        '<svg><image href="data:image/svg+xml;base64,PHN2Zz4="/></svg>',
        "an <image> may only hold a PNG or JPEG inline",
    ),
    "long remote image": (
        '<svg><image href="https://example.org/' + "a" * 60 + '.png"/></svg>',
        "an <image> may only hold a PNG or JPEG inline (a data: URL), not "
        "'https://example.org/" + "a" * 20 + "'\n",
    ),
    "data after the padding": (
        f'<svg><image href="{PNG_URL}AAAA"/></svg>',
        "the image/png of an <image> is not valid base64",
    ),
    "bad base64": (
        '<svg><image href="data:image/png;base64,iVBOR=w0"/></svg>',
        "the image/png of an <image> is not valid base64",
    ),
    "not the png it says": (
        f'<svg><image href="data:image/png;base64,{base64.b64encode(JPEG).decode()}"/></svg>',
        "the data of an <image> is not the image/png it says it is",
    ),
}


@pytest.mark.parametrize(("svg", "message"), UNSAFE.values(), ids=UNSAFE.keys())
def test_what_could_run_script_or_load_something_is_refused(svg, message):
    svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    with pytest.raises(UnsafeSvg) as caught:
        clean_svg(svg, "p")
    assert (str(caught.value) + "\n").startswith(message), str(caught.value)
