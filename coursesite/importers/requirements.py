"""The requirement line an imported notebook needs for a module the build lacks: what the
notebook's own `!pip install` lines say for its distribution (`grain==0.2.3`), or else the
distribution's name, which for some modules is not the module's (`sklearn` comes from
`scikit-learn`)."""

from __future__ import annotations

import re

from coursesite.execution.dependencies import normalized_name

# Modules whose distribution is named otherwise, among those tutorials import most.
DISTRIBUTIONS = {
    "Bio": "biopython",
    "Crypto": "pycryptodome",
    "MySQLdb": "mysqlclient",
    "OpenGL": "PyOpenGL",
    "OpenSSL": "pyOpenSSL",
    "PIL": "Pillow",
    "absl": "absl-py",
    "acme": "dm-acme",
    "attr": "attrs",
    "bs4": "beautifulsoup4",
    "cola": "cola-ml",
    "community": "python-louvain",
    "cv2": "opencv-python",
    "dateutil": "python-dateutil",
    "dns": "dnspython",
    "docx": "python-docx",
    "dotenv": "python-dotenv",
    "faiss": "faiss-cpu",
    "fitz": "PyMuPDF",
    "git": "GitPython",
    "google": "protobuf",
    "haiku": "dm-haiku",
    "jwt": "PyJWT",
    "magic": "python-magic",
    "mpl_toolkits": "matplotlib",
    "mpl_toolkits.basemap": "basemap",
    "nasdaqdatalink": "Nasdaq-Data-Link",
    "orbax": "orbax-checkpoint",
    "osgeo": "GDAL",
    "pptx": "python-pptx",
    "reverb": "dm-reverb",
    "serial": "pyserial",
    "skimage": "scikit-image",
    "sklearn": "scikit-learn",
    "slugify": "python-slugify",
    "sonnet": "dm-sonnet",
    "tensorflow_datasets": "tensorflow-datasets",
    "tfds": "tensorflow-datasets",
    "tree": "dm-tree",
    "umap": "umap-learn",
    "yaml": "PyYAML",
    "zmq": "pyzmq",
}
# Where a requirement's name ends: a version, extras, a marker.
_NAME_END = re.compile(r"[\s\[<>=!~;@]")


def distribution_of(module: str) -> str:
    """A module's distribution; a namespace package's part is named by its dotted path
    (`google.cloud.storage` comes from google-cloud-storage)."""
    return DISTRIBUTIONS.get(module, module.replace("_", "-").replace(".", "-"))


def not_installed_advice(line: str) -> str:
    """What a report says of a module that is not installed where the site is built, whose
    requirement is `line`."""
    return (
        f"not installed where you build: add the line {line} to your requirements (and pip "
        f"install {line}) before the next build"
    )


def requirement_line(distribution: str, installs: list[str]) -> str:
    """The notebook's own requirement for `distribution` (as its `!pip install` lines give
    it, a version and extras with it), or the distribution's name."""
    wanted = normalized_name(distribution)
    for install in installs:
        requirement = install.strip("'\"")
        if normalized_name(requirement_name(requirement)) == wanted:
            return requirement
    return distribution


def requirement_name(requirement: str) -> str:
    """The distribution a requirement line names: `optax` of `"optax[extra]>=0.2"`."""
    return _NAME_END.split(requirement.strip("'\""), maxsplit=1)[0]
