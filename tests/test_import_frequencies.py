"""pandas frequency strings written before pandas 2.2 renamed them (statsmodels'
exponential smoothing example: `pd.date_range(..., freq='A')`, which pandas 3 refuses)."""

from __future__ import annotations

import ast

import pytest

from coursesite.importers.pandasfrequencies import frequency_alias
from test_import_preflight import imported


def test_frequency_aliases_pandas_renamed_are_written_as_it_spells_them_and_build(
    course_folder,
):
    cells = [
        "import pandas as pd\n"
        "index = pd.date_range(start='1996', end='2008', freq='A')\n"
        "hours = pd.Series(range(48), index=pd.date_range('2000', periods=48, freq='H'))",
        "print(len(index), index[0].month)\nprint(hours.resample('15T').sum().shape)\n"
        "print(hours.resample('M').sum().index[0].day)",
        # A period keeps 'M'; a period's year is 'Y' where an offset's is 'YE'.
        "print(pd.period_range('2000', periods=2, freq='A')[1])\n"
        "print(hours.to_period('M').index[0])",
        # QuantEcon's groupby writes its call over several lines: the line with the alias.
        "quarters = pd.date_range(\n    start='2000-01-01',\n    freq=\"BQ\",\n    periods=2\n)\n"
        "print(quarters[1].date())",
    ]
    report, lesson = imported(course_folder, cells)
    assert "pd.date_range(start='1996', end='2008', freq='YE')" in lesson
    assert "pd.date_range('2000', periods=48, freq='h')" in lesson
    assert "hours.resample('15min').sum()" in lesson
    assert "hours.resample('ME').sum()" in lesson
    assert "pd.period_range('2000', periods=2, freq='Y')" in lesson
    assert "hours.to_period('M')" in lesson
    assert (
        "step 1 calls pd.date_range(start='1996', end='2008', freq='A'), which pandas 3 no "
        "longer takes (its frequency aliases were renamed in 2.2): the step now calls "
        "pd.date_range(start='1996', end='2008', freq='YE'), which does the same"
    ) in report
    assert "quarters = pd.date_range(\n    start='2000-01-01',\n    freq=\"BQE\",\n" in lesson
    assert (
        'step 4 passes freq="BQ" in its call of pd.date_range(...), which pandas 3 no longer '
        'takes (its frequency aliases were renamed in 2.2): the step now passes freq="BQE"'
    ) in report
    built = course_folder.cli("-q")
    assert built.returncode == 0, built.stderr
    assert (
        "2000-06-30"
        in next((course_folder.root / "site").glob("*/downloads/index.html")).read_text()
    )


@pytest.mark.parametrize(
    ("call", "written"),
    [
        ("d.asfreq('H')", "d.asfreq('h')"),  # hours are 'h' for offsets and periods alike
        ("d.asfreq('A')", None),  # 'YE' for dates, 'Y' for periods: the build's hint says
        ("d.resample('BA')", None),  # pandas names nothing to use instead
        ("d.resample('D')", None),  # taken as it is
        ("d.resample(f'{n}H')", None),  # not a plain string
        ("pd.Period('2000', 'A')", "pd.Period('2000', 'Y')"),  # by place
    ],
)
def test_an_alias_is_written_anew_only_where_pandas_says_one_spelling(call, written):
    node = next(n for n in ast.walk(ast.parse(call)) if isinstance(n, ast.Call))
    assert frequency_alias(call, node) == written


def test_an_error_other_than_pandas_refusal_leaves_the_alias_as_written():
    from coursesite.importers.pandasfrequencies import _current

    def broken(alias: str) -> object:
        raise TypeError("an unrelated failure inside pandas")

    assert _current("A", broken) is None
