"""Parallel featurization gives exactly the single-process result, in order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from torch_geometric.data import Batch

from scoremol.data.collate import collate_arrays, collate_graphs
from scoremol.data.read import MoleculeChunk, iter_chunks, read_input
from scoremol.featurizers.dataset import FeaturizerSettings, featurize_chunk
from scoremol.featurizers.parallel import concat_datasets, featurize_all, iter_featurized, split_chunk

SMILES = ["CCO", "", "c1ccccc1O", "not a smiles", "[Na+].[Cl-]", "CC(=O)Oc1ccccc1C(=O)O", "C", "[Fe]", "O=C=O"] * 7


def _chunk(smiles=SMILES) -> MoleculeChunk:
    frame = pd.DataFrame({"id": [f"m{i}" for i in range(len(smiles))], "smiles": smiles})
    return MoleculeChunk(frame, list(smiles), 0)


def _assert_same(a, b) -> None:
    assert a.status == b.status and a.reason == b.reason
    for name in ("graph_row", "x", "edge_index", "edge_attr", "atom_ptr", "edge_ptr"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    if a.descriptors is None:
        assert b.descriptors is None
    else:
        np.testing.assert_array_equal(a.descriptors, b.descriptors)
    pd.testing.assert_frame_equal(a.table.reset_index(drop=True), b.table.reset_index(drop=True))


@pytest.mark.parametrize("descriptors", [False, True])
def test_split_and_concat_is_identity(descriptors):
    settings = FeaturizerSettings(descriptors=descriptors, descriptor_set="fast" if descriptors else None)
    chunk = _chunk()
    whole = featurize_chunk(chunk, settings)
    parts = [featurize_chunk(p, settings) for p in split_chunk(chunk, 4)]
    _assert_same(whole, concat_datasets(parts, chunk.frame))


def test_featurize_all_with_pool_matches_single_process():
    settings = FeaturizerSettings()
    chunk = _chunk()
    single = featurize_all(chunk, settings, workers=1)
    pooled = featurize_all(chunk, settings, workers=2, min_rows=0)
    _assert_same(single, pooled)


def test_iter_featurized_keeps_order_and_every_row(tmp_path):
    path = tmp_path / "in.csv"
    pd.DataFrame({"smiles": SMILES * 3, "n": range(len(SMILES) * 3)}).to_csv(path, index=False)
    settings = FeaturizerSettings()
    got = list(iter_featurized(iter_chunks(str(path), chunk_size=10), settings, workers=2, min_rows=15))
    assert [c.start for c, _ in got] == list(range(0, len(SMILES) * 3, 10))
    status = [s for _, d in got for s in d.status]
    assert status == featurize_chunk(read_input(str(path)), settings).status
    for chunk, data in got:
        assert data.num_rows == len(chunk)
        assert list(data.table["n"]) == list(chunk.frame["n"])


def test_collate_matches_pyg_batch():
    data = featurize_chunk(_chunk(), FeaturizerSettings())
    ids = np.array([4, 0, 2, 2, 7])
    graphs = [data.graph(int(i)) for i in ids]
    ref = Batch.from_data_list(graphs)
    for batch in (
        collate_arrays(data.x, data.edge_index, data.edge_attr, data.atom_ptr, data.edge_ptr, ids),
        collate_graphs(graphs),
    ):
        for key in ("x", "edge_index", "edge_attr", "batch", "ptr"):
            assert torch.equal(getattr(ref, key), getattr(batch, key)), key
        assert batch.num_graphs == len(ids)


def test_a_signal_during_a_fork_is_held_then_raised():
    """Ctrl-C landing while the pool forks must not be lost in CPython's at-fork callbacks
    (where exceptions are only printed): held, it is raised right after."""
    import subprocess
    import sys

    script = (
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"  # whatever the runner left (nohup: ignored)
        "from scoremol.pool import signals_held\n"
        "try:\n"
        "    with signals_held():\n"
        "        signal.raise_signal(signal.SIGINT)\n"  # in this thread: no other thread takes it late
        "        print('held', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('raised after')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["held", "raised", "after"], proc.stderr
