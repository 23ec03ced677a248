"""NVIDIA's shared-memory bank rule written out from its definition, for tests that check llverify's bank counts
against concrete addresses (not a copy of ``llverify.codegen``): 32 banks of 4 bytes; a vector of ``width`` bytes
covers ``width / 4`` words; a warp's lanes are served in phases of ``wavefront_bytes / width`` consecutive lanes
(all 32 for vectors of 4 bytes or fewer); a phase costs the largest number of distinct words one bank must serve
(lanes touching the same word share it)."""

from __future__ import annotations

from collections import defaultdict


def wavefronts_by_definition(addrs: list[int], width: int, lanes_per_phase: int | None = None,
                             wavefront_bytes: int = 128) -> int:
    """Wavefronts of one warp-level instruction whose lane ``l`` accesses ``width`` bytes at byte ``addrs[l]``."""
    words_per_lane = max(1, width // 4)
    per_phase = lanes_per_phase or max(1, min(len(addrs), wavefront_bytes // max(width, 4)))
    total = 0
    for start in range(0, len(addrs), per_phase):
        words_of_bank: dict[int, set[int]] = defaultdict(set)
        for lane in range(start, min(start + per_phase, len(addrs))):
            for k in range(words_per_lane):
                word = addrs[lane] // 4 + k
                words_of_bank[word % 32].add(word)
        total += max(len(w) for w in words_of_bank.values())
    return total
