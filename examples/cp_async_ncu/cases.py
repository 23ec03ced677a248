"""The cases of the cp.async shared-side measurement (``k.cu``, ``run.sh``) and their merge with the model.

Each case is one warp writing shared memory once, lane ``l`` at byte offset ``addrs[l]`` with a vector of
``width`` bytes: the write pattern of one cp.async instruction of a ``ttg.async_copy_global_to_local`` (Triton's
swizzled and unswizzled tiles) or a random aligned pattern.  The model is llverify's NVIDIA bank rule
(:func:`llverify.codegen.bank_sim.simulate_addresses`: 4-byte banks, 32 banks, ``32 / (width / 4)`` consecutive
lanes per phase, distinct words of one bank served one per wavefront).

    python3 examples/cp_async_ncu/cases.py lines            # input lines for run.sh (all three modes)
    python3 examples/cp_async_ncu/cases.py merge LOG... OUT DEVICE  # run.sh's outputs + the model -> OUT
"""

from __future__ import annotations

import json
import random
import re
import sys

import numpy as np

from llverify.codegen.bank_model import NVIDIA
from llverify.codegen.bank_sim import simulate_addresses


def _tile(width: int, row_bytes: int, lanes_per_row: int, swizzle: bool) -> list[int]:
    """Lane ``l`` of a blocked layout holding ``width`` bytes per thread along a row of ``row_bytes`` bytes,
    ``lanes_per_row`` lanes per row: row ``l // lanes_per_row``, chunk ``l % lanes_per_row``; with ``swizzle``
    the chunk is XOR-ed with the row (mod the chunks per 128 bytes), as a ``#ttg.swizzled_shared`` tile with
    ``vec`` = one chunk, ``perPhase = 1``, ``maxPhase`` = chunks per 128 bytes."""
    per128 = max(1, 128 // width)
    out = []
    for lane in range(32):
        row, chunk = divmod(lane, lanes_per_row)
        if swizzle:
            chunk = (chunk % per128 ^ row % per128) + chunk // per128 * per128
        out.append(row * row_bytes + chunk * width)
    return out


def cases() -> list[dict]:
    rng = random.Random(20261128)
    out = []
    for w in (4, 8, 16):
        out.append({"case": f"contiguous_w{w}", "width": w, "addrs": [w * l for l in range(32)]})
        out.append({"case": f"stride128_w{w}", "width": w, "addrs": [128 * l % 8192 for l in range(32)]})
        out.append({"case": f"pairs_w{w}", "width": w, "addrs": [w * (l // 2) for l in range(32)]})
        for i in range(4):
            out.append({"case": f"random{i}_w{w}", "width": w,
                        "addrs": [w * rng.randrange(8192 // w) for _ in range(32)]})
    for w, row, per_row in ((16, 128, 8), (16, 128, 4), (16, 256, 4), (8, 128, 8), (8, 256, 16), (4, 256, 16)):
        for swz in (False, True):
            out.append({"case": f"tile_w{w}_row{row}_lanes{per_row}_{'swizzled' if swz else 'plain'}", "width": w,
                        "addrs": _tile(w, row, per_row, swz)})
    for c in out:
        c["model_wavefronts"] = int(simulate_addresses(np.array([c["addrs"]], dtype=np.int64), c["width"], NVIDIA)[0])
    return out


#: the counters kept: LDGSTS's shared-side wavefronts and bank conflicts; st.shared's wavefronts
LDGSTS_WAVES = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
LDGSTS_CONFLICTS = "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"
ST_WAVES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"


def read_log(log: str) -> dict[tuple[str, int], dict[str, str]]:
    """run.sh's output: per (case, mode) every counter Nsight Compute printed (its CSV rows end with
    ``"metric","unit","value"``)."""
    measured: dict[tuple[str, int], dict[str, str]] = {}
    key = None
    for line in open(log):
        m = re.match(r"= (\S+) mode (\d) width (\d+)", line)
        if m:
            key = (m.group(1), int(m.group(2)))
            measured[key] = {}
            continue
        fields = line.strip().rstrip('"').split('","')
        if key is not None and len(fields) >= 3:
            measured[key][fields[-3]] = fields[-1]
    return measured


def merge(logs: list[str]) -> list[dict]:
    """The cases with the model's count and the measured ones (None where a counter is missing); a later log's
    counters of a (case, mode) replace an earlier one's."""
    measured: dict[tuple[str, int], dict[str, str]] = {}
    for log in logs:
        measured.update(read_log(log))

    def count(key: tuple[str, int], metric: str) -> int | None:
        v = measured.get(key, {}).get(metric)
        return int(float(v.replace(",", ""))) if v not in (None, "") else None

    return [{**c, "measured_st_shared_wavefronts": count((c["case"], 1), ST_WAVES),
             "measured_cp_async_wavefronts": count((c["case"], 0), LDGSTS_WAVES),
             "measured_cp_async_packed_source_wavefronts": count((c["case"], 2), LDGSTS_WAVES),
             "measured_cp_async_bank_conflicts": count((c["case"], 0), LDGSTS_CONFLICTS)} for c in cases()]


def main() -> None:
    if sys.argv[1] == "lines":
        for c in cases():
            for mode in (0, 1, 2):
                print(c["case"], mode, c["width"], *c["addrs"])
    elif sys.argv[1] == "merge":
        *logs, out, device = sys.argv[2:]
        doc = {"device": device, "kernel": "examples/cp_async_ncu/k.cu: one warp, "
               "one cp.async (mode 0) or st.shared (mode 1) of `width` bytes per lane at shared byte offset addrs[l]; "
               "lane l's global source is 16*l bytes into a buffer (mode 2: width*l, packed)",
               "counters": {"cp_async": LDGSTS_WAVES, "st_shared": ST_WAVES}, "cases": merge(logs)}
        with open(out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
