"""``llverify cache``: what the verdict cache file holds, and pruning it to a size.

``llverify cache [--cache PATH] [--prune] [--max-size SIZE]``

Without ``--prune`` it prints the file's rows (per table), the bytes they store, the file's size and the
bound in force (:mod:`llverify.executor.evict`).  ``--prune`` deletes the least recently used rows until
at most the bound (``--max-size``, else ``$LLVERIFY_CACHE_MAX_SIZE``, else 256 MiB) is stored;
``--prune --max-size 0`` empties the cache.  Runs that write to the cache keep it under the bound on
their own; this command is for doing it now, or to a smaller size.  Exit 0, or 2 for a bad option.
"""

from __future__ import annotations

import os
import sqlite3
import sys

import click

__all__ = ["cache"]

EXIT_USAGE = 2


@click.command("cache")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
              help="Verdict cache file (default: $LLVERIFY_CACHE or ~/.cache/llverify/verdicts.sqlite).")
@click.option("--prune", is_flag=True, help="Evict the least recently used rows down to the size bound.")
@click.option("--max-size", "max_size", default=None,
              help="The bound for --prune, e.g. 256M or 2G (default: $LLVERIFY_CACHE_MAX_SIZE or 256M).")
def cache(cache_path: str | None, prune: bool, max_size: str | None) -> None:
    """Show the verdict cache file, or prune it to a size (least recently used rows first)."""
    from llverify.executor.evict import DATA_TABLES, SizeError, max_bytes, parse_size
    from llverify.executor.evict import prune as prune_rows
    from llverify.executor.evict import total_bytes
    from llverify.executor.store import default_cache_path, open_db

    path = str(cache_path or default_cache_path())
    try:
        limit = parse_size(max_size) if max_size is not None else max_bytes()
    except SizeError as exc:
        click.echo(f"<command line>:1:1: error: --max-size: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    if not os.path.exists(path):
        click.echo(f"{path}: no cache file")
        return
    try:
        conn, rebuilt = open_db(path)
        try:
            if rebuilt:
                click.echo(f"{path}: was not a cache of this version; set aside and started empty")
            if prune:
                res = prune_rows(conn, limit, target=1.0)
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # let the file shrink now
                click.echo(f"{path}: pruned {res.deleted} rows, {_mib(res.bytes_before)} -> {_mib(res.bytes_after)} "
                           f"stored (bound {_mib(limit)})")
            rows = {t: int(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in DATA_TABLES}
            stored = total_bytes(conn)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        click.echo(f"{path}:1:1: error: cannot use the cache file: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    size = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
    click.echo(f"{path}: {', '.join(f'{n} {t}' for t, n in rows.items())}; {_mib(stored)} stored, file "
               f"{_mib(size)}; bound {_mib(limit)}")


def _mib(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB"
