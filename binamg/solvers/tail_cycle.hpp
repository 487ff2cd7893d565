#pragma once
// The GPU V-cycle's smallest levels in one kernel launch (internal to the
// solvers). A launch per step costs 5-9 µs on the coarse levels however few
// rows they hold (the step's chain of dependent loads, and the launch), and
// on 2D 5-pt 512² those levels took 80 of a PCG iteration's 190 µs (Nsight
// Compute, H200). The tail runs the same steps in one launch of a cluster of
// blocks, a cluster barrier between steps: each level's smoothing, residual,
// restriction and correction, and the coarse solve, for one right-hand side.
// Every step sums a row as its own kernel does (row_stream.cuh's lanes and
// order; the coarse solve's warp per row), so the cycle keeps its bits.
#include <cstddef>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/core/config.hpp"

#if BINAMG_WITH_CUDA
namespace binamg::tail_cycle {

/// The first level the tail takes for h: the smallest l >= 1 from which every
/// level's A, P and R hold at most h.parameters.tail_launch_entries entries
/// (and sum their rows without the long-row or merge-based kernels), the
/// coarsest matrix's inverse too, in at most the tail's number of steps.
/// h.levels.size() + 1 (past every level) where no level qualifies, or the
/// parameter is 0.
template <typename T>
std::size_t first_level(const DeviceHierarchy<T>& h);

/// The cycle from a zero guess on levels `level` (first_level(h)) and below:
/// x = the cycle's correction for right-hand side b, both of level `level`'s
/// size, with h.workspace's buffers as the launch-per-step cycle uses them
/// (the same swaps of a level's iterate and scratch), on h.stream.
template <typename T>
void run(const DeviceHierarchy<T>& h, std::size_t level, const DeviceBuffer<T>& b,
         DeviceBuffer<T>& x);

}  // namespace binamg::tail_cycle
#endif  // BINAMG_WITH_CUDA
