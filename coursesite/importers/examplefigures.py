"""Run by galleryfigures.py in an interpreter of its own: runs one example script of a
sphinx-gallery (argv[1]) as sphinx-gallery does when it builds a site, with Matplotlib's Agg
backend, and writes each figure it shows as a PNG into a folder (argv[2]), numbered in the
order shown: `1.png`, `2.png`. A figure is taken when `plt.show()` is called and at the end,
then closed, as sphinx-gallery's scraper takes them at the end of each code block. Run as a
script (`python -P examplefigures.py`), so that no module beside it is imported in a
package's place; the example's own folder is its working folder and first on sys.path.
"""

import os
import runpy
import sys

shown: list[str] = []  # the PNGs written so far


def take_figures(out):
    """Write each open figure as the next PNG of `out`, then close it."""
    import matplotlib.pyplot as plt

    for number in plt.get_fignums():
        figure = plt.figure(number)
        path = os.path.join(out, f"{len(shown) + 1}.png")
        figure.savefig(path, format="png")
        shown.append(path)
        plt.close(figure)


def main(script, out):
    os.environ["MPLBACKEND"] = "Agg"
    import matplotlib.pyplot

    matplotlib.pyplot.show = lambda *args, **kwargs: take_figures(out)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    take_figures(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
