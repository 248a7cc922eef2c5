"""What a lesson's block leaves besides its text, read in the lesson's own process.

The companion of runner.py, loaded by it from this file and, like it, importing nothing
from the generator: the rich representations of a displayed value (IPython's MIME bundle),
the matplotlib figures a block left open (as SVG, with the text they drew past their
edges), and a {figure} block's data as plain JSON values.
"""

import base64
import io
import json
import os
import re
import sys

# The rich representations a notebook shows of a value, by the IPython method giving each.
REPR_METHODS = {
    "text/html": "_repr_html_",
    "text/markdown": "_repr_markdown_",
    "text/latex": "_repr_latex_",
    "image/svg+xml": "_repr_svg_",
    "image/png": "_repr_png_",
    "image/jpeg": "_repr_jpeg_",
}
BINARY_TYPES = ("image/png", "image/jpeg")  # kept as base64 text, as notebooks store them
RICH_LIMIT_FACTOR = 4  # a representation may be this many times settings.output_limit


def rich_representations(value, limit, what="the value of its last line"):
    """The rich part of `value`'s MIME bundle, as IPython's formatters build it (the repr is
    its text/plain), and a message when one is too large to keep. A representation comes
    from `_repr_mimebundle_` or the `_repr_*_` methods; one that fails or gives None is left
    out, as IPython leaves it out. `what` names the value in that message."""
    found = {}
    offers = getattr(type(value), "_repr_mimebundle_", None)
    try:
        if offers is not None:
            offered = value._repr_mimebundle_(include=None, exclude=None)
            found.update(offered[0] if isinstance(offered, tuple) else offered)
    except Exception as error:
        _said_failed("_repr_mimebundle_", error)
    for mime, name in REPR_METHODS.items():
        if mime not in found and getattr(type(value), name, None) is not None:
            try:
                found[mime] = getattr(value, name)()
            except Exception as error:
                _said_failed(name, error)
    return kept_bundle(found, limit, what)


def _said_failed(method, error):
    """A representation that raised is left out, as IPython leaves it out; and, as IPython
    does, said on stderr, so that the author learns why the page shows only the value's
    text (graphviz's SVG needs its `dot` program)."""
    print(f"{method}() of the value failed: {type(error).__name__}: {error}", file=sys.stderr)


def kept_bundle(found, limit, what):
    """The representations of `found` (a MIME bundle as a value or `display(raw=True)`
    offers it) that a record keeps: text, images as base64; a message when one is over
    `limit` characters."""
    bundle = {}
    for mime, data in found.items():
        data = data[0] if isinstance(data, tuple) else data  # (data, metadata)
        if isinstance(data, bytes) and mime in BINARY_TYPES:
            data = base64.b64encode(data).decode("ascii")
        elif isinstance(data, list) and all(isinstance(line, str) for line in data):
            data = "".join(data)
        if not isinstance(data, str) or mime == "text/plain" or not data:
            continue
        if mime == "text/html" and (played := animation_png(data)):
            mime, data = "image/png", played  # shown as the notebook showed it: playing
        if len(data) > limit:
            return {}, (
                f"{what} offers {mime} of {len(data):,} characters, "
                f"more than the {limit:,} a page keeps"
            )
        bundle[mime] = data
    return bundle, None


# matplotlib's Animation.to_jshtml(): its frames as data: URLs, played by a script, which
# no page runs; one animated PNG of the same frames plays without one.
_ANIMATION_FRAME = re.compile(r'frames\[\d+\] = "data:image/(?:png|jpeg);base64,([^"]+)"')
_ANIMATION_INTERVAL = re.compile(r"new Animation\(\s*frames,\s*img_id,\s*slider_id,\s*([\d.]+)")


def animation_png(html):
    """The animated PNG (base64) of the frames of a matplotlib animation's HTML, played at
    its interval, over and over; None for any other HTML, or without Pillow."""
    frames = _ANIMATION_FRAME.findall(html)
    if len(frames) < 2 or "new Animation(" not in html:
        return None
    try:
        from PIL import Image
    except ImportError:
        return None
    interval = _ANIMATION_INTERVAL.search(html)
    images = [Image.open(io.BytesIO(base64.b64decode(frame))) for frame in frames]
    played = io.BytesIO()
    images[0].save(
        played,
        format="PNG",
        save_all=True,
        append_images=images[1:],
        duration=float(interval.group(1)) if interval else 200.0,
        loop=0,
    )
    return base64.b64encode(played.getvalue()).decode("ascii")


# Defaults for the figures a lesson draws with matplotlib, read when it imports matplotlib:
# sized for the page's column, so that at a phone's 375 px its text is 11 CSS px or more.
FIGURE_DEFAULTS = """\
backend: Agg
figure.figsize: 4.5, 3.0
font.size: 11
font.family: sans-serif
svg.fonttype: none
svg.hashsalt: coursesite-figure
"""
# Applied again when a figure is saved, whatever the lesson set: text stays <text>, and
# ids and bytes depend only on what was drawn.
SVG_SETTINGS = {"svg.fonttype": "none", "svg.hashsalt": "coursesite-figure"}


def use_figure_defaults(path):
    """Make `path` the matplotlibrc of this process, before any lesson code runs, and this
    module's `show()` pyplot's once the lesson imports it: the figures drawn so far go to
    the running block, as a notebook's inline backend shows them (a cell that plots, calls
    plt.show(), then plots again shows two figures). The backend is Agg, named so, as in
    the reader's run of main.py: a step that prints it prints what the reader sees. Nothing
    of matplotlib is imported now."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(FIGURE_DEFAULTS)
    os.environ["MATPLOTLIBRC"] = path
    os.environ["MPLBACKEND"] = "Agg"
    sys.meta_path.insert(0, _ShowAfterPyplot())


class _ShowAfterPyplot:
    """An import hook that runs matplotlib.pyplot's module as usual, then gives it this
    module's show(); asked of every import until then (a comparison of names), it takes
    itself out as pyplot is found."""

    def find_spec(self, name, path, target=None):
        if name != "matplotlib.pyplot":
            return None
        sys.meta_path.remove(self)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            module.show = show

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


_shown: dict = {"svgs": [], "problem": None}  # what plt.show() handed over


def show(*args, **kwargs):
    """pyplot.show(): the open figures, saved and closed now, are the block's so far. With
    block=False the code draws on (blitting, a hand-made animation): they stay open, and
    are the block's as they are when it ends, as sphinx-gallery shows them."""
    if kwargs.get("block") is False:
        return
    svgs, problem = _saved_open_figures(sys.modules["matplotlib.pyplot"])
    _shown["svgs"] += svgs
    _shown["problem"] = _shown["problem"] or problem


def capture_figures():
    """The SVG of every matplotlib figure the block showed (plt.show()) or left open, in
    the order drawn, which are then closed; and a message when one cannot be saved.
    Nothing to do when the lesson never imported pyplot: importing it just to ask would
    cost every lesson a third of a second."""
    shown = (_shown["svgs"], _shown["problem"])
    _shown.update(svgs=[], problem=None)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return shown
    svgs, problem = _saved_open_figures(pyplot)
    return shown[0] + svgs, shown[1] or problem


# As a notebook's inline backend saves them: the box holds everything drawn, so a legend or
# label placed past the figure's edge is shown whole, not cut.
_SAVED_AS = {"format": "svg", "metadata": {"Date": None}, "bbox_inches": "tight"}


def _saved_open_figures(pyplot):
    svgs: list[str] = []
    for number in pyplot.get_fignums():
        figure = pyplot.figure(number)
        try:
            svgs.append(_figure_svg(pyplot, figure))
        except Exception as error:
            message = f"the figure it drew cannot be saved as SVG: {type(error).__name__}: {error}"
            return svgs, SaveProblem(message, error)
        finally:
            pyplot.close(figure)
    return svgs, None


class SaveProblem(str):
    """Why a figure cannot be saved, with the error that said so: its traceback names the
    lesson's own drawing code, or the library call the installed version lacks."""

    error: BaseException

    def __new__(cls, message, error):
        problem = super().__new__(cls, message)
        problem.error = error
        return problem


def _figure_svg(pyplot, figure):
    """The figure as SVG. SVG is drawn on a canvas of its own, not the figure's: a draw
    callback that refuses any other canvas (Matplotlib's blitting tutorial raises then) is
    left out of a second try, and the first error stands if that fails too."""
    try:
        return _svg_text(pyplot, figure)
    except Exception:
        with figure.canvas.callbacks.blocked(signal="draw_event"):
            try:
                return _svg_text(pyplot, figure)
            except Exception:
                pass
        raise


def _svg_text(pyplot, figure):
    buffer = io.StringIO()
    with pyplot.rc_context(SVG_SETTINGS):
        figure.savefig(buffer, **_SAVED_AS)
    return buffer.getvalue()


def plain_figure(figure):
    """The figure data as plain JSON values, or a message saying why it is not."""
    if not isinstance(figure, dict):
        return None, "the figure block did not assign a dictionary to `figure`"
    try:
        return json.loads(json.dumps(figure, default=to_plain)), None
    except (TypeError, ValueError) as error:
        return None, f"the figure data is not plain data: {error}"


def to_plain(value):
    """JSON fallback for figure data: NumPy scalars and arrays become plain values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"figure data holds a {type(value).__name__}, which is not plain data")
