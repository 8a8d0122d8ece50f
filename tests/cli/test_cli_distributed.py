"""`predict` with Parquet files and `--scheduler`: options that cannot work are one-line
errors before anything starts; without the dask extra, a one-line hint to install it."""

from __future__ import annotations

import io
import subprocess
import sys

import pandas as pd
import pytest

from tests.conftest import ROOT, run_cli

MESSY = "smiles,name\nCCO,ethanol\n,blank\nnot_a_smiles,bad\nc1ccccc1,benzene\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--resume"], "--resume applies to --scheduler runs (add --scheduler local for this machine)"),
        (["--shard-size", "10"], "--shard-size applies to --scheduler runs"),
        (["--scheduler", "local", "--device", "auto"], "--scheduler predicts on the workers' CPUs; drop --device"),
        (["--scheduler", "tcp://127.0.0.1:1"], "with a remote --scheduler, name -o or --parts-dir"),
        (["--scheduler", "local", "--resume"], "--resume with standard output needs the --parts-dir"),
        (["--scheduler", "tcp://127.0.0.1:1", "--workers", "2", "-o", "x.csv"], "--workers sizes a cluster"),
        (["--scheduler", "local", "--shard-size", "3 parsecs"], "unknown unit 'parsecs'"),
    ],
)
def test_impossible_combinations_are_one_line_errors(tiny_model, tmp_path, extra, message):
    _, model_path = tiny_model
    src = tmp_path / "in.csv"
    src.write_text(MESSY)
    stdout, err, code = run_cli("predict", str(src), "--model", str(model_path), *extra, cwd=tmp_path)
    assert code == 1 and stdout == "", err
    assert err.startswith("scoremol: error: ") and message in err and err.count("\n") == 1, err


def test_scheduler_needs_a_file(tiny_model):
    _, model_path = tiny_model
    for args, stdin in ((["-"], "CCO\n"), (["CCO", "CCN"], None)):
        _, err, code = run_cli("predict", *args, "--model", str(model_path), "--scheduler", "local", stdin=stdin)
        assert code == 1 and "--scheduler needs an input file" in err, err


def test_unreachable_scheduler(tiny_model, tmp_path):
    pytest.importorskip("distributed")
    _, model_path = tiny_model
    src = tmp_path / "in.csv"
    src.write_text(MESSY)
    args = ["predict", str(src), "--model", str(model_path), "--scheduler", "tcp://127.0.0.1:9", "-o", "o.csv"]
    _, err, code = run_cli(*args, cwd=tmp_path)
    assert code == 1 and err.startswith("scoremol: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9"), err
    assert not (tmp_path / "o.csv").exists()


BLOCK_DASK = "import sys\nsys.modules['distributed'] = None\nsys.modules['dask'] = None\n"


def test_without_the_dask_extra_scoremol_imports_and_says_how_to_install(tmp_path):
    src = tmp_path / "in.smi"
    src.write_text("CCO\n")
    code = (
        BLOCK_DASK + "import scoremol, scoremol.inference.distributed.client, scoremol.cli.predict\n"
        "from scoremol.entry import run\n"
        f"sys.argv = ['scoremol', 'predict', {str(src)!r}, '--model', 'esol-fast', '--scheduler', 'local']\n"
        "run()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 1 and proc.stdout == "", proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert (
        last.startswith("scoremol: error: distributed prediction needs Dask") and "pip install 'scoremol[dask]'" in last
    )


def test_parquet_in_and_out_on_one_machine(tiny_model, tmp_path):
    pytest.importorskip("pyarrow")
    _, model_path = tiny_model
    src = tmp_path / "in.csv"
    src.write_text(MESSY)
    pd.DataFrame({"smiles": ["CCO", None, "not_a_smiles", "c1ccccc1"], "n": [1, 2, 3, 4]}).to_parquet(
        tmp_path / "in.parquet"
    )
    as_csv, err, code = run_cli("predict", str(src), "--model", str(model_path))
    assert code == 0, err
    _, err, code = run_cli("predict", str(src), "--model", str(model_path), "-o", str(tmp_path / "out.parquet"))
    assert code == 0, err
    out = pd.read_parquet(tmp_path / "out.parquet")
    expected = pd.read_csv(io.StringIO(as_csv), keep_default_na=False)
    assert out[["smiles", "name", "status", "reason"]].equals(expected[["smiles", "name", "status", "reason"]])
    assert (out["logS_pred"].round(4).fillna(99) == pd.to_numeric(expected["logS_pred"]).round(4).fillna(99)).all()
    stdout, err, code = run_cli("predict", str(tmp_path / "in.parquet"), "--model", str(model_path))
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(stdout), keep_default_na=False)
    assert frame["n"].tolist() == [1, 2, 3, 4] and frame["status"].tolist() == ["ok", "empty", "invalid", "ok"]


def test_a_damaged_parquet_file_is_a_one_line_error(tiny_model, tmp_path):
    pytest.importorskip("pyarrow")
    _, model_path = tiny_model
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    _, err, code = run_cli("predict", str(bad), "--model", str(model_path))
    assert code == 1 and err.startswith(f"scoremol: error: {bad} is not a readable Parquet file"), err
    good = tmp_path / "g.parquet"
    pd.DataFrame({"structure": ["CCO"]}).to_parquet(good)
    _, err, code = run_cli("predict", str(good), "--model", str(model_path))
    assert code == 1 and "no SMILES column found" in err, err
    _, err, code = run_cli("predict", str(good), "--model", str(model_path), "--smiles-col", "structure")
    assert code == 0, err


@pytest.mark.slow
def test_scheduler_local_to_standard_output(tiny_model, tmp_path):
    """A LocalCluster of this command's own (one worker): the parts go to a temporary folder."""
    pytest.importorskip("distributed")
    _, model_path = tiny_model
    src = tmp_path / "in.csv"
    src.write_text(MESSY)
    one, err, code = run_cli("predict", str(src), "--model", str(model_path))
    assert code == 0, err
    args = ["predict", str(src), "--model", str(model_path), "--scheduler", "local", "--workers", "1"]
    stdout, err, code = run_cli(*args, "--shard-size", "2")
    assert code == 0, err
    assert stdout == one and "predicted 2/4 rows (2 without a prediction, see the reason column) in 2 shards" in err
