// The Python module binamg._binamg: what python/binamg/__init__.py builds its
// PyAMG-like interface on. Arrays come in as NumPy arrays (C order) and are
// copied once, or as the GPU addresses of CuPy arrays (the *_on_device
// methods of a CUDA build, no host round trip); binamg's InvalidInput becomes ValueError;
// setup and solves run without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binamg/amg/parameters.hpp"
#include "binamg/core/config.hpp"
#include "binamg/core/device.hpp"
#include "binamg/core/error.hpp"
#include "binamg/core/version.hpp"
#include "solver.hpp"
#if BINAMG_WITH_CUDA
#include "gpu_memory.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace binamg::python {
namespace {

template <typename T>
using In = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
template <typename T>
using Out = nb::ndarray<nb::numpy, T>;

// A NumPy array that owns `values`, shaped rows (× k when k > 1).
template <typename T>
Out<T> numpy_of(std::vector<T> values, index_t rows, index_t k) {
  auto* owner = new std::vector<T>(std::move(values));
  nb::capsule free_it(owner, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  if (k == 1) return Out<T>(owner->data(), {std::size_t(rows)}, free_it);
  return Out<T>(owner->data(), {std::size_t(rows), std::size_t(k)}, free_it);
}

template <typename T>
nb::tuple csr_tuple(CsrMatrix<T> M) {
  const index_t rows = M.rows, cols = M.cols, nnz = M.nnz();
  return nb::make_tuple(numpy_of(std::move(M.row_ptr), rows + 1, 1),
                        numpy_of(std::move(M.col_idx), nnz, 1),
                        numpy_of(std::move(M.values), nnz, 1), nb::make_tuple(rows, cols));
}

nb::dict result_dict(const SolveResult& r) {
  nb::dict d;
  d["iterations"] = r.iterations;
  d["converged"] = r.converged;
  d["stalled"] = r.stalled;
  d["relative_residual"] = r.relative_residual;
  d["residual_history"] = r.residual_history;
  d["solve_ms"] = r.solve_ms;
  return d;
}

// A from the arrays of a scipy CSR matrix (checked, copied), and the device.
template <typename T>
CsrMatrix<T> matrix_of(index_t rows, index_t cols, const In<std::int32_t>& indptr,
                       const In<std::int32_t>& indices, const In<T>& data) {
  require(indptr.ndim() == 1 && std::int64_t(indptr.size()) == std::int64_t(rows) + 1,
          "A's indptr must have rows + 1 = " + std::to_string(rows + 1) + " entries");
  require(indices.ndim() == 1 && data.ndim() == 1 && indices.size() == data.size(),
          "A's indices and data must be 1-D arrays of the same length");
  return csr_from<T>(rows, cols, indptr.data(), indices.data(), data.data(),
                     std::int64_t(data.size()));
}

// __init__ of either solver: A's arrays checked and copied, the hierarchy built,
// all without the GIL.
template <typename S, typename T>
void construct(S* self, index_t rows, index_t cols, const In<std::int32_t>& indptr,
               const In<std::int32_t>& indices, const In<T>& data, const AmgParameters& parameters,
               const std::string& device) {
  nb::gil_scoped_release release;
  new (self) S(matrix_of(rows, cols, indptr, indices, data), parameters, choose_device(device));
}

// refresh(...) of either solver: A's new arrays checked and copied, the
// hierarchy refreshed, without the GIL.
template <typename S, typename T>
void refresh_with(S& self, index_t rows, index_t cols, const In<std::int32_t>& indptr,
                  const In<std::int32_t>& indices, const In<T>& data) {
  nb::gil_scoped_release release;
  self.refresh(matrix_of(rows, cols, indptr, indices, data));
}

#if BINAMG_WITH_CUDA
// GPU memory comes in as the address of a CuPy array (__cuda_array_interface__),
// whose dtype, shape and C order python/binamg checked; each address is
// checked to be memory of the current GPU before it is read.
template <typename T>
T* device_address(std::uintptr_t address, const char* what) {
  require_device_memory(reinterpret_cast<const void*>(address), what);
  return reinterpret_cast<T*>(address);
}

// A's arrays in GPU memory, copied and validated there (no host round trip).
template <typename T>
DeviceCsr<T> device_matrix_of(index_t rows, index_t cols, std::uintptr_t indptr,
                              std::uintptr_t indices, std::uintptr_t data, std::int64_t nnz) {
  require(gpu_available(), "A is in GPU memory but no usable CUDA device was found");
  return device_csr_from<T>(rows, cols, reinterpret_cast<const std::int32_t*>(indptr),
                            reinterpret_cast<const std::int32_t*>(indices),
                            reinterpret_cast<const T*>(data), nnz);
}

// on_device(...) of either solver: a new one from A's arrays in GPU memory,
// built without the GIL.
template <typename S, typename T>
S* on_device(index_t rows, index_t cols, std::uintptr_t indptr, std::uintptr_t indices,
             std::uintptr_t data, std::int64_t nnz, const AmgParameters& parameters) {
  nb::gil_scoped_release release;
  return new S(device_matrix_of<T>(rows, cols, indptr, indices, data, nnz), parameters);
}

// refresh_on_device(...) of either solver: A's new arrays in GPU memory.
template <typename S, typename T>
void refresh_on_device_with(S& self, index_t rows, index_t cols, std::uintptr_t indptr,
                            std::uintptr_t indices, std::uintptr_t data, std::int64_t nnz) {
  nb::gil_scoped_release release;
  self.refresh(device_matrix_of<T>(rows, cols, indptr, indices, data, nnz));
}

// solve_on_device(b, x0, x, k, ...) of either solver: GPU addresses (x0 0 for
// none), x written in place; returns [info per column].
template <typename T, typename Run>
nb::list solve_on_device_with(std::uintptr_t b, std::uintptr_t x0, std::uintptr_t x, index_t k,
                              double tol, int maxiter, Run&& run) {
  require(maxiter >= 0, "maxiter must be >= 0");
  std::vector<SolveResult> results;
  {
    nb::gil_scoped_release release;
    const T* rhs = device_address<T>(b, "b");
    const T* guess = x0 != 0 ? device_address<T>(x0, "x0") : nullptr;
    T* out = device_address<T>(x, "x");
    results = run(rhs, guess, out, k, SolveOptions{tol, maxiter});
  }
  nb::list info;
  for (const SolveResult& r : results) info.append(result_dict(r));
  return info;
}
#endif  // BINAMG_WITH_CUDA

// The columns of b (a vector or an n x k block) of a matrix of `rows` rows.
template <typename T>
index_t columns_of(const In<T>& b, index_t rows) {
  require(b.ndim() == 1 || b.ndim() == 2, "b must be a vector or an n x k block");
  const index_t k = b.ndim() == 2 ? index_t(b.shape(1)) : 1;
  require(b.shape(0) == std::size_t(rows) && k >= 1,
          "b has " + std::to_string(b.shape(0)) + " rows but A has " + std::to_string(rows));
  return k;
}

// solve(b, x0, tol, maxiter, accel) of either solver: `run(b, x0, x, k, options)`
// solves without the GIL; returns (x, [info per column]).
template <typename T, typename Run>
nb::tuple solve_with(index_t rows, const In<T>& b, const std::optional<In<T>>& x0, double tol,
                     int maxiter, Run&& run) {
  const index_t k = columns_of(b, rows);
  require(!x0 || x0->size() == b.size(), "x0 must have b's shape");
  require(maxiter >= 0, "maxiter must be >= 0");
  std::vector<T> x(b.size());
  std::vector<SolveResult> results;
  {
    nb::gil_scoped_release release;
    results = run(b.data(), x0 ? x0->data() : nullptr, x.data(), k, SolveOptions{tol, maxiter});
  }
  nb::list info;
  for (const SolveResult& r : results) info.append(result_dict(r));
  return nb::make_tuple(numpy_of(std::move(x), rows, k), info);
}

// precondition(b) of either solver: x = M b by `apply(b, x, k)`, without the GIL.
template <typename T, typename Apply>
Out<T> precondition_with(index_t rows, const In<T>& b, Apply&& apply) {
  const index_t k = columns_of(b, rows);
  std::vector<T> x(b.size());
  {
    nb::gil_scoped_release release;
    apply(b.data(), x.data(), k);
  }
  return numpy_of(std::move(x), rows, k);
}

template <typename T>
void bind_solver(nb::module_& m, const char* name) {
  using S = Solver<T>;
  auto solver = nb::class_<S>(m, name);
  solver
      .def("__init__", &construct<S, T>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a,
           "parameters"_a, "device"_a)
      .def("refresh", &refresh_with<S, T>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a)
      .def_prop_ro("device", [](const S& s) { return std::string(device_name(s.device())); })
      .def_prop_ro("rows", &S::rows)
      .def_prop_ro("num_levels", &S::num_levels)
      .def("operator_complexity", &S::operator_complexity)
      .def("grid_complexity", &S::grid_complexity)
      .def("describe", &S::describe)
      .def_prop_ro("warnings", &S::warnings)
      .def_prop_ro("setup_phases_ms",
                   [](const S& s) {
                     const SetupTimings t = s.timings();
                     nb::dict d;
                     d["prepare"] = t.prepare_ms;
                     d["strength"] = t.strength_ms;
                     d["aggregation"] = t.aggregation_ms;
                     d["tentative"] = t.tentative_ms;
                     d["prolongator"] = t.prolongator_ms;
                     d["restriction"] = t.restriction_ms;
                     d["galerkin"] = t.galerkin_ms;
                     d["coarse_factor"] = t.coarse_factor_ms;
                     return d;
                   })
      .def("matrix",
           [](const S& s, index_t level, const std::string& which) {
             require(which == "A" || which == "P" || which == "R", "which must be 'A', 'P' or 'R'");
             return csr_tuple(s.matrix(level, which[0]));
           })
      .def(
          "solve",
          [](const S& s, const In<T>& b, std::optional<In<T>> x0, double tol, int maxiter,
             const std::string& accel) {
            require(accel == "cg" || accel == "none", "accel must be 'cg' or None");
            const Accelerator how = accel == "cg" ? Accelerator::cg : Accelerator::none;
            return solve_with(
                s.rows(), b, x0, tol, maxiter,
                [&](const T* rhs, const T* guess, T* x, index_t k, const SolveOptions& options) {
                  return s.solve(rhs, guess, x, k, options, how);
                });
          },
          "b"_a, "x0"_a.none(), "tol"_a, "maxiter"_a, "accel"_a)
      .def("precondition", [](const S& s, const In<T>& b) {
        return precondition_with(s.rows(), b,
                                 [&](const T* rhs, T* x, index_t k) { s.precondition(rhs, x, k); });
      });
#if BINAMG_WITH_CUDA  // CuPy's arrays (python/binamg copies them to the host without CUDA)
  solver.def_static("on_device", &on_device<S, T>, nb::rv_policy::take_ownership)
      .def("refresh_on_device", &refresh_on_device_with<S, T>)
      .def("solve_on_device",
           [](const S& s, std::uintptr_t b, std::uintptr_t x0, std::uintptr_t x, index_t k,
              double tol, int maxiter, const std::string& accel) {
             require(accel == "cg" || accel == "none", "accel must be 'cg' or None");
             require(s.gpu() != nullptr, "vectors in GPU memory are solved by a GPU hierarchy");
             const Accelerator how = accel == "cg" ? Accelerator::cg : Accelerator::none;
             return solve_on_device_with<T>(b, x0, x, k, tol, maxiter,
                                            [&](const T* rhs, const T* guess, T* out,
                                                index_t columns, const SolveOptions& options) {
                                              return s.solve(rhs, guess, out, columns, options,
                                                             how);
                                            });
           })
      .def("precondition_on_device", [](const S& s, std::uintptr_t b, std::uintptr_t x, index_t k) {
        require(s.gpu() != nullptr, "vectors in GPU memory are solved by a GPU hierarchy");
        nb::gil_scoped_release release;
        s.precondition(device_address<T>(b, "b"), device_address<T>(x, "x"), k);
      });
#endif
}

void bind_mixed_solver(nb::module_& m) {
  using S = MixedSolver;
  auto solver = nb::class_<S>(m, "MixedSolver");
  solver
      .def("__init__", &construct<S, double>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a,
           "parameters"_a, "device"_a)
      .def("refresh", &refresh_with<S, double>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a,
           "data"_a)
      .def_prop_ro("hierarchy", &S::hierarchy, nb::rv_policy::reference_internal)
      .def(
          "solve",
          [](const S& s, const In<double>& b, std::optional<In<double>> x0, double tol, int maxiter,
             const std::string& accel) {
            require(accel == "cg", "precision='mixed' preconditions CG: accel must be 'cg'");
            return solve_with(
                s.hierarchy().rows(), b, x0, tol, maxiter,
                [&](const double* rhs, const double* guess, double* x, index_t k,
                    const SolveOptions& options) { return s.solve(rhs, guess, x, k, options); });
          },
          "b"_a, "x0"_a.none(), "tol"_a, "maxiter"_a, "accel"_a)
      .def("precondition",
           [](const S& s, const In<double>& b) {
             return precondition_with(
                 s.hierarchy().rows(), b,
                 [&](const double* rhs, double* x, index_t k) { s.precondition(rhs, x, k); });
           });
#if BINAMG_WITH_CUDA
  solver.def_static("on_device", &on_device<S, double>, nb::rv_policy::take_ownership)
      .def("refresh_on_device", &refresh_on_device_with<S, double>)
      .def("solve_on_device",
           [](const S& s, std::uintptr_t b, std::uintptr_t x0, std::uintptr_t x, index_t k,
              double tol, int maxiter, const std::string& accel) {
             require(accel == "cg", "precision='mixed' preconditions CG: accel must be 'cg'");
             require(s.hierarchy().gpu() != nullptr,
                     "vectors in GPU memory are solved by a GPU hierarchy");
             return solve_on_device_with<double>(
                 b, x0, x, k, tol, maxiter,
                 [&](const double* rhs, const double* guess, double* out, index_t columns,
                     const SolveOptions& options) {
                   return s.solve(rhs, guess, out, columns, options);
                 });
           })
      .def("precondition_on_device", [](const S& s, std::uintptr_t b, std::uintptr_t x, index_t k) {
        require(s.hierarchy().gpu() != nullptr,
                "vectors in GPU memory are solved by a GPU hierarchy");
        nb::gil_scoped_release release;
        s.precondition(device_address<double>(b, "b"), device_address<double>(x, "x"), k);
      });
#endif
}

}  // namespace
}  // namespace binamg::python

NB_MODULE(_binamg, m) {
  using namespace binamg;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InvalidInput& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const OutOfMemory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  m.attr("__version__") = version();
  m.attr("built_with_cuda") = bool(BINAMG_WITH_CUDA);
  m.def("gpu_available", &gpu_available);
  m.def("gpu_description", &gpu_description);
  m.def("choose_device", [](const std::string& name) {
    return std::string(device_name(python::choose_device(name)));
  });

  nb::class_<AmgParameters>(m, "Parameters")
      .def(nb::init<>())
      .def_rw("strength_threshold", &AmgParameters::strength_threshold)
      .def_rw("system_strength_threshold", &AmgParameters::system_strength_threshold)
      .def_prop_rw(
          "strength_measure",
          [](const AmgParameters& p) {
            return std::string(strength_measure_name(p.strength_measure));
          },
          [](AmgParameters& p, const std::string& v) {
            p.strength_measure = parse_strength_measure(v);
          })
      .def_rw("strength_decay", &AmgParameters::strength_decay)
      .def_rw("standard_strength_decay", &AmgParameters::standard_strength_decay)
      .def_rw("filtered_levels", &AmgParameters::filtered_levels)
      .def_rw("filtered_prolongator_steps", &AmgParameters::filtered_prolongator_steps)
      .def_prop_rw(
          "aggregation",
          [](const AmgParameters& p) { return std::string(aggregation_name(p.aggregation)); },
          [](AmgParameters& p, const std::string& v) { p.aggregation = parse_aggregation(v); })
      .def_prop_rw(
          "ordering", [](const AmgParameters& p) { return std::string(ordering_name(p.ordering)); },
          [](AmgParameters& p, const std::string& v) { p.ordering = parse_ordering(v); })
      .def_prop_rw(
          "smoother", [](const AmgParameters& p) { return std::string(smoother_name(p.smoother)); },
          [](AmgParameters& p, const std::string& v) { p.smoother = parse_smoother(v); })
      .def_rw("max_coarse", &AmgParameters::max_coarse_rows)
      .def_rw("max_levels", &AmgParameters::max_levels)
      .def_rw("max_direct", &AmgParameters::max_direct_rows)
      .def_rw("prolongator_weight", &AmgParameters::prolongator_weight)
      .def_rw("jacobi_weight", &AmgParameters::jacobi_weight)
      .def_rw("chebyshev_degree", &AmgParameters::chebyshev_degree)
      .def_rw("chebyshev_lower", &AmgParameters::chebyshev_lower)
      .def_rw("presweeps", &AmgParameters::presweeps)
      .def_rw("postsweeps", &AmgParameters::postsweeps)
      .def_rw("spectral_radius_iterations", &AmgParameters::spectral_radius_iterations)
      .def(
          "set_near_nullspace",
          [](AmgParameters& p, index_t block_size, const python::In<double>& B) {
            require(B.ndim() == 2 || B.size() == 0, "B must be an n x k array");
            p.near_nullspace.block_size = block_size;
            p.near_nullspace.count = B.size() == 0 ? 0 : index_t(B.shape(1));
            p.near_nullspace.vectors = std::vector<double>(B.data(), B.data() + B.size());
          },
          "block_size"_a, "B"_a)
      .def("validate", [](const AmgParameters& p) { validate(p); });

  binamg::python::bind_solver<double>(m, "Solver64");
  binamg::python::bind_solver<float>(m, "Solver32");
  binamg::python::bind_mixed_solver(m);
}
