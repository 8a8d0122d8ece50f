"""Print a Markdown table of parameter counts: stacked (base) vs SCORE depth, K = 4.

Usage: python bench/param_counts.py [--hidden 128] [--steps 4] [--descriptor-dim 217]

Graph models use the default MolAttFP readout and (128, 64, 32) head; "+ desc" concatenates
``descriptor_dim`` RDKit descriptors before the head. The dense baselines are listed too.
"""

from __future__ import annotations

import argparse

from scoremol.nn import GRAPH_ARCHITECTURES, ModelConfig, build_model, count_parameters


def count(arch: str, mode: str, steps: int, hidden: int, descriptor_dim: int) -> int:
    """Trainable parameters of one configuration (descriptor_dim 0 = no descriptors)."""
    config = ModelConfig(
        arch=arch,
        mode=mode,
        steps=steps,
        hidden=hidden,
        n_targets=1,
        use_descriptors=descriptor_dim > 0,
        descriptor_dim=descriptor_dim,
    )
    return count_parameters(build_model(config))


def table(hidden: int = 128, steps: int = 4, descriptor_dim: int = 217) -> str:
    """The Markdown table as a string."""
    head = f"| arch | base K={steps} | score K={steps} | score/base | base K={steps} + desc | score K={steps} + desc |"
    lines = [head, "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for arch in GRAPH_ARCHITECTURES:
        b, s = (count(arch, m, steps, hidden, 0) for m in ("base", "score"))
        bd, sd = (count(arch, m, steps, hidden, descriptor_dim) for m in ("base", "score"))
        lines.append(f"| {arch} | {b:,} | {s:,} | {s / b:.2f} | {bd:,} | {sd:,} |")
    b, s = (count(a, m, steps, hidden, descriptor_dim) for a, m in (("mlp", "base"), ("score-mlp", "score")))
    lines.append(f"| mlp / score-mlp (desc only) | {b:,} | {s:,} | {s / b:.2f} | {b:,} | {s:,} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--descriptor-dim", type=int, default=217)
    args = parser.parse_args()
    print(
        f"Parameter counts, hidden {args.hidden}, MolAttFP readout, head (128, 64, 32), "
        f"1 target, descriptors: {args.descriptor_dim}\n"
    )
    print(table(args.hidden, args.steps, args.descriptor_dim))


if __name__ == "__main__":
    main()
