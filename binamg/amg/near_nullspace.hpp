#pragma once
// Near-nullspace vectors of a system of PDEs (for elasticity the rigid-body
// modes) and the nodes that group a system's unknowns. Smoothed aggregation
// coarsens nodes, not unknowns, and its tentative prolongator interpolates
// these vectors exactly on every aggregate (amg/tentative_qr.hpp).
#include <string>
#include <vector>

#include "binamg/core/types.hpp"

namespace binamg {

/// The most near-nullspace vectors a hierarchy takes (3D elasticity has 6;
/// shells 6; each coarse node carries as many unknowns).
inline constexpr index_t max_near_nullspace_vectors = 16;

/// B, n × k, and the unknowns per node of the finest level. Unknowns are
/// node-major: node p's block_size unknowns are rows block_size·p … +block_size−1.
/// No vectors (count 0) with block_size b > 1 means b vectors, one per
/// component, each 1 on that component's unknowns and 0 elsewhere (PyAMG's
/// default for block matrices); with block_size 1, the constant vector, the
/// scalar path.
struct NearNullspace {
  index_t block_size = 1;
  index_t count = 0;            // k
  std::vector<double> vectors;  // row-major: entry (i, j) at vectors[i·count + j]
};

/// True when the hierarchy must coarsen nodes with a QR-built tentative
/// prolongator: block_size > 1, or vectors other than one constant vector.
/// (One constant vector is the scalar path: the same hierarchy bit for bit.)
bool is_system(const NearNullspace& nullspace);

/// Throws InvalidInput naming the problem unless `nullspace` fits a matrix of
/// `rows` rows: a block size from 1 to max_near_nullspace_vectors that divides
/// rows, count in [0, max_near_nullspace_vectors] and at most rows, rows·count
/// values, all finite, and vectors that are linearly independent (the first one
/// that is, to 1e-7 relative, a combination of the ones before it is named).
/// `what` prefixes the message (e.g. "--near-nullspace FILE").
void validate_near_nullspace(const NearNullspace& nullspace, index_t rows, const std::string& what);

/// What a level's tentative prolongator starts from: its near-nullspace
/// vectors (row-major rows × k) and its nodes (node_ptr: node p's unknowns are
/// rows node_ptr[p] … node_ptr[p+1]−1). On the finest level, the parameters'
/// vectors and block size; on a coarse level, the R factors of the QR of the
/// level above and its aggregates as nodes.
struct Candidates {
  index_t k = 0;
  std::vector<double> vectors;
  std::vector<index_t> node_ptr;
  index_t nodes() const { return static_cast<index_t>(node_ptr.size()) - 1; }
};

/// The finest level's candidates for a matrix of `rows` rows (validated as above).
Candidates finest_candidates(const NearNullspace& nullspace, index_t rows);

}  // namespace binamg
