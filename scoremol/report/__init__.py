"""The HTML report of predictions: one self-contained, offline page (see :mod:`.html`).

Kept empty so that the command line's option classes (:mod:`.request`) import without
torch: ``scoremol predict`` starts featurizing before torch is loaded.
"""
