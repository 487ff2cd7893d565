#pragma once
// --block-size, --near-nullspace and --coordinates, which amg_solve and
// compare_ordering share: what a system of PDEs tells the setup.
#include <algorithm>
#include <cstdint>
#include <string>

#include "binamg/amg/near_nullspace.hpp"
#include "binamg/core/error.hpp"
#include "binamg/problems/elasticity.hpp"
#include "binamg/problems/model_problem.hpp"
#include "binamg/sparse/matrix_market.hpp"
#include "examples/cli.hpp"

namespace binamg::cli {

struct NearNullspaceOptions {
  std::string vectors, coordinates;  // files
  index_t block_size = 0;            // 0: not given

  static NearNullspaceOptions read(const Arguments& arguments) {
    NearNullspaceOptions options;
    if (auto v = arguments.get("--near-nullspace")) options.vectors = *v;
    if (auto v = arguments.get("--coordinates")) options.coordinates = *v;
    if (auto v = arguments.get("--block-size")) {
      options.block_size = parse_number<index_t>("--block-size", *v);
      require(options.block_size >= 1 && options.block_size <= max_near_nullspace_vectors,
              "--block-size must lie in [1, " + std::to_string(max_near_nullspace_vectors) + "]");
    }
    require(options.vectors.empty() || options.coordinates.empty(),
            "give --near-nullspace or --coordinates, not both (coordinates build the "
            "rigid-body modes)");
    return options;
  }

  /// The near-nullspace these options ask for, for a matrix of `rows` rows
  /// (checked here, with the file named in each message); without any of the
  /// options, a model problem's own (elasticity's modes) or none for a file.
  NearNullspace of(const std::string& problem, index_t size, bool from_file, index_t rows) const {
    const bool asked = block_size > 0 || !vectors.empty() || !coordinates.empty();
    if (!asked) return from_file ? NearNullspace{} : model_near_nullspace(problem, size);
    NearNullspace nullspace;
    nullspace.block_size = std::max<index_t>(block_size, 1);
    std::string what = "--block-size";
    if (!vectors.empty()) {
      what = "--near-nullspace " + vectors;
      const MatrixMarketInfo info = read_matrix_market_info(vectors);
      require(info.rows == rows, what + " has " + std::to_string(info.rows) +
                                     " rows but the matrix has " + std::to_string(rows));
      require(info.cols >= 1 && info.cols <= max_near_nullspace_vectors,
              what + " has " + std::to_string(info.cols) + " columns; give 1 to " +
                  std::to_string(max_near_nullspace_vectors) + " vectors");
      DenseBlock<double> B = read_matrix_market_block<double>(vectors);
      nullspace.count = B.cols;
      nullspace.vectors = std::move(B.values);
    } else if (!coordinates.empty()) {
      what = "--coordinates " + coordinates;
      const MatrixMarketInfo info = read_matrix_market_info(coordinates);
      require(info.cols == 2 || info.cols == 3,
              what + " has " + std::to_string(info.cols) +
                  " columns; give 2 (2D) or 3 (3D) coordinates per node");
      const index_t d = static_cast<index_t>(info.cols);
      require(block_size == 0 || block_size == d,
              what + " holds " + std::to_string(d) + "D points, so the block size is " +
                  std::to_string(d) + ", not --block-size " + std::to_string(block_size));
      require(std::int64_t(info.rows) * d == rows,
              what + " has " + std::to_string(info.rows) + " nodes of " + std::to_string(d) +
                  " dofs, but the matrix has " + std::to_string(rows) + " rows");
      const DenseBlock<double> xyz = read_matrix_market_block<double>(coordinates);
      nullspace.block_size = d;
      nullspace.count = d == 2 ? 3 : 6;
      nullspace.vectors = rigid_body_modes(int(d), xyz.values);
    }
    validate_near_nullspace(nullspace, rows, what);
    return nullspace;
  }
};

}  // namespace binamg::cli
