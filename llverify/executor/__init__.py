"""Executors and the verdict cache: how obligations are run (in process, a process pool, a Ray cluster)
and remembered between runs (a content-addressed SQLite cache).

Import the pieces from their modules (``llverify.executor.pool``, ``llverify.executor.cache``): this
package file imports nothing, so a command that only needs the executor does not load the prover.
"""

#: where units can run (``--executor``); :mod:`llverify.executor.pool` runs them
EXECUTORS = ("inline", "process", "ray")
