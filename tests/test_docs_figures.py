"""Headline figures have one source: a figure in the docs or the model cards that disagrees
with the results files under bench/results/ fails here (scripts/render_figures.py renders them)."""

from __future__ import annotations

import importlib.util

from tests.conftest import ROOT


def _renderer():
    spec = importlib.util.spec_from_file_location("render_figures", ROOT / "scripts" / "render_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_figure_in_the_docs_and_cards_agrees_with_its_results_file():
    render = _renderer()
    figures = render.compute()
    assert render.disagreements(figures) == []
    docs = "".join(doc.read_text() for doc in render.DOCS if doc.is_file())
    assert len(render.MARKER.findall(docs)) >= 10  # the headline figures are marked


def test_a_changed_figure_is_caught(tmp_path, monkeypatch):
    render = _renderer()
    figures = render.compute()
    key = "aqsoldb.default.mae"
    doc = tmp_path / "doc.md"
    doc.write_text(f"MAE <!--fig:{key}-->0.001<!--/fig-->\n")
    monkeypatch.setattr(render, "DOCS", [doc])
    assert render.disagreements(figures) == [f"doc.md: {key} reads 0.001, its source says {figures[key]}"]


def test_model_cards_show_no_missing_figure():
    from scoremol.pretrained import MODELS

    for model in MODELS.values():
        texts = [model.benchmark] + [t.benchmark for t in model.tasks]
        assert not any("?" in text for text in texts), (model.name, texts)
