#include "binamg/problems/model_problem.hpp"

#include "binamg/core/error.hpp"
#include "binamg/problems/elasticity.hpp"
#include "binamg/problems/poisson.hpp"

namespace binamg {
namespace {

// 2 or 3 for elasticity2d and elasticity3d, 0 otherwise.
int elasticity_dimension(const std::string& name) {
  if (name == "elasticity2d") return 2;
  if (name == "elasticity3d") return 3;
  return 0;
}

}  // namespace

void validate_problem_name(const std::string& name) {
  if (elasticity_dimension(name) > 0) return;
  try {
    parse_stencil(name);
  } catch (const InvalidInput&) {
    throw InvalidInput("unknown problem '" + name +
                       "' (expected poisson2d-5, poisson2d-9, poisson3d-7, poisson3d-27, "
                       "elasticity2d or elasticity3d)");
  }
}

ProblemSize model_problem_size(const std::string& name, index_t n) {
  validate_problem_name(name);
  if (const int d = elasticity_dimension(name)) {
    const ElasticitySize size = elasticity_size(d, n);
    return {size.rows, size.nnz};
  }
  const PoissonSize size = poisson_size(parse_stencil(name), n);
  return {size.rows, size.nnz};
}

template <typename T>
CsrMatrix<T> model_problem(const std::string& name, index_t n) {
  validate_problem_name(name);
  if (const int d = elasticity_dimension(name)) return elasticity<T>(d, n);
  return poisson<T>(parse_stencil(name), n);
}

NearNullspace model_near_nullspace(const std::string& name, index_t n) {
  validate_problem_name(name);
  NearNullspace nullspace;
  if (const int d = elasticity_dimension(name)) {
    nullspace.block_size = d;
    nullspace.count = d == 2 ? 3 : 6;
    nullspace.vectors = rigid_body_modes(d, n);
  }
  return nullspace;
}

template CsrMatrix<float> model_problem<float>(const std::string&, index_t);
template CsrMatrix<double> model_problem<double>(const std::string&, index_t);

}  // namespace binamg
