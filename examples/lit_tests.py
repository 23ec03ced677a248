"""Triton's lit tests as gate inputs: split them into modules, and compare every layout llverify reads with Triton's.

Triton's ``test/**/*.mlir`` files are hand-written TTGIR (and LLVM-dialect) modules, several per file separated by
``// -----`` (``-split-input-file``).  They exercise layouts and ops no compiled kernel of examples/kernels reaches
(hand-picked linear layouts, padded and partitioned shared memory, tensor memory, clusters), so they are the widest
differential test of the reader there is.  This script

1. ``split SRC OUT``: writes each module of each lit file under ``SRC`` to ``OUT`` (the file's ``// RUN:`` lines
   kept on every part, so ``llverify ttgir`` can take its target from them);
2. ``compare OUT``: builds every tensor / memdesc layout of every module llverify reads, and asks Triton 3.9
   (``to_linear_layout`` through Gluon's bridge, in a child process: tests/oracle_triton.py) for the same type text at
   the same warp, lane and CTA counts; prints how many are equal, different (each listed in
   ``OUT/../lit_differences.json``) or not expressible by the oracle.

Then gate them: ``python -m llverify ttgir --no-cache --format json -j 2 OUT > lit.json``.

    python3 examples/lit_tests.py split /path/to/triton OUT
    python3 examples/lit_tests.py compare OUT

A Triton checkout too large to fetch whole: any fork's ``test/`` and ``third_party/*/test/`` folders do.
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: lit's ``-split-input-file`` separator
SEPARATOR = re.compile(r"^// -----.*$", re.M)


def split(src: Path, out: Path) -> int:
    """Each module of each ``*.mlir`` under ``src`` written to ``out`` as ``<path with / as __>__<k>.mlir``; the
    number written."""
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in sorted(src.rglob("*.mlir")):
        text = path.read_text(errors="replace")
        run = "".join(line + "\n" for line in text.splitlines() if line.startswith("// RUN"))
        parts = SEPARATOR.split(text) if "split-input-file" in text else [text]
        stem = str(path.relative_to(src)).replace("/", "__")[:-len(".mlir")]
        for k, part in enumerate(parts):
            if "module" not in part and "tt.func" not in part:
                continue
            (out / f"{stem}__{k}.mlir").write_text((run if k else "") + part)
            written += 1
    return written


def compare(folder: Path) -> collections.Counter:
    """Every layout llverify builds from the modules in ``folder`` against Triton's (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))
    from oracle_triton import _expand_aliases, run_type_cases

    from llverify.errors import TtgirError
    from llverify.ttgir.layouts import BuiltLayout, layout_of
    from llverify.ttgir.reader import parse_modules

    built: dict[tuple[str, int, int, int], object] = {}
    where: dict[tuple[str, int, int, int], tuple[str, int]] = {}
    for path in sorted(folder.glob("*.mlir")):
        text = path.read_text()
        aliases = {m.group(1): m.group(2) for m in re.finditer(r"^#([\w$]+) = (#.*)$", text, re.M)
                   if not m.group(2).startswith("loc")}
        try:
            modules = parse_modules(text, str(path))
        except TtgirError:
            continue
        for mod in modules:
            if isinstance(mod, TtgirError):
                continue
            for _, op, warps in mod.walk():
                for r in op.results:
                    if r.type.kind not in ("tensor", "memdesc") or not r.type.has_layout:
                        continue
                    key = (_expand_aliases(r.type.text, aliases), warps, mod.threads_per_warp, mod.num_ctas)
                    if key not in built:
                        b = layout_of(r.type)
                        if isinstance(b, BuiltLayout):
                            built[key], where[key] = b, (path.name, op.location.line)
    keys = list(built)
    answers = run_type_cases([{"type": k[0], "num_warps": k[1], "threads": k[2], "num_ctas": k[3],
                               "shape": list(built[k].shape)} for k in keys])  # type: ignore[attr-defined]
    counts: collections.Counter = collections.Counter()
    differences = []
    for k, a in zip(keys, answers):
        if not a["ok"]:
            counts["not expressible by the oracle: " + a["error"].split(":")[0]] += 1
        elif "padded" in a:
            counts["padded (no linear layout to compare)"] += 1
        else:
            mine = {d: [list(b) for b in bs] for d, bs in built[k].layout.bases.items()}  # type: ignore[attr-defined]
            if mine == a["bases"]:
                counts["equal"] += 1
            else:
                counts["different"] += 1
                differences.append({"type": k[0], "warps": k[1], "where": where[k], "llverify": mine,
                                    "triton": a["bases"]})
    (folder.parent / "lit_differences.json").write_text(json.dumps(differences, indent=1) + "\n")
    return counts


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "split":
        print(split(Path(sys.argv[2]), Path(sys.argv[3])), "modules written")
    elif len(sys.argv) == 3 and sys.argv[1] == "compare":
        for what, n in compare(Path(sys.argv[2])).most_common():
            print(f"{n:6}  {what}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
