"""The parts folder's record: what its part files belong to, and which shards are done.

A run may only resume from parts of the same input, model and output options; the
manifest is what lets it check, and it is rewritten atomically as shards finish.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from pathlib import Path

from scoremol.data.atomic import atomic_write
from scoremol.data.parquet import parquet_module
from scoremol.errors import ScoremolError
from scoremol.inference.distributed.worker import PART_KEY, ShardResult, part_path
from scoremol.inference.shards import ShardPlan
from scoremol.version import __version__

MANIFEST = "manifest.json"
FORMAT_NAME = "scoremol-shards"
FORMAT_VERSION = 1


def input_identity(path: str) -> dict:
    """What identifies an input cheaply, even a huge one: path, size, mtime, first MiB."""
    stat = os.stat(path)
    with open(path, "rb") as handle:
        head = hashlib.sha256(handle.read(1 << 20)).hexdigest()
    return {"path": str(Path(path).resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "head_sha256": head}


def new_manifest(identity: dict, model_sha: str, options: dict, plan: ShardPlan) -> dict:
    """The manifest of a new run (a fresh run id: parts of another run are never mixed in)."""
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "scoremol_version": __version__,
        "run": uuid.uuid4().hex,
        "input": identity,
        "model_sha256": model_sha,
        "options": options,
        "plan": plan.to_dict(),
        "done": {},
    }


def write_manifest(parts: Path, manifest: dict, finished: dict[int, ShardResult] | None = None) -> None:
    """Write ``manifest`` (with the shards ``finished`` so far) atomically into ``parts``."""
    if finished is not None:
        manifest["done"] = {str(i): [r.rows, r.predicted] for i, r in sorted(finished.items())}
    with atomic_write(parts / MANIFEST, "w") as handle:
        json.dump(manifest, handle, indent=1)


def read_manifest(parts: Path) -> dict:
    """The manifest in ``parts``; an unreadable, foreign or newer one is a one-line error."""
    path = parts / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ScoremolError(f"{path} is unreadable ({type(exc).__name__}); delete its folder to start over") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise ScoremolError(f"{path} is not a scoremol shard manifest")
    if int(manifest.get("format_version", 0)) > FORMAT_VERSION:
        raise ScoremolError(f"{path} was written by a newer scoremol ({manifest.get('scoremol_version')}); upgrade")
    return manifest


def check_resumable(manifest: dict, identity: dict, model_sha: str, options: dict, parts: Path) -> None:
    """Refuse to mix the parts of another input, model or options into this output."""
    old = manifest["input"]
    differences = []
    if old["path"] != identity["path"]:
        differences.append(f"the input is {identity['path']}, was {old['path']}")
    elif (old["size"], old["mtime_ns"], old["head_sha256"]) != (
        identity["size"],
        identity["mtime_ns"],
        identity["head_sha256"],
    ):
        differences.append("the input file changed (size, time or content)")
    if manifest["model_sha256"] != model_sha:
        differences.append("the model differs")
    changed = [
        k for k in sorted(set(options) | set(manifest["options"])) if options.get(k) != manifest["options"].get(k)
    ]
    if changed:
        differences.append(
            "options differ: " + ", ".join(f"{k} {manifest['options'].get(k)!r} -> {options.get(k)!r}" for k in changed)
        )
    if differences:
        raise ScoremolError(
            f"cannot resume from {parts}: {'; '.join(differences)} "
            "(rerun as before, or delete the folder to start over)"
        )


def finished_parts(parts: Path, plan: ShardPlan, run_id: str) -> dict[int, ShardResult]:
    """Shards of this run whose part file is in place (a part is only ever whole)."""
    pq = parquet_module()
    done = {}
    for shard in plan.shards:
        path = part_path(parts, shard.index)
        if not path.is_file():
            continue
        try:
            meta = json.loads(pq.read_metadata(path).metadata[PART_KEY])
        except Exception:  # unreadable or foreign: compute the shard again
            continue
        if meta.get("run") == run_id and meta.get("shard") == shard.index:
            done[shard.index] = ShardResult(shard.index, int(meta["rows"]), int(meta["predicted"]))
    return done


def remove_parts(parts: str | Path) -> None:
    """Delete a run's part files and manifest (and the folder, if nothing else is in it)."""
    folder = Path(parts)
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        name = path.name
        ours = (name.startswith("shard-") and name.endswith(".parquet")) or name == MANIFEST
        leftover = name.startswith((".shard-", f".{MANIFEST}.")) and name.endswith(".part")  # a killed write
        if path.is_file() and (ours or leftover):
            path.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()


def manifest_summary(parts: str | Path) -> dict:
    """The manifest of ``parts`` (for tools and tests)."""
    return read_manifest(Path(parts))
