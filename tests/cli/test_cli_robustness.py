"""Targets that are not finite numbers, operating-system errors in words, a closed pipe."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import esol_head, run_cli, run_cli_process, tiny_net_flags

SMALL = tiny_net_flags(1)


def test_non_finite_targets_are_left_out_with_a_count_and_their_rows(tmp_path, esol_path):
    head = esol_head(esol_path, 30, tmp_path).read_text().splitlines()
    header, rows = head[0].split(","), head[1:]
    col = header.index("measured log solubility in mols per litre")

    def with_target(line: str, value: str) -> str:
        import csv
        import io

        cells = next(csv.reader([line]))
        cells[col] = value
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow(cells)
        return out.getvalue()

    rows[2] = with_target(rows[2], "inf")
    rows[5] = with_target(rows[5], "1e308")
    rows[7] = with_target(rows[7], "nan")
    src = tmp_path / "bad_targets.csv"
    src.write_text("\n".join([head[0], *rows]) + "\n")
    target = "measured log solubility in mols per litre"
    _, err, code = run_cli_process("train", str(src), "-t", target, *SMALL, "-o", str(tmp_path / "m.pt"))
    assert code == 0, err
    assert (
        "3 'measured log solubility in mols per litre' value(s)" in err
        and "rows 3 ('inf'), 6 ('1e308'), 8 ('nan')" in err
    )
    assert "left out (measured log solubility" in err and "Warning" not in err and "Traceback" not in err
    _, err, code = run_cli_process("cv", str(src), "-t", target, *SMALL, "--folds", "2")
    assert code == 0 and "rows 3 ('inf'), 6 ('1e308'), 8 ('nan')" in err and "Warning" not in err, err


def test_a_target_with_no_usable_value_is_a_one_line_error(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("smiles,y\nCCO,inf\nCCC,-inf\nCCCC,1e400\n")
    _, err, code = run_cli("train", str(src), "-t", "y", *SMALL, "-o", str(tmp_path / "m.pt"))
    assert code == 1 and err.startswith("scoremol: error: no usable target values: 3 'y' value(s)")
    assert len(err.strip().splitlines()) == 1


def test_os_errors_of_the_inputs_read_as_sentences(tmp_path):
    folder = tmp_path / "adir"
    folder.mkdir()
    for command in (["train", str(folder)], ["predict", str(folder), "--model", "fast"], ["featurize", str(folder)]):
        _, err, code = run_cli(*command, "-o", str(tmp_path / "out"))
        last = err.strip().splitlines()[-1]
        assert code == 1 and last.startswith("scoremol: error: ") and str(folder) in last, (command, err)
        assert ("is a folder, not a file" in last or "is a directory, not a file" in last) and "Error:" not in last
    _, err, code = run_cli("predict", "CCO", "--model", "fast", "-o", str(tmp_path / "missing" / "dir" / "x" / "o.csv"))
    assert code == 0, err  # parent folders are created, as before


def test_a_closed_pipe_ends_quietly():
    cmd = f"{sys.executable} -m scoremol predict esol --model fast | head -n 2"
    proc = subprocess.run(["bash", "-c", f"set -o pipefail; {cmd}"], capture_output=True, text=True, timeout=300)
    assert len(proc.stdout.splitlines()) == 2
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
