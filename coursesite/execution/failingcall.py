"""What a lesson's failing line used of an installed library, read in the failing frame
while its objects still exist: the owner of an attribute it lacks, or what a call passed
arguments it does not take. Either is most often code written for another version of the
library (an imported tutorial); execution/installedlibraries.py words the hint.

A companion of runner.py, loaded from beside it: it imports nothing from the generator.
"""

import difflib
import functools
import inspect
import re
import types

# Python's words for a call whose arguments the callee does not take, naming the callee by
# its qualified name (`build_sampling_algorithm.<locals>.step_fn`, `Model.__init__`).
_REFUSED_CALL = re.compile(
    r"^([\w.<>]+)\(\) (?:got an unexpected keyword argument|got multiple values for "
    r"argument|takes \d+ positional|takes from \d+|takes no arguments|missing \d+ required)"
)
# What a frame's names may hold that a call can name (a partial is looked into): a value
# of another kind is never asked for its attributes (a lesson's object may compute them).
_CALLABLE_KINDS = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type)


def attribute_owner(error, frames, source):
    """`flax.nnx.statelib.FlatState`: the class of the object the lesson's own line asked
    for an attribute it lacks (an installed package's, when its version differs from the
    one the code was written for); "" for anything else, and for a name close to one the
    object has (`a.shap`): a typo, which Python's own message would suggest the fix of."""
    owner = getattr(error, "obj", None) if isinstance(error, AttributeError) else None
    if owner is None or not frames or frames[-1].filename != source:
        return ""
    # A public name is no typo of a private one: Matplotlib's `ax.colorbar` (of a newer
    # version) is close to the installed Axes' `_colorbars`.
    asked = error.name or ""
    alike = [name for name in dir(owner) if name.startswith("_") == asked.startswith("_")]
    if difflib.get_close_matches(asked, alike, n=1, cutoff=0.8):
        return ""
    kind = type(owner)
    return f"{kind.__module__}.{kind.__qualname__}"


def refused_call(error, source):
    """For a TypeError the lesson's own line met calling something with arguments it does
    not take: the module that defined what was called (a function a library made, held in
    a name of the line's frame: `step = sampler.step`), its qualified name and signature.
    {} when the callee is not found there."""
    found = _REFUSED_CALL.match(str(error)) if isinstance(error, TypeError) else None
    frame = _innermost_frame(error.__traceback__)
    if found is None or frame is None or frame.f_code.co_filename != source:
        return {}
    name = found.group(1).removesuffix(".__init__")
    for value in _held(frame):
        callee = value.func if isinstance(value, functools.partial) else value
        if not (isinstance(callee, _CALLABLE_KINDS) and callee.__qualname__ == name):
            # Or a method of the object (the axes plt.subplots gives): found on its class,
            # never asked of the object.
            methods = (kind.__dict__.get(name.rpartition(".")[2]) for kind in type(value).__mro__)
            callee = next((m for m in methods if isinstance(m, types.FunctionType)), None)
        if callee is not None and callee.__qualname__ == name:
            return {"module": callee.__module__ or "", "name": name, "takes": _takes(callee)}
    return {}


def _held(frame):
    """The frame's values, and those its lists, tuples and NumPy object arrays hold: types
    whose items are read without running a lesson's code."""
    for value in (*frame.f_locals.values(), *frame.f_globals.values()):
        yield value
        if isinstance(value, (list, tuple)):
            yield from value[:_ITEMS_LOOKED_AT]
        elif _is_object_array(value):
            yield from value.flat[:_ITEMS_LOOKED_AT]


_ITEMS_LOOKED_AT = 64


def _is_object_array(value):
    kind = type(value)
    return kind.__name__ == "ndarray" and kind.__module__ == "numpy" and value.dtype == object


def _innermost_frame(trace):
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace.tb_frame if trace is not None else None


def _takes(callee):
    """Its parameters as a call would name them: `(key, shape, dtype=None)`, without the
    annotations (a library's are long and say what the names already do)."""
    try:
        signature = inspect.signature(callee)
    except (TypeError, ValueError):  # a builtin without one
        return ""
    empty = inspect.Parameter.empty
    bare = [p.replace(annotation=empty) for p in signature.parameters.values()]
    takes = str(signature.replace(parameters=bare, return_annotation=empty))
    if len(takes) <= _TAKES_SHOWN:  # else its first parameters, those a call gives first
        return takes
    cut = takes.rfind(", ", 0, _TAKES_SHOWN - 5)
    return takes[:cut] + ", ...)" if cut > 0 else ""


_TAKES_SHOWN = 160  # characters of a signature a hint shows
