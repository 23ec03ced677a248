"""Child process of ``tests/test_amd_rotating_oracle.py``: lowers TTGIR modules with Triton's AMD backend.

Reads a JSON list of ``{"ttgir": text, "arch": "gfx942"}`` on stdin; for each prints one JSON line
``{"ok": true, "llir": text, "shared": bytes}`` or ``{"ok": false, "error": message}``.  The pass list is the
AMD backend's ``make_llir`` (Triton 3.9, ``triton/backends/amd/compiler.py``) without the steps that need a
device toolchain; ``add_di_scope`` keeps each LLVM instruction's TTGIR line (as ``USE_IR_LOC=ttgir`` does),
which ``llverify lowered`` uses to tie instructions to ops.  A separate process because Triton aborts on
some inputs.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile


def lower(text: str, arch: str, path: str) -> dict:
    from triton._C.libtriton import amd, ir, llvm, passes  # noqa: PLC0415 - only in the child

    with open(path, "w") as fh:
        fh.write(text)
    ctx = ir.context()
    ir.load_dialects(ctx)
    amd.load_dialects(ctx)
    mod = ir.parse_mlir_module(path, ctx)
    pm = ir.pass_manager(ctx)
    passes.convert.add_scf_to_cf(pm)
    passes.convert.add_index_to_llvmir(pm)
    amd.passes.ttgpuir.add_allocate_shared_memory(pm, arch)
    passes.ttgpuir.add_allocate_global_scratch_memory(pm)
    amd.passes.ttgpuir.add_to_llvmir(pm, arch, True)
    passes.common.add_canonicalizer(pm)
    passes.common.add_cse(pm)
    passes.convert.add_cf_to_llvmir(pm)
    passes.convert.add_arith_to_llvmir(pm)
    passes.common.add_canonicalizer(pm)
    passes.common.add_cse(pm)
    passes.llvmir.add_di_scope(pm)
    amd.passes.ttgpuir.add_builtin_func_to_llvmir(pm, arch, True)
    passes.convert.add_reconcile_unrealized_casts(pm)
    pm.run(mod, "llverify-oracle")
    shared = mod.get_int_attr("ttg.shared")
    llvm.init_targets()
    return {"ok": True, "llir": str(llvm.to_module(mod, llvm.context())), "shared": int(shared or 0)}


def main() -> None:
    items = json.loads(sys.stdin.read())
    path = os.path.join(tempfile.mkdtemp(prefix="llverify-rot-"), "m.ttgir")
    for it in items:
        try:
            res = lower(it["ttgir"], it.get("arch", "gfx942"), path)
        except Exception as exc:  # noqa: BLE001 - the message is the answer
            res = {"ok": False, "error": f"{type(exc).__name__}: {exc}".strip()}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
