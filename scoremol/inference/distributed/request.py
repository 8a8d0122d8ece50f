"""What a ``--scheduler`` run asks for, checked before any heavy import."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoremol.errors import ScoremolError
from scoremol.spec import DISTRIBUTED, option


@dataclass(frozen=True)
class DistributedRequest:
    """Where and how a ``--scheduler`` run goes: the cluster, its shards and parts folder
    (each field's metadata is its command-line option)."""

    scheduler: str | None = option(
        None,
        "Run on a Dask cluster, in shards: tcp://HOST:PORT, or local for a cluster of --workers processes on "
        "this machine (loopback only). Needs pip install 'scoremol[dask]'.",
        DISTRIBUTED,
    )
    shard_size: str | None = option(
        None,
        "Rows per shard, or input bytes per shard (64MB) [default: 100000 rows, fewer for a small input: four "
        "shards per worker].",
        DISTRIBUTED,
    )
    resume: bool = option(
        False,
        "Continue an interrupted --scheduler run: only shards without a part file are computed.",
        DISTRIBUTED,
        negatable=False,
    )
    parts_dir: Path | None = option(
        None,
        "Folder of finished shards and their manifest (default: OUTPUT.parts; a temporary folder for standard "
        "output). Workers must see it.",
        DISTRIBUTED,
    )
    keep_parts: bool = option(False, "Keep the parts folder after a finished run.", DISTRIBUTED, negatable=False)
    #: processes of a local cluster (the command's --workers)
    workers: int | None = None

    def check(self, path: str, smiles_given: bool, output: Path | None, device: str) -> bool:
        """True for a distributed run; a combination of options that cannot work is a one-line error."""
        if self.scheduler is None:
            given = [
                flag
                for flag, value in (
                    ("--shard-size", self.shard_size),
                    ("--resume", self.resume),
                    ("--parts-dir", self.parts_dir),
                    ("--keep-parts", self.keep_parts),
                )
                if value
            ]
            if given:
                raise ScoremolError(f"{given[0]} applies to --scheduler runs (add --scheduler local for this machine)")
            return False
        if smiles_given or path == "-":
            raise ScoremolError("--scheduler needs an input file (not standard input or SMILES arguments)")
        if device != "cpu":
            raise ScoremolError("--scheduler predicts on the workers' CPUs; drop --device")
        if self.workers is not None and self.scheduler != "local":
            raise ScoremolError(
                "--workers sizes a cluster of --scheduler local; a scheduler's cluster has its own workers"
            )
        if output is None and self.parts_dir is None:
            if self.scheduler != "local":
                raise ScoremolError(
                    "with a remote --scheduler, name -o or --parts-dir on a file system the workers share"
                )
            if self.resume:
                raise ScoremolError("--resume with standard output needs the --parts-dir of the interrupted run")
        return True
