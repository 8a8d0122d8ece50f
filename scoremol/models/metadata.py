"""A model file's metadata, read without torch: what ``predict`` needs before torch loads.

A model file (:mod:`scoremol.models.checkpoint`) is a ``torch.save`` zip archive whose
pickle holds one JSON string under the key ``"meta"``. Its featurizer settings tell
``predict`` how to featurize while torch is still importing (about a second), so the text
is found by walking the pickle's opcodes with :func:`pickletools.genops`, which parses
and never executes anything.
"""

from __future__ import annotations

import json
import pickletools
import zipfile
from pathlib import Path

FORMAT_NAME = "scoremol-model"
FORMAT_VERSION = 2
#: files whose every target is a regression are still written as version 1, which older
#: scoremol reads; a yes/no target needs version 2 (an older reader would regress its logit)
REGRESSION_FORMAT_VERSION = 1

#: Opcodes that may sit between a dictionary key and its value (memo bookkeeping).
_MEMO_OPCODES = frozenset({"BINPUT", "LONG_BINPUT", "MEMOIZE", "PUT"})


def read_metadata(path: str | Path) -> dict | None:
    """The metadata dictionary of the scoremol model at ``path``, or None when the file is
    not one (unreadable, another format, no metadata); :func:`load_model` says why."""
    try:
        with zipfile.ZipFile(path) as archive:
            name = next((n for n in archive.namelist() if n.endswith("/data.pkl") or n == "data.pkl"), None)
            if name is None:
                return None
            pickled = archive.read(name)
        key = None
        for opcode, arg, _ in pickletools.genops(pickled):
            if opcode.name in _MEMO_OPCODES:
                continue
            if key == "meta" and isinstance(arg, str):
                meta = json.loads(arg)
                return meta if isinstance(meta, dict) and meta.get("format") == FORMAT_NAME else None
            key = arg if isinstance(arg, str) else None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError):  # ValueError: also bad pickle or JSON
        return None
    return None
