"""Which blocks an edit makes stale in the warm preview (coursesite/warm/dataflow.py)."""

import pytest

from coursesite.warm.dataflow import block_names, plan_rerun

LABELS = [f"step {n}" for n in range(1, 9)]


def test_a_block_reads_what_it_uses_before_binding_it():
    names = block_names("total = 0\nfor v in xs:\n    total += v\ny = y + total")
    assert names.binds == {"total", "v", "y"}
    assert names.reads == {"xs", "y"}  # total and v are its own by the time it reads them


def test_a_function_reads_its_free_names_not_its_locals():
    names = block_names("def scale(a):\n    b = a * factor\n    return b\nys = [q * k for q in xs]")
    assert names.binds == {"scale", "ys"}
    assert names.reads == {"factor", "k", "xs"}


def test_imports_bind_their_names():
    assert block_names("import numpy as np, os.path\nfrom a import b as c").binds == {
        "np",
        "os",
        "c",
    }


def test_changes_in_place_are_found():
    names = block_names("xs.append(1)\nd[k] = 2\no.a.b = 3\nys = []\nys.append(4)")
    assert names.mutates == {"xs", "d", "o"}  # ys is the block's own list


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("exec('x = 1')", "exec()"),
        ("globals()['x'] = 1", "globals()"),
        ("from numpy import *", "imports * from numpy"),
        ("def f():\n    global x\n    x = 1", "declares global x"),
        ("def (", "does not parse"),
    ],
)
def test_what_the_names_cannot_follow_is_named(source, reason):
    assert reason in block_names(source).unsure


def test_an_edit_of_the_last_step_runs_only_it_again():
    old = ["x = 1", "y = x * 2", "print(y)"]
    assert plan_rerun(old, [*old[:2], "print(y + 1)"], LABELS).rerun == [2]


def test_an_edit_runs_again_every_later_block_that_reads_what_it_writes():
    old = ["x = 1", "y = x * 2", "print('unrelated')", "print(y)"]
    plan = plan_rerun(old, ["x = 2", *old[1:]], LABELS)
    assert plan.rerun == [0, 1, 3] and plan.fallback == ""


def test_no_edit_runs_nothing():
    assert plan_rerun(["x = 1"], ["x = 1"], LABELS).rerun == []


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        (["x = 1", "x = x + 1"], ["x = 1", "x = x + 2"], "step 2 would read x"),
        (["xs = []", "xs.append(1)"], ["xs = []", "xs.append(2)"], "step 2 would read xs"),
        (["x = 1", "print(x)", "x = 5"], ["x = 1", "print(x, 2)", "x = 5"], "read x"),
        (
            ["xs = [1]", "print(xs)", "xs.append(2)"],
            ["xs = [1]", "print(xs, 1)", "xs.append(2)"],
            "read xs",
        ),
        (["x = 1", "y = 2"], ["x = 1", "z = 2"], "step 2 no longer binds y"),
        (["x = 1"], ["x = 1", "y = 2"], "added or removed"),
        (["x = 1", "print(x)"], ["x = 2", "exec('print(x)')"], "step 2 cannot be followed"),
        (["x = 1"], ["x = 1\nfrom os import *"], "step 1 cannot be followed"),
    ],
)
def test_where_the_warm_namespace_would_mislead_it_falls_back(old, new, reason):
    plan = plan_rerun(old, new, LABELS)
    assert plan.rerun == [] and reason in plan.fallback


def test_a_change_in_place_of_an_object_made_afresh_runs_warm():
    old = ["xs = []", "xs.append(1)", "print(xs)"]
    assert plan_rerun(old, ["xs = [0]", *old[1:]], LABELS).rerun == [0, 1, 2]
