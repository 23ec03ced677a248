"""``llverify lowered TTGIR LLIR``: prove a kernel's lowered shared-memory addresses against its TTGIR.

The shared-memory size comes from ``--shared BYTES`` or from Triton's metadata JSON beside the LLVM IR
(``<kernel>.json`` in a Triton cache directory, key ``shared``).  Exit codes as ``llverify check``.
"""

from __future__ import annotations

import json
import os
import sys

import click

__all__ = ["lowered"]


@click.command("lowered")
@click.argument("ttgir_path", type=click.Path(dir_okay=False))
@click.argument("llir_path", type=click.Path(dir_okay=False))
@click.option("--shared", "shared_bytes", type=click.IntRange(min=0, max=1 << 30), default=None,
              help="Bytes of shared memory the kernel allocates (default: Triton's metadata beside the IR).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--allow-unknown", is_flag=True, help="Exit 0 when only unknowns remain.")
def lowered(ttgir_path: str, llir_path: str, shared_bytes: int | None, fmt: str, allow_unknown: bool) -> None:
    """Prove every shared-memory access of LLIR_PATH in bounds, with the wavefronts its layouts predict."""
    from llverify.lowered.llir import LlirError, parse_llir
    from llverify.lowered.validate import summarize, validate
    from llverify.ttgir.loader import read_text
    from llverify.errors import TtgirError
    from llverify.ttgir.reader import parse_module

    try:
        module = parse_module(read_text(ttgir_path), ttgir_path)
        llir = parse_llir(read_text(llir_path), llir_path)
    except (TtgirError, LlirError) as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    if shared_bytes is None:
        meta = os.path.splitext(llir_path)[0] + ".json"
        try:
            with open(meta, encoding="utf-8") as fh:
                shared_bytes = int(json.load(fh).get("shared") or 0)
        except (OSError, ValueError, TypeError, AttributeError):
            click.echo(f"{llir_path}:1:1: error: give --shared BYTES (no Triton metadata {meta} with 'shared')",
                       err=True)
            sys.exit(2)
    try:
        findings = validate(module, llir, shared_bytes)
    except LlirError as exc:  # not this TTGIR's lowering
        click.echo(str(exc), err=True)
        sys.exit(2)
    counts = summarize(findings)
    if fmt == "json":
        click.echo(json.dumps({"results": [f.to_json() for f in findings], "summary": counts}, indent=2))
    else:
        for f in findings:
            v = f.finding.verdict
            if v.status != "proved":
                loc = f.finding.location
                kind = "warning" if v.status == "unknown" else "error"
                click.echo(f"{loc.file}:{loc.line}:{loc.col}: {kind}: {v.property}: {v.message} "
                           f"[{f.finding.op}; {f.lowered.file}:{f.lowered.line}]")
                if v.counterexample is not None:
                    click.echo(f"    counterexample: {dict(v.counterexample.inputs)} {dict(v.counterexample.sides)}")
        click.echo(f"{counts['proved']} proved, {counts['refuted']} refuted, {counts['unknown']} unknown, "
                   f"{counts['error']} errors ({len(findings)} obligations on shared-memory accesses)")
    if counts["refuted"]:
        sys.exit(1)
    if counts["error"]:
        sys.exit(2)
    if counts["unknown"] and not allow_unknown:
        sys.exit(3)
