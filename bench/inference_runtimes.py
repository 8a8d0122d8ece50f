"""The networks of a bundled model under five runtimes: PyTorch (what predict uses), ONNX
Runtime (the file ``scoremol export`` writes), PyTorch with int8 dynamic quantization of
the linear layers that can take it (the head, the readout's GRU input and the block's output;
the message-passing layers read their weights directly), a TorchScript trace, and
``torch.compile`` (inductor, dynamic shapes; its compile seconds are printed, as every
``predict`` process would pay them).

Run (on a quiet machine): python bench/inference_runtimes.py [--model multitask] [--repeats 3]

Each runtime predicts the same 500 logD molecules in batches of 128 (the last of 116) on one thread (median of
the repeats); the quantized networks' largest and mean change of prediction are printed in
target units.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings

import numpy as np
import pandas as pd
import torch

from scoremol.data.collate import collate_arrays
from scoremol.data.read import smiles_chunk
from scoremol.data.registry import resolve
from scoremol.featurizers.dataset import featurize_chunk
from scoremol.models.checkpoint import load_model
from scoremol.models.onnx import INPUTS, TraceableNetworks, export_onnx
from scoremol.pretrained import bundled_model_path

QUANTIZABLE = ("head", "encoder.block.W_o", "readout.gru")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="multitask")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    import onnxruntime as ort
    from torch.ao.quantization import default_dynamic_qconfig, quantize_dynamic

    model = load_model(bundled_model_path(args.model)).without_tree()
    # 500: the last batch is smaller, which a trace (shapes baked in) gets wrong
    smiles = pd.read_csv(resolve("lipophilicity")).smiles.tolist()[:500]
    data = featurize_chunk(smiles_chunk(smiles), model.featurizer)
    ids = np.arange(data.num_graphs)
    raw = data.descriptors.astype(np.float32) if data.descriptors is not None else np.zeros((len(ids), 0), np.float32)
    batches = []
    for s in range(0, len(ids), 128):
        b = collate_arrays(data.x, data.edge_index, data.edge_attr, data.atom_ptr, data.edge_ptr, ids[s : s + 128])
        batches.append((b.x, b.edge_index, b.edge_attr, b.batch, b.ptr, torch.from_numpy(raw[s : s + 128])))
    module = TraceableNetworks(model).eval()
    quantized = TraceableNetworks(model).eval()
    for k, member in enumerate(quantized.members):
        spec = {n: default_dynamic_qconfig for n, m in member.named_modules() if n.startswith(QUANTIZABLE)}
        quantized.members[k] = quantize_dynamic(member, spec, dtype=torch.qint8)
    with tempfile.TemporaryDirectory() as tmp:
        path = export_onnx(load_model(bundled_model_path(args.model)), tmp).networks
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        wanted = {i.name for i in session.get_inputs()}

        def run_onnx():
            return [session.run(["mean"], {n: t.numpy() for n, t in zip(INPUTS, b) if n in wanted})[0] for b in batches]

        def run_torch(net):
            with torch.inference_mode():
                return [net(*b)[0].numpy() for b in batches]

        with torch.inference_mode():
            traced = torch.jit.freeze(torch.jit.trace(module, batches[0], check_trace=False))
        compiled = torch.compile(module, dynamic=True)
        start = time.perf_counter()
        run_torch(compiled)  # compiles (a shape seen for the first time may compile again)
        print(f"torch.compile: first pass {time.perf_counter() - start:.1f} s")
        runtimes = {
            "pytorch": lambda: run_torch(module),
            "onnxruntime": run_onnx,
            "int8 dynamic": lambda: run_torch(quantized),
            "torchscript trace": lambda: run_torch(traced),
            "torch.compile": lambda: run_torch(compiled),
        }
        reference = np.concatenate(run_torch(module))
        for name in ("int8 dynamic", "torchscript trace", "torch.compile"):
            try:
                output = np.concatenate(runtimes[name]())
            except RuntimeError as exc:
                output = exc
            if not isinstance(output, np.ndarray) or output.shape != reference.shape:
                # a trace keeps its first batch's sizes: wrong rows or an error for any other
                what = f"{len(output)} rows for {len(reference)}" if isinstance(output, np.ndarray) else output
                print(f"{name}: fails on a batch of another size ({str(what).splitlines()[0][:80]}); not timed")
                del runtimes[name]
                continue
            change = np.abs(output - reference)
            largest, mean = change.max(axis=0).round(4), change.mean(axis=0).round(4)
            print(f"{name} change of prediction: max {largest}, mean {mean}")
        for name, run in runtimes.items():
            seconds = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                run()
                seconds.append(time.perf_counter() - start)
            per_batch = statistics.median(seconds) / len(batches) * 1000
            print(f"{name}: {per_batch:.0f} ms per 128 molecules ({len(model.members)} members, one thread)")


if __name__ == "__main__":
    main()
