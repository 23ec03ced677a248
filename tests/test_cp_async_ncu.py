"""Measured on an H200 (``examples/cp_async_ncu``, ``tests/data/cp_async_ncu_h200.json``): one warp writes shared
memory once, with st.shared or with cp.async (LDGSTS), at 33 patterns of per-lane byte offsets (4, 8 and 16 bytes
per lane: contiguous, 128-byte strides, duplicated pairs, random, swizzled and plain tiles).

What the data establishes:
* st.shared: the NVIDIA bank model (``bank_sim.simulate_addresses``) gives the measured wavefronts on every
  pattern, and so does the rule written out here from its definition;
* cp.async: the same model is *not* a model of LDGSTS's shared-side writes, and those depend on where the data
  comes from in global memory: the same shared offsets cost more when lane ``l`` reads ``16 l`` than when the
  sources are packed (``width * l``).  A TTGIR module does not fix the global addresses (strides are run-time
  values), which is why ``llverify ttgir`` does not claim cp.async wavefronts.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from llverify.codegen.bank_model import NVIDIA
from llverify.codegen.bank_sim import simulate_addresses

from bank_rules import wavefronts_by_definition  # tests/bank_rules.py (tests/ is on sys.path: conftest.py)

DATA = json.loads((Path(__file__).parent / "data" / "cp_async_ncu_h200.json").read_text())
CASES = DATA["cases"]


def test_the_data_covers_every_width_and_a_range_of_conflicts() -> None:
    assert len(CASES) == 33 and {c["width"] for c in CASES} == {4, 8, 16}
    assert {c["measured_st_shared_wavefronts"] for c in CASES} >= {1, 2, 4, 8, 32}


def test_the_st_shared_model_equals_the_measured_wavefronts_on_every_pattern() -> None:
    for c in CASES:
        model = int(simulate_addresses(np.array([c["addrs"]], dtype=np.int64), c["width"], NVIDIA)[0])
        assert model == wavefronts_by_definition(c["addrs"], c["width"]) == c["measured_st_shared_wavefronts"], c["case"]


def test_a_model_with_other_phases_disagrees_with_the_measurement() -> None:
    """Mutants of the rule: all 32 lanes in one phase at every width, or 64-byte wavefronts."""
    whole_warp = [c["case"] for c in CASES
                  if wavefronts_by_definition(c["addrs"], c["width"], 32) != c["measured_st_shared_wavefronts"]]
    half_lines = [c["case"] for c in CASES
                  if wavefronts_by_definition(c["addrs"], c["width"], wavefront_bytes=64)
                  != c["measured_st_shared_wavefronts"]]
    assert whole_warp and half_lines


def test_cp_async_is_not_served_as_st_shared() -> None:
    """LDGSTS's shared-side wavefronts differ from st.shared's at the same addresses on most patterns (22 of 33),
    never fewer: modelling cp.async as st.shared would understate its cost."""
    differ = [c for c in CASES if c["measured_cp_async_wavefronts"] != c["measured_st_shared_wavefronts"]]
    assert len(differ) >= len(CASES) // 2
    assert all(c["measured_cp_async_wavefronts"] >= c["measured_st_shared_wavefronts"] for c in CASES)
    # one of them: 32 lanes x 4 bytes, contiguous: one st.shared wavefront, four LDGSTS ones
    contiguous = next(c for c in CASES if c["case"] == "contiguous_w4")
    assert (contiguous["measured_st_shared_wavefronts"], contiguous["measured_cp_async_wavefronts"]) == (1, 4)


def test_cp_async_wavefronts_depend_on_the_global_sources() -> None:
    """The same shared offsets, two global patterns: 16-byte-strided sources cost more than packed ones on several
    patterns (e.g. 32 lanes x 4 bytes, contiguous: 4 wavefronts against 1), so no function of the shared side
    alone gives LDGSTS's count."""
    depends = [c["case"] for c in CASES
               if c["measured_cp_async_wavefronts"] != c["measured_cp_async_packed_source_wavefronts"]]
    assert len(depends) >= 10
    contiguous = next(c for c in CASES if c["case"] == "contiguous_w4")
    assert (contiguous["measured_cp_async_wavefronts"], contiguous["measured_cp_async_packed_source_wavefronts"]) \
        == (4, 1)
    # where nothing else differs, 16-byte copies of random slots still cost more than st.shared: the bank rule of
    # st.shared is not LDGSTS's even with packed sources
    assert any(c["measured_cp_async_packed_source_wavefronts"] > c["measured_st_shared_wavefronts"]
               for c in CASES if c["width"] == 16 and c["case"].startswith("random"))
