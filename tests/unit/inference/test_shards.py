"""Shards: cut at line ends (text), between records (SDF), at row groups or rows (Parquet);
read one after the other they give exactly the rows of the whole file, each once, in order."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rdkit import Chem

from scoremol.data.read import iter_chunks
from scoremol.errors import ScoremolError
from scoremol.featurizers.molecule import parse_chunk
from scoremol.inference.shards import (
    QUOTED_NEWLINE_HINT,
    ShardPlan,
    ShardSize,
    iter_shard_chunks,
    parse_shard_size,
    plan_shards,
)


def _whole(path, **kwargs) -> pd.DataFrame:
    chunks = list(iter_chunks(str(path), chunk_size=7, **kwargs))
    return pd.concat([c.frame for c in chunks], ignore_index=True)


def _sharded(plan: ShardPlan, chunk_size: int = 5) -> pd.DataFrame:
    frames = [c.frame for s in plan.shards for c in iter_shard_chunks(plan, s, chunk_size)]
    return pd.concat(frames, ignore_index=True)


def _assert_cuts_at_line_starts(plan: ShardPlan, data: bytes) -> None:
    shards = plan.shards
    assert shards[-1].stop == len(data)
    for a, b in zip(shards[:-1], shards[1:]):
        assert a.stop == b.start and a.start < a.stop  # contiguous, none empty
        assert data[b.start - 1 : b.start] == b"\n"


LINES = st.lists(
    st.one_of(
        st.sampled_from(["CCO", "c1ccccc1", "not_a_smiles", "", "  ", "[Na+].[Cl-]", "C(=O)O", "smiles"]),
        st.text(alphabet="CNOc1()=#", min_size=1, max_size=30),
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(smiles=LINES, shard_bytes=st.integers(1, 400), crlf=st.booleans(), bom=st.booleans(), last_newline=st.booleans())
def test_csv_shards_give_every_row_once_in_order(tmp_path, smiles, shard_bytes, crlf, bom, last_newline):
    end = "\r\n" if crlf else "\n"
    text = f"smiles,n{end}" + end.join(f"{s},{i}" for i, s in enumerate(smiles)) + (end if last_newline else "")
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    path = tmp_path / "in.csv"
    path.write_bytes(data)
    plan = plan_shards(str(path), size=ShardSize(bytes=shard_bytes))
    assert plan.header.encode("latin-1") == data[: data.index(b"\n") + 1]  # carried to every shard
    _assert_cuts_at_line_starts(plan, data)
    pd.testing.assert_frame_equal(_sharded(plan), _whole(path))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(smiles=LINES, shard_rows=st.integers(1, 20), header=st.booleans())
@example(smiles=["smiles"], shard_rows=1, header=False)
def test_smi_shards_give_every_row_once_in_order(tmp_path, smiles, shard_rows, header):
    text = ("SMILES Name\n" if header else "") + "".join(f"{s} m{i}\n" for i, s in enumerate(smiles))
    path = tmp_path / "in.smi"
    path.write_text(text)
    if not list(iter_chunks(str(path), chunk_size=7)):  # e.g. a lone "smiles m0": read as a header
        with pytest.raises(ScoremolError, match="no data rows"):
            plan_shards(str(path), size=ShardSize(rows=shard_rows))
        return
    plan = plan_shards(str(path), size=ShardSize(rows=shard_rows))
    _assert_cuts_at_line_starts(plan, text.encode())
    pd.testing.assert_frame_equal(_sharded(plan), _whole(path))


def test_a_smiles_line_mid_file_is_data_not_a_header(tmp_path):
    path = tmp_path / "in.smi"
    path.write_text("smiles name\nCCO a\nsmiles b\nCCN c\n")
    plan = plan_shards(str(path), size=ShardSize(bytes=1))
    assert len(plan.shards) == 4  # a shard per line; only the first may be a header
    assert _sharded(plan)["smiles"].tolist() == ["CCO", "smiles", "CCN"]


def test_rows_give_shards_of_about_that_many_rows(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("smiles,id\n" + "".join(f"CCO,{i:04d}\n" for i in range(1000)))  # equal lines
    plan = plan_shards(str(path), size=ShardSize(rows=300))
    assert [len(list(c for c in iter_shard_chunks(plan, s, 1000))[0]) for s in plan.shards] == [300, 300, 300, 100]


def test_quoted_newlines_are_refused_with_a_hint(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text('smiles,note\nCCO,"two\nlines"\nCCN,plain\nCCC,"again\nhere"\n')
    assert len(_whole(path)) == 3  # fine on one machine
    for size in (ShardSize(bytes=1), ShardSize(rows=100)):
        plan = plan_shards(str(path), size=size)
        with pytest.raises(ScoremolError, match="quoted field spans lines"):
            _sharded(plan)
    assert "Parquet" in QUOTED_NEWLINE_HINT


def test_input_errors_come_before_any_shard(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("smiles,name\n")
    with pytest.raises(ScoremolError, match="no data rows"):
        plan_shards(str(empty))
    table = tmp_path / "t.csv"
    table.write_text("id,structure\n1,CCO\n")
    with pytest.raises(ScoremolError, match="no SMILES column found"):
        plan_shards(str(table))
    with pytest.raises(ScoremolError, match="not standard input"):
        plan_shards("-")
    packed = tmp_path / "lib.smi.gz"
    packed.write_bytes(gzip.compress(b"CCO\nCCN\n"))  # byte ranges of it are no rows
    with pytest.raises(ScoremolError, match="gzip-compressed input cannot be cut into shards; decompress it first"):
        plan_shards(str(packed))


def _sdf(tmp_path, n: int, broken: set[int]) -> tuple:
    blocks = []
    for i in range(n):
        if i in broken:
            blocks.append("broken\n  junk\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\nnot an atom line\n$$$$\n")
        else:
            mol = Chem.MolFromSmiles("C" * (i % 5 + 1) + "O")
            mol.SetProp("_Name", f"m{i}")
            mol.SetProp("k", str(i))
            blocks.append(Chem.MolToMolBlock(mol) + f"> <k>\n{i}\n\n$$$$\n")
    path = tmp_path / "in.sdf"
    path.write_text("".join(blocks))
    return path, path.read_bytes()


@pytest.mark.parametrize("unterminated", [False, True])
def test_sdf_shards_are_whole_records_numbered_as_in_the_file(tmp_path, unterminated):
    path, data = _sdf(tmp_path, 23, broken={4, 17})
    if unterminated:  # RDKit reads a last record without its $$$$
        data = data[: -len("$$$$\n")]
        path.write_bytes(data)
    plan = plan_shards(str(path), size=ShardSize(rows=4), chunk_size=3)
    assert [s.first_record for s in plan.shards] == [0, 6, 12, 18]  # whole chunks of 3 records
    for shard in plan.shards[1:]:
        assert data[shard.start - 5 : shard.start] == b"$$$$\n"
    whole = list(iter_chunks(str(path), chunk_size=3))
    parts = [c for s in plan.shards for c in iter_shard_chunks(plan, s, 3)]
    pd.testing.assert_frame_equal(
        pd.concat([c.frame for c in parts], ignore_index=True), pd.concat([c.frame for c in whole], ignore_index=True)
    )
    reasons = [p.reason for c in parts for p in parse_chunk(c)]
    assert reasons == [p.reason for c in whole for p in parse_chunk(c)]
    assert "SDF record 18 " in reasons[17] + " "  # numbered in the whole file, not the shard


def test_parquet_shards_by_row_group_or_by_rows(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    frame = pd.DataFrame({"id": range(250), "SMILES": ["CCO", None, "c1ccccc1", "bad", "O"] * 50, "x": 0.5})
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=40)
    grouped = plan_shards(str(path), size=ShardSize(rows=100))
    assert [(s.start, s.stop) for s in grouped.shards] == [(0, 80), (80, 160), (160, 250)]  # groups: 6x40, 10
    split = plan_shards(str(path), size=ShardSize(rows=30))  # groups larger than a shard: cut by rows
    assert [s.rows for s in split.shards] == [30] * 8 + [10]
    whole = _whole(path)
    assert whole["id"].tolist() == list(range(250)) and whole["x"].dtype == float  # types kept
    for plan in (grouped, split):
        pd.testing.assert_frame_equal(_sharded(plan), whole)
    smiles = [s for p in split.shards for c in iter_shard_chunks(split, p, 7) for s in c.smiles]
    assert smiles[:3] == ["CCO", "", "c1ccccc1"]  # a missing SMILES is an empty row


def test_plan_round_trips_through_json(tmp_path):
    path = tmp_path / "in.csv"
    path.write_bytes(b"\xef\xbb\xbfsmiles\nCCO\nCCN\n")
    plan = plan_shards(str(path), size=ShardSize(bytes=2))
    import json

    again = ShardPlan.from_dict(json.loads(json.dumps(plan.to_dict())))
    assert again == plan and len(again.shards) == 2


def test_parse_shard_size():
    assert parse_shard_size(None) == ShardSize(rows=100_000)
    assert parse_shard_size("250000") == ShardSize(rows=250_000)
    assert parse_shard_size("1_000 rows") == ShardSize(rows=1000)
    assert parse_shard_size("64MB") == ShardSize(bytes=64_000_000)
    assert parse_shard_size("1GiB") == ShardSize(bytes=2**30)
    for bad in ("0", "ten", "5 parsecs"):
        with pytest.raises(ScoremolError, match="shard size"):
            parse_shard_size(bad)
