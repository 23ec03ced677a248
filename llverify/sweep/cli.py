"""``llverify sweep FAMILY``: prove a paper claim over a whole parameter family.

Exit codes as ``llverify check``: 0 every instance proved (or skipped as not a
member of the family), 1 an instance refuted, 2 bad command line, 3 only
unknowns (or errors) stand between the run and success.
"""

from __future__ import annotations

import json
import sys

import click

from llverify.executor.options import executor_options

__all__ = ["sweep"]


@click.command("sweep")
@click.argument("family", required=False)
@click.option("--list", "list_", is_flag=True, help="List the families with their sizes and claims.")
@click.option("--start", type=click.IntRange(min=0), default=0, show_default=True, help="First instance.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Decide at most this many instances.")
@click.option("--chunk", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Instances per work unit (the unit of caching and resumption).")
@executor_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="No progress line.")
def sweep(family: str | None, list_: bool, start: int, limit: int | None, chunk: int, jobs: int, executor: str,
          ray_address: str | None, cache_path: str | None, no_cache: bool, fmt: str, quiet: bool) -> None:
    """Prove a paper claim over every instance of FAMILY (see --list)."""
    # the families build layouts and load the prover: paid only when this command runs
    from llverify.executor.cache import VerdictCache, default_cache_path
    from llverify.sweep.families import FAMILIES
    from llverify.sweep.run import run_sweep

    if list_ or family is None:
        for fam in FAMILIES.values():
            click.echo(f"{fam.name:20} {fam.size():>12,} instances  {fam.claim} ({fam.paper})")
        if family is None and not list_:
            sys.exit(2)
        return
    if family not in FAMILIES:
        click.echo(f"error: unknown family {family!r} (expected one of: {', '.join(FAMILIES)})", err=True)
        sys.exit(2)
    cache = None if no_cache else VerdictCache(cache_path or default_cache_path())
    stop = None if limit is None else start + limit

    def progress(done: int, total: int) -> None:
        if not quiet and sys.stderr.isatty():
            click.echo(f"\r{family}: {done}/{total} chunks", nl=False, err=True)

    try:
        summary = run_sweep(family, start=start, stop=stop, chunk=chunk, jobs=jobs, executor=executor,
                            ray_address=ray_address, cache=cache, progress=progress)
    except RuntimeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    finally:
        if cache is not None:
            cache.close()
    doc = summary.to_json()
    if fmt == "json":
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(f"{family}: {doc['claim']} ({doc['paper']})")
        click.echo(f"  instances {start}..{summary.stop - 1} of {doc['size']:,}: {doc['proved']:,} proved, "
                   f"{doc['skipped']:,} skipped (not in the family), {doc['refuted']} refuted, "
                   f"{doc['unknown']} unknown, {doc['error']} error; {summary.cached_chunks}/{summary.chunks} "
                   f"chunks from the cache; {doc['seconds']} s ({doc['obligations_per_second']} /s)")
        for f in summary.failures[:20]:
            click.echo(f"  {f['status']}: instance {f['index']} {json.dumps(f['params'])}: {f.get('message', '')}")
    if doc["refuted"]:
        sys.exit(1)
    if doc["unknown"] or doc["error"]:
        sys.exit(3)
