"""Named benchmark data sets (esol, freesolv, lipophilicity, aqsoldb, biogen) resolved to verified local files.

A name resolves to ``$SCOREMOL_DATA/<file>``, then to the copy shipped in the source tree's
``data/`` folder, then to the user cache folder, then to a download verified by sha256. A
local CSV whose checksum matches an entry inherits that entry's target column, so
``scoremol train esol.csv`` needs no ``--target``.
"""

from __future__ import annotations

import hashlib
import os
import re
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scoremol.data.atomic import atomic_write
from scoremol.errors import ScoremolError


@dataclass(frozen=True)
class DatasetInfo:
    """One registry entry; ``sha256`` lists every accepted byte-exact copy."""

    name: str
    filename: str
    url: str
    sha256: tuple[str, ...]
    smiles_col: str
    target_col: str
    units: str
    description: str
    #: short name of the property, for prediction columns (``logS_pred``)
    label: str = ""
    #: ``regression`` or ``classification`` (a yes/no assay: 0/1 in the file)
    kind: str = "regression"
    #: the file's target column when not ``target_col`` (PharmaBench's ``value``, read under
    #: ``target_col`` so that several sets in one model are several targets)
    file_target_col: str = ""
    #: the file's column assigning each row to ``train`` or ``test`` (its scaffold split)
    split_col: str = ""
    #: added to the file's values: one unit per property (PharmaBench water: log10 nmol/L - 9)
    offset: float = 0.0
    #: the file's other measured columns a model may learn: (column, label, units)
    other_targets: tuple[tuple[str, str, str], ...] = ()

    def units_of(self, column: str) -> str:
        """The units of one of the file's target columns ("" when it is none of them)."""
        if column == self.target_col:
            return self.units
        return next((units for name, _, units in self.other_targets if name == column), "")


REGISTRY: dict[str, DatasetInfo] = {
    d.name: d
    for d in (
        DatasetInfo(
            "esol",
            "esol.csv",
            "https://deepchemdata.s3-us-west-1.amazonaws.com/datasets/delaney-processed.csv",
            ("8c06a76f0c6487d29ab0f903e6a7a7139f189ab3c1178f159c8be8964602f189",),
            "smiles",
            "measured log solubility in mols per litre",
            "log10(mol/L)",
            "aqueous solubility (ESOL / Delaney), 1128 molecules",
            "logS",
        ),
        DatasetInfo(
            "freesolv",
            "freesolv.csv",
            "https://deepchemdata.s3-us-west-1.amazonaws.com/datasets/SAMPL.csv",
            ("ab5895d914ee87cb563bd7b9611e869527bba45bec6b014d34dc495a0f9dcb72",),
            "smiles",
            "expt",
            "kcal/mol",
            "hydration free energy (FreeSolv / SAMPL), 642 molecules",
            "dG_hydration",
        ),
        DatasetInfo(
            "lipophilicity",
            "lipophilicity.csv",
            "https://deepchemdata.s3-us-west-1.amazonaws.com/datasets/Lipophilicity.csv",
            (
                # LF copy (GitHub leojklarner/GNN) and DeepChem's CRLF original
                "627bb3891f01e9022098b48f0aa6367df3ff909524b841d4143e6fc4a6501458",
                "aed41590cb30609d51d8e08ad3ff06495a76e80e211358801f596b10da69bacd",
            ),
            "smiles",
            "exp",
            "log10 ratio (logD7.4)",
            "octanol/water distribution coefficient at pH 7.4, 4200 molecules",
            "logD",
        ),
        DatasetInfo(
            "aqsoldb",
            "aqsoldb.csv",
            "",  # 9,859 of the 9,982 rows of the published file: no public copy to download
            ("b0ab1af34d9904b4a9270af3dd721a1283370ebda97a6927014e986420862ed0",),
            "SMILES",
            "Solubility",
            "log10(mol/L)",
            "curated aqueous solubility (AqSolDB, Sorkun et al. 2019), 9859 compounds",
            "logS",
        ),
        DatasetInfo(
            "biogen",
            "biogen_adme.csv",
            "",  # shipped (MIT, Fang et al. 2023); no verified public download address
            ("2cfabc2667740c224487876c33b23124159ef43294e0f9e4d926cb6276c95a3b",),
            "SMILES",
            "LOG SOLUBILITY PH 6.8 (ug/mL)",
            "log10(ug/mL)",
            "kinetic solubility in pH 6.8 buffer (Biogen ADME, Fang et al. 2023), 2173 of 3521 compounds",
            "logSol_pH6.8",
            other_targets=(
                ("LOG HLM_CLint (mL/min/kg)", "logHLM_CLint", "log10(mL/min/kg)"),
                ("LOG RLM_CLint (mL/min/kg)", "logRLM_CLint", "log10(mL/min/kg)"),
                ("LOG MDR1-MDCK ER (B-A/A-B)", "logMDR1_ER", "log10 ratio (B-A/A-B)"),
                ("LOG PLASMA PROTEIN BINDING (HUMAN) (% unbound)", "logPPB_human", "log10(% unbound)"),
                ("LOG PLASMA PROTEIN BINDING (RAT) (% unbound)", "logPPB_rat", "log10(% unbound)"),
            ),
        ),
    )
}


#: PharmaBench (Niu et al., Scientific Data 2024, CC0): name, file, target, units, description, label, rows, kind
_PHARMABENCH = (
    (
        "logd",
        "logd_reg_final_data.csv",
        "logD 7.4 (PharmaBench)",
        "log10 ratio (logD7.4)",
        "logD at pH 7.4 conditions",
        "logD_PB",
        13068,
        "r",
    ),
    (
        "water-sol",
        "water_sol_reg_final_data.csv",
        "water solubility (PharmaBench)",
        "log10(mol/L)",
        "aqueous solubility, buffer pH 7-7.5 and water (the file's log10(nmol/L) less 9)",
        "logS_PB",
        11701,
        "r",
    ),
    (
        "bbb",
        "bbb_cls_final_data.csv",
        "BBB",
        "0/1 (1: crosses the blood-brain barrier)",
        "blood-brain barrier penetration",
        "BBB",
        8301,
        "c",
    ),
    ("ames", "ames_cls_final_data.csv", "Ames", "0/1 (1: mutagenic)", "Ames mutagenicity", "Ames", 9139, "c"),
    (
        "ppb",
        "ppb_reg_final_data.csv",
        "PPB fraction bound (PharmaBench)",
        "fraction bound (0-1)",
        "plasma protein binding",
        "PPB_fb",
        1262,
        "r",
    ),
    (
        "cyp2c9",
        "cyp_2c9_reg_final_data.csv",
        "CYP2C9 (PharmaBench)",
        "as upstream (values 0-100)",
        "CYP2C9 inhibition",
        "CYP2C9",
        999,
        "r",
    ),
    (
        "cyp2d6",
        "cyp_2d6_reg_final_data.csv",
        "CYP2D6 (PharmaBench)",
        "as upstream (values 0-100)",
        "CYP2D6 inhibition",
        "CYP2D6",
        1214,
        "r",
    ),
    (
        "cyp3a4",
        "cyp_3a4_reg_final_data.csv",
        "CYP3A4 (PharmaBench)",
        "as upstream (values 0-100)",
        "CYP3A4 inhibition",
        "CYP3A4",
        1980,
        "r",
    ),
    (
        "hlm",
        "hum_mic_cl_reg_final_data.csv",
        "human microsomal CL (PharmaBench)",
        "log10(mL/min/g)",
        "human liver microsomal clearance",
        "logCL_HLM",
        2286,
        "r",
    ),
    (
        "rlm",
        "rat_mic_cl_reg_final_data.csv",
        "rat microsomal CL (PharmaBench)",
        "log10(mL/min/g)",
        "rat liver microsomal clearance",
        "logCL_RLM",
        1129,
        "r",
    ),
    (
        "mlm",
        "mou_mic_cl_reg_final_data.csv",
        "mouse microsomal CL (PharmaBench)",
        "log10(mL/min/g)",
        "mouse liver microsomal clearance",
        "logCL_MLM",
        1403,
        "r",
    ),
)
#: their sha256, as listed in data/README.md
_PHARMABENCH_SHA256 = {
    "ames_cls_final_data.csv": "3d867fa3748c94579d6bccea569a1d8eb38c6cfbd723fe7933f7adb1097566ed",
    "bbb_cls_final_data.csv": "abaa6c120d5ce2136c9a77c2a90bfbb62c0ad2a6a807eeb0fe89749dca353466",
    "cyp_2c9_reg_final_data.csv": "cfb5ace6abd6ae97345b8a0e70db04cae6570f9965d49073c53864a5620edf19",
    "cyp_2d6_reg_final_data.csv": "54af95afd7fef8bbea27f195453dbfddb8dda6bdf7947dcc687c65e136150aa7",
    "cyp_3a4_reg_final_data.csv": "c51df8ba1dbf94949e2fc2d47f9d495e554d77de32e89574ede31d809c5150e6",
    "hum_mic_cl_reg_final_data.csv": "54a91fd2ec3770f6d5fddf445e7517637a4cb73d4509cf5dcbb0f1c30d3e340a",
    "logd_reg_final_data.csv": "501d3fd37e050ca1602f754b5890d618b618fd7c15e24b5e6c88f6f5d01cb6e9",
    "mou_mic_cl_reg_final_data.csv": "de684ceb2302d5efcbc8d358f14f1f69c75a3cd36adf88c013b8c1a0ba7923d4",
    "ppb_reg_final_data.csv": "a5c9402750dbc1d064407c062c791f66e82cd91b1df9c8fd03d9ae2f2a60f541",
    "rat_mic_cl_reg_final_data.csv": "bdf74a052e9c06baf35c26879689023d4a41825d635890d509aef9d3326c7755",
    "water_sol_reg_final_data.csv": "39afc80bf3f943228ef1af616de87665958ec98d5dd787f0205402e0304f838c",
}
REGISTRY.update(
    {
        f"pharmabench-{name}": DatasetInfo(
            f"pharmabench-{name}",
            f"pharmabench/{filename}",
            "",  # shipped (CC0); no download
            (_PHARMABENCH_SHA256[filename],),
            "Smiles_unify",
            target,
            units,
            f"{description} (PharmaBench, Niu et al. 2024), {rows} molecules",
            label,
            "classification" if kind == "c" else "regression",
            "value",
            "scaffold_train_test_label",
            -9.0 if name == "water-sol" else 0.0,
        )
        for name, filename, target, units, description, label, rows, kind in _PHARMABENCH
    }
)

#: The copies shipped with the source tree (``data/`` beside the package), if present.
SHIPPED_DATA = Path(__file__).resolve().parents[2] / "data"


def cache_dir() -> Path:
    """The user cache folder (``$SCOREMOL_CACHE``, else ``$XDG_CACHE_HOME/scoremol``)."""
    if os.environ.get("SCOREMOL_CACHE"):
        return Path(os.environ["SCOREMOL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "scoremol"


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path, info: DatasetInfo) -> Path:
    actual = sha256_file(path)
    if actual not in info.sha256:
        raise ScoremolError(
            f"checksum mismatch for {info.name} at {path}: sha256 {actual[:12]}... is not the "
            f"registered {info.sha256[0][:12]}...; remove or replace the file"
        )
    return path


def resolve(name: str, download: bool = True) -> Path:
    """The verified local path of a named data set, downloading it if allowed and needed."""
    info = REGISTRY.get(name.lower())
    if info is None:
        raise ScoremolError(f"unknown data set {name!r}; known: {', '.join(REGISTRY)}")
    data_dir = os.environ.get("SCOREMOL_DATA")
    if data_dir and (Path(data_dir) / info.filename).is_file():
        return _verified(Path(data_dir) / info.filename, info)
    if (SHIPPED_DATA / info.filename).is_file():
        return _verified(SHIPPED_DATA / info.filename, info)
    cached = cache_dir() / "data" / info.filename
    if cached.is_file():
        return _verified(cached, info)
    where = f"{Path(data_dir) / info.filename if data_dir else '$SCOREMOL_DATA/' + info.filename} or {cached}"
    if not download or not info.url:
        raise ScoremolError(f"data set {info.name} not found locally; put {info.filename} at {where}")
    try:
        with urllib.request.urlopen(info.url, timeout=30) as response:
            payload = response.read()
    except Exception as exc:  # offline, DNS, HTTP error: all mean "not available"
        raise ScoremolError(
            f"could not download {info.name} from {info.url} ({type(exc).__name__}); "
            f"offline? put {info.filename} at {where}"
        ) from exc
    actual = hashlib.sha256(payload).hexdigest()
    if actual not in info.sha256:
        raise ScoremolError(f"downloaded {info.name} has sha256 {actual[:12]}..., expected {info.sha256[0][:12]}...")
    with atomic_write(cached, "wb") as handle:
        handle.write(payload)
    return cached


@lru_cache(maxsize=64)
def _lookup_cached(path: str, size: int, mtime: float) -> DatasetInfo | None:
    digest = sha256_file(path)
    return next((d for d in REGISTRY.values() if digest in d.sha256), None)


def lookup_by_checksum(path: str | os.PathLike) -> DatasetInfo | None:
    """The registry entry whose checksum matches this local file, if any."""
    p = Path(path)
    if not p.is_file():
        return None
    stat = p.stat()
    return _lookup_cached(str(p.resolve()), stat.st_size, stat.st_mtime)


def resolve_input(path_or_name: str) -> tuple[str, DatasetInfo | None]:
    """A user's INPUT: an existing file or ``-`` stays as is; a registry name is resolved."""
    if path_or_name == "-" or Path(path_or_name).exists():
        return path_or_name, lookup_by_checksum(path_or_name) if path_or_name != "-" else None
    if path_or_name.lower() in REGISTRY:
        path = resolve(path_or_name)
        return str(path), REGISTRY[path_or_name.lower()]
    raise ScoremolError(f"input file not found: {path_or_name} (nor a data set name: {', '.join(REGISTRY)})")


def target_label(target: str, units: str | None = None) -> str:
    """A short, shell-safe name for a target column: the registry's label for a known data
    set's target (``logS`` for ESOL's "measured log solubility in mols per litre"), else
    the column name with every run of non-word characters turned into ``_``.

    A one-word column name ("Solubility", "exp") says nothing of what a user's file
    measures: it gets the data set's label only with the data set's ``units``, which a
    model learns only from the data set's own file (recognized by its checksum).
    """
    for info in REGISTRY.values():
        if info.target_col == target and info.label and (" " in target or units == info.units):
            return info.label
        for column, label, column_units in info.other_targets:
            if column == target and (" " in target or units == column_units):
                return label
    return column_label(target)


def column_label(target: str) -> str:
    """The column name with every run of non-word characters turned into ``_``."""
    return re.sub(r"\W+", "_", target).strip("_") or "target"


#: Extensions that mark an argument as a file name (a missing one is an error, not a SMILES).
FILE_SUFFIXES = (".csv", ".tsv", ".smi", ".sdf", ".txt", ".gz", ".parquet", ".pt")


def resolve_prediction_inputs(inputs: list[str]) -> tuple[str, list[str] | None]:
    """``(path, None)`` for a file, ``-`` or a data set name; ``("", smiles)`` when the
    arguments are SMILES strings (more than one, or one that is no file but parses)."""
    if len(inputs) == 1:
        arg = inputs[0]
        if arg == "-" or Path(arg).exists() or arg.lower() in REGISTRY:
            return resolve_input(arg)[0], None
        if arg.lower().endswith(FILE_SUFFIXES):
            raise ScoremolError(f"input file not found: {arg}")
        from rdkit import Chem, RDLogger

        RDLogger.DisableLog("rdApp.*")
        if Chem.MolFromSmiles(arg) is None:
            raise ScoremolError(f"input file not found: {arg} (nor a data set name or a valid SMILES)")
    for arg in inputs:  # no SMILES ends like a file name: a missing file is not an invalid row
        if arg.lower().endswith(FILE_SUFFIXES):
            what = "not found" if not Path(arg).exists() else "given with other inputs; give one file alone"
            raise ScoremolError(f"input file {what}: {arg} (several inputs are read as SMILES strings)")
    return "", list(inputs)
