"""Random numbers a notebook draws without a seed: the import seeds them, so that the
page's numbers are what every run of main.py prints and the lesson builds at once."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from conftest import authoring_example
from coursesite.importers.seeding import seeded

LESSON = ("content", "02-noise", "01-noise.md")


def test_an_imported_notebook_that_draws_unseeded_numbers_builds_and_says_what_was_seeded(
    course_folder,
):
    course_folder.write(authoring_example())
    book = new_notebook()
    book.cells = [new_markdown_cell("# Noise\n\nNumbers drawn at random.")]
    for code in (
        "import numpy as np\nimport random",
        "def noise(n):\n    return np.random.normal(size=n)",
        "print(noise(3).round(3))\nprint(random.random())",
        "rng = np.random.default_rng()\nprint(rng.integers(1000))",
    ):
        book.cells += [new_markdown_cell("## Draw"), new_code_cell(code)]
    nbformat.write(book, course_folder.root / "noise.ipynb")
    done = course_folder.cli("import", "noise.ipynb", "--phase", "02", "--slug", "noise")
    assert done.returncode == 0, done.stderr
    report = done.stdout
    assert "cell 5: it draws from NumPy's global random generator" in report
    assert "np.random.seed(0) was added at the top of its step" in report
    assert "cell 7: it draws from Python's random module" in report
    assert "'rng = np.random.default_rng()' makes a random generator without a seed" in report
    lesson = course_folder.root.joinpath(*LESSON).read_text()
    assert "np.random.seed(0)\ndef noise(n):" in lesson
    assert "rng = np.random.default_rng(0)" in lesson
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr


def test_seeds_go_after_the_steps_imports_through_the_name_the_code_uses():
    code, notes = seeded("import numpy as onp\nimport torch\nx = onp.random.rand(2)", "", "c")
    assert code.splitlines()[:3] == ["import numpy as onp", "import torch", "onp.random.seed(0)"]
    code, notes = seeded("from numpy import random\nrandom.shuffle(xs)", "", "c")
    assert code.splitlines()[1] == "random.seed(0)" and "NumPy's" in notes[0]
    code, notes = seeded("y = torch.randn(3)", "import torch", "c")
    assert code.splitlines()[0] == "torch.manual_seed(0)"


def test_a_step_that_builds_with_keras_first_seeds_keras():
    """Keras's layers draw their initial weights (and fit() shuffles) from its own seed:
    any call into Keras may draw, so the first step that makes one seeds it."""
    code, notes = seeded(
        "from keras.layers import Dense\nlayer = Dense(4)", "import keras\nimport numpy", "c"
    )
    assert code.splitlines()[1] == "keras.utils.set_random_seed(0)"
    assert "Keras's random seed" in notes[0]
    code, _ = seeded("from keras.models import Sequential\nmodel = Sequential()", "", "c")
    assert code.splitlines()[1:3] == ["import keras.utils", "keras.utils.set_random_seed(0)"]
    seeded_already = "import keras\nkeras.utils.set_random_seed(1)"
    assert seeded("layer = keras.layers.Dense(2)", seeded_already, "c")[1] == []


def test_a_notebook_that_seeds_or_draws_nothing_is_left_as_it_is():
    for code, earlier in (
        ("x = np.random.rand()", "import numpy as np\nnp.random.seed(3)"),
        ("np.random.seed(1)\nx = np.random.rand()", "import numpy as np"),
        ("rng = np.random.default_rng(42)\nrng.normal()", "import numpy as np"),
        ("key = jax.random.key(0)\njax.random.normal(key)", "import jax"),
        ("x = rand(3)", ""),  # a function of the notebook's own
        ("random = 4\nrandom.real", ""),
    ):
        assert seeded(code, earlier, "c") == (code, []), code


def test_scipys_distributions_draw_from_numpys_global_generator():
    """`st.bernoulli.rvs(p)` and a frozen distribution's `.rvs()` draw from NumPy's global
    generator unless given a random_state (QuantEcon's LLN lecture printed other means on
    each run): the first step that draws seeds NumPy."""
    code, notes = seeded("X = st.bernoulli.rvs(0.8, size=10)", "import scipy.stats as st", "c")
    assert code.splitlines()[0] == "import numpy.random" and "NumPy's" in notes[0]
    earlier = "import numpy as np\nfrom scipy import stats\nX = stats.norm(5, 2)"
    code, _ = seeded("draws = X.rvs(size=100)", earlier, "c")
    assert code.splitlines()[0] == "np.random.seed(0)"
    given = "draws = X.rvs(size=100, random_state=rng)"
    assert seeded(given, earlier, "c") == (given, [])
    assert seeded("draws = X.rvs(3)", "import numpy as np\nX = Model()", "c")[1] == []  # no SciPy


def test_a_function_numba_compiles_gets_numbas_own_generator_seeded():
    """numba draws from a generator of its own, which only compiled code seeds: a serial
    `@njit` simulation printed other numbers on every run though NumPy's was seeded. The
    one line that seeds it is compiled code; a notebook that seeds it itself, or compiles
    nothing that draws, is left as it is."""
    step = (
        "import numpy as np\nfrom numba import njit\nimport numba\n\n@njit\ndef walk(n):\n"
        "    return np.random.randn(n).sum()"
    )
    code, notes = seeded(step, "", "cell 4")
    assert code.splitlines()[3:5] == [
        "np.random.seed(0)",
        "numba.njit(lambda seed: np.random.seed(seed))(0)",
    ]
    assert "cell 4: a function numba compiles draws from numba's own generator" in notes[1]
    again, _ = seeded("total = walk(3)", code, "cell 5")
    assert again == "total = walk(3)"  # seeded once, in compiled code
    own = "@numba.njit\ndef start(s):\n    np.random.seed(s)\nstart(1)"
    assert "lambda" not in seeded(step, f"import numba\nimport numpy as np\n{own}", "c")[0]
    plain = "import numpy as np\nimport numba\n\n@numba.njit\ndef double(x):\n    return 2 * x"
    assert seeded(plain, "", "c") == (plain, [])
    # QuantEcon's inventory dynamics: a `@jitclass` whose update method draws.
    firm = (
        "import numpy as np\nimport numba\nfrom numba.experimental import jitclass\n\n"
        "@jitclass([])\nclass Firm:\n    def update(self, x):\n        return x + np.random.randn()"
    )
    assert "numba.njit(lambda seed: np.random.seed(seed))(0)" in seeded(firm, "", "c")[0]


def test_numba_imported_by_its_names_alone_is_seeded_with_an_import_of_its_own():
    """QuantEcon's mccall_q imports `from numba import jit` and a `@jitclass` whose method
    draws: numba was never imported as a module, so no seed was added and main.py printed
    other Q-tables than the page. The seed now comes with `import numba`."""
    earlier = "import numpy as np\nfrom numba import jit\nfrom numba.experimental import jitclass"
    step = (
        "@jitclass([])\nclass Worker:\n    def __init__(self):\n        pass\n"
        "    def draw(self):\n        return np.random.random()\n\nprint(Worker().draw())"
    )
    code, notes = seeded(step, earlier, "line 9")
    assert code.splitlines()[:3] == [
        "np.random.seed(0)",
        "import numba",
        "numba.njit(lambda seed: np.random.seed(seed))(0)",
    ]
    assert "line 9: a function numba compiles draws from numba's own generator" in notes[1]


def test_a_call_into_networkx_or_scikit_learn_without_a_seed_seeds_what_they_draw_from():
    """networkx's beam-search example prints a centrality of `nx.gnp_random_graph(100, 0.5)`,
    which draws from Python's global generator by default (its layouts from NumPy's), and
    scikit-learn's random_state=None is NumPy's: main.py printed another number than the
    build and the lesson failed. A call given a seed of its own draws nothing global."""
    drawing = "def find():\n    raise nx.NodeNotFound('none')\n\nG = nx.gnp_random_graph(100, 0.5)"
    code, notes = seeded(drawing, "import networkx as nx", "c")
    assert code.splitlines()[:4] == [
        "import numpy.random",
        "numpy.random.seed(0)",
        "import random",
        "random.seed(0)",
    ]
    assert notes[1] == (
        "c: it calls networkx.gnp_random_graph, and networkx's functions, given no seed, may "
        "draw from Python's random module, which nothing seeds, so every run could print other "
        "numbers than the page shows: random.seed(0) was added at the top of its step"
    )
    code, notes = seeded("model = KMeans(3).fit(X)", "from sklearn.cluster import KMeans", "c")
    assert code.splitlines()[1] == "numpy.random.seed(0)" and len(notes) == 1
    for given in ("nx.gnp_random_graph(9, 0.5, seed=1)", "KMeans(3, random_state=0)"):
        earlier = "import networkx as nx\nfrom sklearn.cluster import KMeans"
        assert seeded(given, earlier, "c") == (given, [])
