"""Predict one input on a Dask cluster, shard by shard, resumably, rows in input order.

The input is cut into shards (:mod:`scoremol.inference.shards`). Each shard is one Dask
task (:mod:`.worker`): a worker reads it, featurizes and predicts it with the
single-machine code, and writes its rows to ``<parts>/shard-000123.parquet`` atomically,
so a part file is either whole or absent. The model file's bytes are scattered to every
worker once and loaded once per worker process. The client (:mod:`.client`) writes the
output from the part files in shard order as they finish, so the output is the
single-machine output, row for row.

``<parts>/manifest.json`` (:mod:`.manifest`) records what the parts belong to: the input
(path, size, modification time, a hash of its first MiB), the model's SHA-256, the
options that shape the output, the shard plan, and the shards finished. A run that stops
(Ctrl-C, a crash, a lost client) keeps its parts; ``resume=True`` recomputes only the
shards without a part, and refuses when the input, model or options differ. A worker
that dies mid-shard leaves no part: Dask runs the shard again elsewhere, and since a part
only ever appears whole, under its shard's name, no row is lost or written twice.

Workers must see the input and the parts folder at the same paths as this process (one
machine, or a shared file system); every worker needs scoremol installed. The cluster
itself (a scheduler's address, or a loopback LocalCluster) comes from :mod:`.cluster`, and
what a run asks for from :mod:`.request` (light: the command line reads it for its help).
"""
