#pragma once
// binamg: smoothed-aggregation algebraic multigrid on the CPU and the GPU.
// The public headers, all of them; each can also be included on its own.
// binamg/core/config.hpp says whether the GPU code was built (BINAMG_WITH_CUDA).
//
//   auto A = binamg::poisson<double>(binamg::Stencil::poisson3d_7, 64);
//   auto hierarchy = binamg::build_hierarchy(A);
//   std::vector<double> b(A.rows, 1.0), x(A.rows, 0.0);
//   binamg::SolveResult result = binamg::pcg(hierarchy, b, x);

#include "binamg/core/config.hpp"
#include "binamg/core/device.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/memory.hpp"
#include "binamg/core/types.hpp"
#include "binamg/core/version.hpp"
#include "binamg/sparse/csr.hpp"
#include "binamg/sparse/matrix_market.hpp"
#include "binamg/sparse/symmetry.hpp"
#include "binamg/sparse/transpose.hpp"
#include "binamg/vector/block_vector_ops.hpp"
#include "binamg/vector/vector_ops.hpp"
#include "binamg/spmv/spmm.hpp"
#include "binamg/spmv/spmm_plan.hpp"
#include "binamg/spmv/spmv.hpp"
#include "binamg/spgemm/spgemm.hpp"
#include "binamg/amg/galerkin.hpp"
#include "binamg/amg/hierarchy.hpp"
#include "binamg/amg/near_nullspace.hpp"
#include "binamg/amg/parameters.hpp"
#include "binamg/solvers/cycle_factors.hpp"
#include "binamg/solvers/pcg.hpp"
#include "binamg/solvers/solve_result.hpp"
#include "binamg/solvers/vcycle.hpp"
#include "binamg/problems/elasticity.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/problems/poisson.hpp"
#include "binamg/problems/scaled.hpp"
#if BINAMG_WITH_CUDA  // the GPU's own types (a CPU-only build has none)
#include "binamg/core/device_buffer.hpp"
#include "binamg/sparse/device_csr.hpp"
#endif
