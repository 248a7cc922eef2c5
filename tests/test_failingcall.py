"""What the runner reads of a failing call in its frame (failingcall.py, a companion of
runner.py loaded by path, as the runner loads it)."""

import importlib.util

from conftest import ROOT

_SPEC = importlib.util.spec_from_file_location(
    "failingcall", ROOT / "coursesite" / "execution" / "failingcall.py"
)
assert _SPEC is not None and _SPEC.loader is not None
failingcall = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(failingcall)


def sampler(
    kernel,
    *,
    num_warmup,
    num_samples,
    num_chains=1,
    postprocess_fn=None,
    chain_method="parallel",
    progress_bar=True,
    jit_model_args=False,
    thinning=1,
    extra_fields=(),
    forward_mode_differentiation=False,
):
    """NumPyro's MCMC takes about as many: too many for a hint to show all."""


def test_a_long_signature_shows_its_first_parameters_whole():
    takes = failingcall._takes(sampler)
    assert takes.startswith("(kernel, *, num_warmup, num_samples, num_chains=1, ")
    assert takes.endswith(", ...)") and len(takes) <= 160
    assert "forward_mode_differentiation" not in takes
    parameters = takes.removeprefix("(").removesuffix(", ...)").split(", ")
    assert all(p in str(failingcall.inspect.signature(sampler)) for p in parameters)


def test_a_call_refused_by_a_function_in_the_frame_names_its_module():
    def step_fn(rng_key, state):
        return state

    step = step_fn
    try:
        step(1, 2, 3)
    except TypeError as error:
        found = failingcall.refused_call(error, __file__)
    assert found == {
        "module": __name__,
        "name": "test_a_call_refused_by_a_function_in_the_frame_names_its_module.<locals>.step_fn",
        "takes": "(rng_key, state)",
    }
