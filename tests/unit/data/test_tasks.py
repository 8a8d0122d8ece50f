"""Which targets are yes/no targets, and how their classes are written."""

from __future__ import annotations

import pandas as pd
import pytest

from scoremol.data.tasks import decide_task, decide_tasks, encode_classes, parse_task_types
from scoremol.errors import ScoremolError


def test_two_words_are_classes_with_the_positive_word_second():
    decision = decide_task("bbb", ["yes", "no", "", "yes"])
    assert decision.kind == "classification" and decision.classes == ("no", "yes")
    assert decide_task("t", ["inactive", "active"]).classes == ("inactive", "active")
    assert decide_task("t", ["False", "True"]).classes == ("False", "True")


def test_zero_and_one_are_classes_and_the_summary_says_how_to_regress_them():
    decision = decide_task("ames", ["1", "0.0", "1.0", "0"])
    assert decision.kind == "classification" and decision.classes == ("0", "1")
    assert "--task-type ames=regression" in decision.why
    # a registered yes/no set written 0.0 / 1.0 (PharmaBench BBB) names its classes 0 and 1 too
    assert decide_task("BBB", ["0.0", "1.0"], known="classification").classes == ("0", "1")


def test_other_two_valued_numbers_stay_a_regression_and_say_so():
    decision = decide_task("y", ["2.5", "3", "2.5"])
    assert decision.kind == "regression" and "--task-type y=classification" in decision.why
    assert decide_task("y", ["1.2", "3.4", "5.6"]).why == "numbers"


def test_asked_kind_wins_and_a_classification_needs_two_classes():
    assert decide_task("y", ["0", "1"], asked="regression").kind == "regression"
    assert decide_task("y", ["2.5", "3"], asked="classification").classes == ("2.5", "3")
    with pytest.raises(ScoremolError, match="needs two classes, it has 3"):
        decide_task("y", ["1", "2", "3"], asked="classification")
    with pytest.raises(ScoremolError, match="holds 3 classes"):
        decide_task("y", ["low", "medium", "high"])


def test_a_number_column_with_a_stray_word_stays_a_regression():
    assert decide_task("y", ["1.5", "abc", "2.5", "7"]).kind == "regression"
    assert decide_task("y", ["abc"]).kind == "regression"  # reported later as unusable values


def test_encode_classes_writes_zero_one_and_keeps_strangers_as_written():
    decision = decide_task("t", ["no", "yes"])
    coded = encode_classes(pd.Series(["yes", "no", "", "maybe", " yes "]), decision)
    assert coded.tolist() == ["1", "0", "", "maybe", "1"]
    numeric = decide_task("t", ["0", "1"])
    assert encode_classes(pd.Series(["1.0", "0", "nan"]), numeric).tolist() == ["1", "0", ""]


def test_parse_task_types_and_unknown_targets():
    assert parse_task_types(["bbb=classification", "logD=Regression"]) == {
        "bbb": "classification",
        "logD": "regression",
    }
    for bad in (["bbb"], ["bbb=binary"], ["=classification"], ["a=regression", "a=classification"]):
        with pytest.raises(ScoremolError):
            parse_task_types(bad)
    with pytest.raises(ScoremolError, match="--task-type names zzz"):
        decide_tasks({"y": ["1", "2"]}, {"zzz": "regression"})
