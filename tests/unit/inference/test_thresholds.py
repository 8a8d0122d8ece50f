"""``--threshold`` values: a number for the first target or LABEL=T items, each once."""

from __future__ import annotations

import pytest

from scoremol.errors import ScoremolError
from scoremol.inference.predict import parse_thresholds


def test_one_number_or_labelled_numbers():
    assert parse_thresholds(None) is None
    assert parse_thresholds(["-4"]) == -4.0
    assert parse_thresholds(["-4", "logD=2"]) == {"": -4.0, "logD": 2.0}
    assert parse_thresholds(["logSol_pH6.8=1"]) == {"logSol_pH6.8": 1.0}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["nan"], "finite"),
        (["logD=inf"], "finite"),
        (["=1"], "name the target before '='"),
        (["logS=1", "logS=2"], "names logS more than once"),
        (["-4", "-3"], "names the first target more than once"),
        (["low"], "give a number or LABEL=NUMBER"),
    ],
)
def test_bad_thresholds_are_one_line_errors(values, message):
    with pytest.raises(ScoremolError, match=message):
        parse_thresholds(values)
