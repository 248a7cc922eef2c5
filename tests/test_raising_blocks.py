"""The except clause main.py gets for a block declared to raise: valid whatever the name."""

import json

import pytest

from coursesite.lesson.raisingblocks import guarded, names_bound

HANDLER = 'print(f"caught: {type(error).__name__}")'


def run_guarded(source: str, raises: str, bound: frozenset[str]) -> dict:
    namespace: dict = {"json": json}
    exec(guarded(source, raises, bound, HANDLER, named=True), namespace)
    return namespace


def test_a_class_the_script_never_imports_is_caught_by_its_name(capsys):
    run_guarded('x = 1\njson.loads("{")', "JSONDecodeError", frozenset())
    assert capsys.readouterr().out == "caught: JSONDecodeError\n"


def test_a_parent_class_named_catches_its_subclasses_too(capsys):
    run_guarded('json.loads("{")', "json.decoder.JSONDecodeError", frozenset())
    run_guarded('json.loads("{")', "ValueError", frozenset())
    assert capsys.readouterr().out == "caught: JSONDecodeError\n" * 2


def test_any_other_exception_goes_on():
    with pytest.raises(ZeroDivisionError):
        run_guarded("1 / 0", "JSONDecodeError", frozenset())
    with pytest.raises(ZeroDivisionError):
        run_guarded("1 / 0", "json.decoder.JSONDecodeError", frozenset())


def test_what_ran_before_the_raise_stays_defined():
    assert run_guarded('x = 1\njson.loads("{")', "JSONDecodeError", frozenset())["x"] == 1


def test_builtins_and_names_the_code_imports_get_a_plain_clause():
    assert "except ValueError as error:" in guarded("f()", "ValueError", frozenset(), HANDLER, True)
    imported = names_bound(["from json import JSONDecodeError", "import jax.numpy as jnp"])
    assert {"JSONDecodeError", "jnp"} <= imported
    plain = guarded("f()", "JSONDecodeError", imported, "pass", False)
    assert plain.endswith("except JSONDecodeError:\n    pass")
    assert "except jax.errors.X:" in guarded(
        "f()", "jax.errors.X", names_bound(["import jax"]), "pass", False
    )
