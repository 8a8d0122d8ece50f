"""CSV output: prediction floats are written as pandas' ``float_format`` would write them."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from scoremol.inference.output import FLOAT_FORMAT, CsvSink


def test_csv_floats_are_the_bytes_pandas_float_format_writes():
    values = [-3.695634, 2.0, 1234567.0, 1.2345e-05, np.nan, np.inf, -np.inf, 0.0, -0.0, 123456.5]
    frame = pd.DataFrame(
        {
            "smiles": ["C"] * len(values),
            "pred": values,
            "small": np.asarray(values, dtype=np.float32),
            "count": np.arange(len(values)),
            "note": ["a,b", "", "x"] + ["y"] * (len(values) - 3),
        }
    )
    frame.columns = ["smiles", "pred", "pred", "count", "note"]  # names may repeat
    out = io.StringIO()
    sink = CsvSink(out)
    sink.write(frame.iloc[:4])
    sink.write(frame.iloc[4:])
    expected = frame.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    assert out.getvalue() == expected
    assert "1.23457e+06" in expected and ",," in expected  # the format applied; NaN is empty
