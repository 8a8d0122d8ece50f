"""The block contract (see ``scoremol.nn.blocks``): registry, shapes, determinism, dropout,
pre-activation output, lazy imports, and that one dropped-in file is a new architecture."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch_geometric.data import Batch

import scoremol.nn.blocks as blocks_pkg
from scoremol import spec
from scoremol.featurizers.graph import BOND_DIM, smiles_to_graph
from scoremol.nn import BLOCKS, GRAPH_ARCHITECTURES, ModelConfig, build_model
from scoremol.nn.blocks import BLOCK_ARGS, block_names, get_block
from scoremol.nn.context import GraphContext, reverse_edge_index
from scoremol.nn.dropout import dropout

NN_DIR = Path(blocks_pkg.__file__).resolve().parents[1]
BLOCK_DIR = NN_DIR / "blocks"
SMILES = ["c1ccccc1", "CCO", "Cn1cnc2c1c(=O)n(C)c(=O)n2C", "CC(=O)Oc1ccccc1C(=O)O", "C"]
HIDDEN = 16
ATOM_BLOCKS = [n for n in block_names() if n != "dmpnn"]


def make_batch() -> Batch:
    return Batch.from_data_list([smiles_to_graph(s) for s in SMILES])


def state_and_context(arch: str, batch: Batch, seed: int = 0) -> tuple[torch.Tensor, GraphContext]:
    """A random state of the right rows for ``arch`` (atoms, or directed bonds for dmpnn)
    and the context its encoder would build."""
    gen = torch.Generator().manual_seed(seed)
    ctx = GraphContext(batch.edge_index, batch.edge_attr, batch.batch, batch.num_nodes, batch.num_graphs)
    rows = batch.num_nodes
    if arch == "dmpnn":
        rows = batch.edge_index.size(1)
        ctx.edge_input = torch.randn(rows, HIDDEN, generator=gen)
        ctx.rev_index = reverse_edge_index(batch.edge_index)
    return torch.randn(rows, HIDDEN, generator=gen), ctx


def make_block(arch: str, dropout: float = 0.0) -> torch.nn.Module:
    torch.manual_seed(0)
    return BLOCKS[arch](HIDDEN, BOND_DIM, 4, dropout)  # the contract's positional constructor


# --- registry ---------------------------------------------------------------------------------


def test_block_files_and_spec_architectures_agree() -> None:
    """A block file without an entry in spec.GRAPH_ARCHITECTURES (the list the command line
    offers), or an entry without a block file, fails here."""
    files = sorted(p.stem for p in BLOCK_DIR.glob("*.py") if not p.stem.startswith("_"))
    assert files == list(block_names())
    assert len(set(spec.GRAPH_ARCHITECTURES)) == len(spec.GRAPH_ARCHITECTURES)
    assert set(block_names()) == set(spec.GRAPH_ARCHITECTURES), (
        f"block files without a spec entry: {sorted(set(block_names()) - set(spec.GRAPH_ARCHITECTURES))}; "
        f"spec entries without a block file: {sorted(set(spec.GRAPH_ARCHITECTURES) - set(block_names()))}"
    )
    assert set(BLOCKS) == set(GRAPH_ARCHITECTURES) and len(BLOCKS) == len(GRAPH_ARCHITECTURES)


@pytest.mark.parametrize("arch", block_names())
def test_every_block_file_registers_its_own_name(arch: str) -> None:
    cls = BLOCKS[arch]
    assert cls.arch == arch and cls.__module__ == f"scoremol.nn.blocks.{arch}"
    assert get_block(arch) is cls
    source = (BLOCK_DIR / f"{arch}.py").read_text()
    assert f'@register_block("{arch}")' in source


def test_unknown_architecture_is_a_key_error() -> None:
    assert "nope" not in BLOCKS and 3 not in BLOCKS
    with pytest.raises(KeyError, match="nope"):
        BLOCKS["nope"]


def test_listing_blocks_imports_none_of_them() -> None:
    """Block discovery reads file names; only the requested block is imported (a DMPNN model
    never pays for importing PyTorch Geometric)."""
    code = textwrap.dedent("""
        import sys, torch
        from types import SimpleNamespace
        from scoremol.nn import BLOCKS, ModelConfig, build_model
        names = list(BLOCKS); assert 'gat' in BLOCKS and len(BLOCKS) == len(names)
        loaded = [m for m in sys.modules if m.startswith('scoremol.nn.blocks.')]
        assert loaded == [], loaded
        model = build_model(ModelConfig(arch='dmpnn', hidden=8)).eval()
        data = SimpleNamespace(x=torch.randn(2, model.config.atom_dim),
                               edge_index=torch.tensor([[0, 1], [1, 0]]),
                               edge_attr=torch.randn(2, model.config.bond_dim), num_nodes=2)
        assert model(data).shape == (1, 1)
        loaded = sorted(m for m in sys.modules if m.startswith('scoremol.nn.blocks.'))
        assert loaded == ['scoremol.nn.blocks.dmpnn'], loaded
        assert not any(m.startswith('torch_geometric') for m in sys.modules)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_importing_scoremol_nn_does_not_import_rdkit() -> None:
    code = "import scoremol.nn, sys; assert not any(m.startswith('rdkit') for m in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


# --- a dropped-in file ------------------------------------------------------------------------


@pytest.fixture
def extra_block_dir(tmp_path, monkeypatch):
    """A second folder on the blocks package path: a file written there is "dropped into the
    package" without touching the source tree. Imports and registrations are undone."""
    monkeypatch.setattr(blocks_pkg, "__path__", [*blocks_pkg.__path__, str(tmp_path)])
    monkeypatch.setattr(blocks_pkg, "_REGISTRY", dict(blocks_pkg._REGISTRY))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("scoremol.nn.blocks."):
            del sys.modules[name]
            if hasattr(blocks_pkg, name.rsplit(".", 1)[1]):
                delattr(blocks_pkg, name.rsplit(".", 1)[1])


TOY_BLOCK = '''
from torch import nn
from scoremol.nn.blocks import register_block
from scoremol.nn.dropout import dropout
from scoremol.nn.scatter import scatter_sum


@register_block("toy")
class ToyBlock(nn.Module):
    """y = Linear(x + sum of neighbours of x), x = dropout(h)."""

    def __init__(self, hidden, edge_dim, heads=1, dropout=0.0):
        super().__init__()
        self.dropout = dropout
        self.lin = nn.Linear(hidden, hidden)
        self.bond = nn.Linear(edge_dim, hidden)

    def forward(self, h, ctx):
        x = dropout(h, self.dropout, self.training)
        src, dst = ctx.edge_index
        msg = x.index_select(0, src) * self.bond(ctx.edge_attr)
        return self.lin(x + scatter_sum(msg, dst, ctx.num_nodes))
'''


def test_a_dropped_in_block_file_is_a_new_architecture(extra_block_dir, monkeypatch) -> None:
    (extra_block_dir / "toy.py").write_text(TOY_BLOCK)
    assert "toy" in block_names() and "toy" in BLOCKS
    assert "scoremol.nn.blocks.toy" not in sys.modules  # listed, not imported
    cls = BLOCKS["toy"]
    assert cls.__name__ == "ToyBlock" and cls.arch == "toy"
    # With its name in the architecture list (spec.GRAPH_ARCHITECTURES, simulated here), the
    # models build and train it with no other change.
    import scoremol.nn.config as config_mod
    import scoremol.nn.model as model_mod

    archs = (*config_mod.ARCHITECTURES, "toy")
    monkeypatch.setattr(config_mod, "ARCHITECTURES", archs)
    monkeypatch.setattr(model_mod, "ARCHITECTURES", archs)
    for mode in ("score", "classic"):
        model = build_model(ModelConfig(arch="toy", mode=mode, hidden=8, steps=2, head_hidden=(4,)))
        assert isinstance(model.encoder.depth.blocks[0], cls)
        out = model(make_batch())
        assert out.shape == (len(SMILES), 1)
        out.sum().backward()


def test_a_block_registered_under_another_name_is_refused(extra_block_dir) -> None:
    (extra_block_dir / "toy.py").write_text(TOY_BLOCK.replace('register_block("toy")', 'register_block("gcn")'))
    with pytest.raises(ValueError, match="must live in scoremol.nn.blocks.gcn"):
        BLOCKS["toy"]


def test_a_block_file_that_registers_nothing_is_refused(extra_block_dir) -> None:
    (extra_block_dir / "toy.py").write_text(TOY_BLOCK.replace('@register_block("toy")', ""))
    with pytest.raises(LookupError, match=r"register_block\('toy'\)"):
        BLOCKS["toy"]


@pytest.mark.parametrize(
    "signature, match",
    [
        ("hidden, heads, edge_dim, dropout", "must start with"),
        ("hidden, edge_dim, heads", "must start with"),
        ("hidden, edge_dim, heads, dropout, rank", "need defaults"),
        ("hidden, edge_dim, heads, *, dropout", "must start with"),
    ],
)
def test_register_block_checks_the_constructor(extra_block_dir, signature: str, match: str) -> None:
    (extra_block_dir / "toy.py").write_text(
        "from torch import nn\nfrom scoremol.nn.blocks import register_block\n\n"
        f"@register_block('toy')\nclass Toy(nn.Module):\n"
        f"    def __init__(self, {signature}):\n        super().__init__()\n"
    )
    with pytest.raises(TypeError, match=match):
        BLOCKS["toy"]


def test_register_block_accepts_extra_keyword_arguments_with_defaults() -> None:
    from scoremol.nn.blocks.mpnn import MPNNBlock  # (hidden, edge_dim, heads, dropout, rank=, edge_hidden=)

    assert BLOCKS["mpnn"] is MPNNBlock
    assert BLOCK_ARGS == ("hidden", "edge_dim", "heads", "dropout")


# --- the contract, for every registered block ------------------------------------------------


@pytest.mark.parametrize("arch", block_names())
def test_block_maps_state_to_state_and_is_deterministic_in_eval(arch: str) -> None:
    batch = make_batch()  # the last molecule is a single atom without bonds
    block = make_block(arch, dropout=0.5).eval()
    h, ctx = state_and_context(arch, batch)
    y = block(h, ctx)
    assert y.shape == h.shape and y.dtype == h.dtype and bool(torch.isfinite(y).all())
    assert torch.equal(block(h, ctx), y)
    assert torch.equal(block(h.clone(), ctx), y)  # a pure function of its input


@pytest.mark.parametrize("arch", block_names())
def test_block_output_is_not_activated_or_normalized(arch: str) -> None:
    """Pre-activation output: takes negative values (no ReLU/sigmoid applied) and its rows
    are not LayerNorm output (zero mean, unit variance)."""
    batch = make_batch()
    block = make_block(arch).eval()
    h, ctx = state_and_context(arch, batch)
    y = block(h, ctx)
    assert bool((y < 0).any()) and bool((y > 0).any())
    mean, std = y.mean(-1), y.std(-1, unbiased=False)
    assert not (
        torch.allclose(mean, torch.zeros_like(mean), atol=1e-3) and torch.allclose(std, torch.ones_like(std), atol=1e-2)
    )


@pytest.mark.parametrize("arch", block_names())
def test_block_does_not_depend_on_batch_composition(arch: str) -> None:
    """A molecule's rows of y are the same alone as inside a batch."""
    batch = make_batch()
    block = make_block(arch).eval()
    h, ctx = state_and_context(arch, batch)
    y = block(h, ctx)
    one = Batch.from_data_list([smiles_to_graph(SMILES[2])])
    _, ctx1 = state_and_context(arch, one)
    rows = batch.batch == 2
    if arch == "dmpnn":  # rows are directed bonds
        rows = rows[batch.edge_index[0]]
        ctx1.edge_input = ctx.edge_input[rows]
    torch.testing.assert_close(block(h[rows], ctx1), y[rows], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("arch", ATOM_BLOCKS)
def test_dropout_is_only_on_the_block_input(arch: str) -> None:
    """In training a block computes its eval-mode function of dropout(h): one dropout site,
    on the input, nothing else random (no attention or hidden-layer dropout)."""
    batch = make_batch()
    block = make_block(arch, dropout=0.5)
    h, ctx = state_and_context(arch, batch)
    torch.manual_seed(7)
    trained = block.train()(h, ctx)
    torch.manual_seed(7)
    dropped = dropout(h, 0.5, True)
    expected = block.eval()(dropped, ctx)
    torch.testing.assert_close(trained, expected, rtol=0, atol=0)
    assert not torch.allclose(trained, block(h, ctx))  # the dropout did something


def test_dense_block_follows_the_same_rules() -> None:
    """The dense models' block (not a graph architecture, so not in blocks/) keeps the
    contract too: the shared constructor, [B, hidden] -> [B, hidden], input dropout only."""
    from scoremol.nn.dense import DenseBlock

    torch.manual_seed(0)
    block = DenseBlock(HIDDEN, 0, 4, 0.5)
    h = torch.randn(6, HIDDEN)
    torch.manual_seed(7)
    trained = block.train()(h)
    torch.manual_seed(7)
    expected = block.eval()(dropout(h, 0.5, True))
    torch.testing.assert_close(trained, expected, rtol=0, atol=0)
    assert block(h, None).shape == h.shape and bool((block(h) < 0).any())


def test_dmpnn_drops_its_message_the_one_documented_exception() -> None:
    from scoremol.nn.blocks.dmpnn import dmpnn_message

    batch = make_batch()
    block = make_block("dmpnn", dropout=0.5)
    h, ctx = state_and_context("dmpnn", batch)
    torch.manual_seed(7)
    trained = block.train()(h, ctx)
    torch.manual_seed(7)
    m = dropout(dmpnn_message(h, ctx), 0.5, True)
    torch.testing.assert_close(trained, ctx.edge_input + m @ block.W_h.weight.T)


def test_attentivefp_block_is_the_pyg_atom_layer_before_its_relu() -> None:
    """The documented exception: y is AttentiveFP's GRU state, relu(y) its atom layer."""
    batch = make_batch()
    block = make_block("attentivefp").eval()
    h, ctx = state_and_context("attentivefp", batch)
    c = F.elu(block.conv(h, ctx.edge_index, ctx.edge_attr))
    torch.testing.assert_close(block(h, ctx), block.gru(c, h), rtol=0, atol=0)


def test_transformer_block_is_ffn_of_normalized_attention() -> None:
    batch = make_batch()
    block = make_block("transformer").eval()
    h, ctx = state_and_context("transformer", batch)
    a = block.attn(h, ctx.edge_index, ctx.edge_attr)
    expected = block.ffn(F.layer_norm(a, (HIDDEN,), block.norm.weight, block.norm.bias))
    torch.testing.assert_close(block(h, ctx), expected, rtol=0, atol=0)
    assert not any(isinstance(m, torch.nn.Dropout) for m in block.modules())


# --- documentation ----------------------------------------------------------------------------


def _classes(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text())
    return [(node.name, ast.get_docstring(node) or "") for node in tree.body if isinstance(node, ast.ClassDef)]


DOCUMENTED = sorted(
    {
        *(f"blocks/{n}.py" for n in block_names()),
        "encoder.py",
        "readout.py",
        "head.py",
        "model.py",
        "dense.py",
        "depth.py",
    }
)


@pytest.mark.parametrize("name", DOCUMENTED)
def test_module_classes_document_args_and_shapes(name: str) -> None:
    classes = [(c, d) for c, d in _classes(NN_DIR / name) if not c.startswith("_")]
    assert classes, name
    for cls, doc in classes:
        assert "Args:" in doc and "Shapes:" in doc, f"{name}:{cls} lacks Args: / Shapes:"
        assert re.search(r"``\[[NEB], \w+\]``", doc), f"{name}:{cls} gives no shape like [N, hidden]"


def test_no_docstring_cites_a_local_path() -> None:
    local = re.compile(r"(?<![\w.])(/work/|/home/|/Users/|/tmp/|[A-Z]:\\)")
    for path in NN_DIR.rglob("*.py"):
        hits = [line for line in path.read_text().splitlines() if local.search(line)]
        assert not hits, f"{path.relative_to(NN_DIR)} cites a local path: {hits}"
