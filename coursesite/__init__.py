"""Build a static course website from executable Markdown lessons.

One lesson object flows through the stages (`pipeline.py` lists them): config (lessons.yaml
-> Course) -> lesson (Markdown -> Lesson) -> execution (Lesson -> ExecutionRecord) ->
render (-> pages, through the theme) -> publish (-> site/). Each subpackage's docstring
says what it holds.
"""

from pathlib import Path

__version__ = "0.6.0"

PACKAGE = Path(__file__).resolve().parent  # every module of the generator lies below it
DEFAULT_THEME = PACKAGE / "themes" / "default"  # templates/ and static/, package data
