"""binamg: smoothed-aggregation algebraic multigrid on the GPU, with its CPU twin.

The interface follows PyAMG's, so its users feel at home::

    import binamg, scipy.sparse as sp
    ml = binamg.smoothed_aggregation_solver(A)          # A: any scipy sparse matrix
    x = ml.solve(b, tol=1e-8)                           # PCG + one V-cycle per iteration
    M = ml.aspreconditioner()                           # a scipy LinearOperator
    print(ml)                                           # the hierarchy

With CuPy installed, a cupyx.scipy.sparse matrix and CuPy arrays go in and CuPy
arrays come out, without a round trip through host memory. A binamg installed
without the CUDA toolkit (built_with_cuda False) solves on the CPU alone.
"""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from . import _binamg
from ._binamg import built_with_cuda, gpu_available, gpu_description

__version__ = _binamg.__version__
__all__ = ["smoothed_aggregation_solver", "MultilevelSolver", "built_with_cuda", "gpu_available",
           "gpu_description", "parameter_names"]

# The keyword arguments smoothed_aggregation_solver takes besides A, B, block_size
# and device: the fields of the C++ AmgParameters (amg/parameters.hpp).
parameter_names = (
    "strength_threshold", "system_strength_threshold", "strength_measure", "strength_decay",
    "standard_strength_decay", "filtered_levels", "filtered_prolongator_steps", "aggregation",
    "ordering", "smoother", "max_coarse", "max_levels", "max_direct", "prolongator_weight",
    "jacobi_weight", "chebyshev_degree", "chebyshev_lower", "presweeps", "postsweeps",
    "spectral_radius_iterations")


def _parameters(block_size, B, rows, options):
    parameters = _binamg.Parameters()
    for name, value in options.items():
        if name not in parameter_names:
            raise TypeError(f"smoothed_aggregation_solver: unknown parameter '{name}' "
                            f"(expected one of {', '.join(parameter_names)})")
        setattr(parameters, name, value)
    if B is not None or block_size != 1:
        vectors = np.zeros((0, 0)) if B is None else np.asarray(B, dtype=np.float64)
        if vectors.ndim == 1:
            vectors = vectors[:, None]
        if vectors.size and vectors.shape[0] != rows:
            raise ValueError(f"B has {vectors.shape[0]} rows but A has {rows}")
        parameters.set_near_nullspace(int(block_size), np.ascontiguousarray(vectors))
    parameters.validate()
    return parameters


def _cupy():
    try:
        import cupy
    except ImportError as error:
        raise TypeError("binamg takes GPU arrays through CuPy, which is not installed") from error
    return cupy


def _in_gpu_memory(x):
    """Whether x is a GPU array (CuPy's, or any with __cuda_array_interface__)."""
    return hasattr(x, "__cuda_array_interface__")


def _is_gpu_sparse(A):
    """Whether A is a cupyx.scipy.sparse matrix."""
    return type(A).__module__.startswith("cupyx.scipy.sparse")


def _rounded_to(A, dtype, xp):
    """A (canonical CSR) with its values rounded to dtype; a ValueError names the
    first entry the rounding would make infinite or zero, as the library's
    convert_values does for the mixed solver (the hierarchy would divide by it)."""
    if A.dtype == dtype:
        return A
    if np.dtype(dtype).itemsize >= A.dtype.itemsize:  # widening loses nothing
        return A.astype(dtype)
    with np.errstate(over="ignore", under="ignore"):
        rounded = A.data.astype(dtype)
    bad = xp.isfinite(A.data) & (~xp.isfinite(rounded) | ((rounded == 0) & (A.data != 0)))
    if bool(bad.any()):
        k = int(xp.argmax(bad))
        indptr = A.indptr if xp is np else A.indptr.get()  # the error path reads it on the host
        row = int(np.searchsorted(indptr, k, side="right")) - 1
        value = float(A.data[k])
        why = (f"overflows float (largest {float(np.finfo(dtype).max):.2g})"
               if abs(value) > 1 else
               f"would be stored as 0 in float (smallest {float(np.finfo(dtype).smallest_subnormal):.2g})")
        raise ValueError(f"A(row {row}, column {int(A.indices[k])}) = {value:.3g} {why}: the "
                         "matrix cannot be rounded to float; solve it in double")
    return type(A)((rounded, A.indices, A.indptr), shape=A.shape)


def _device_csr_of(A, dtype):
    """A cupyx.scipy.sparse matrix as the GPU addresses of its canonical CSR arrays:
    (arrays kept alive, the arguments of the *_on_device methods)."""
    cupy = _cupy()
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got {A.shape[0]} x {A.shape[1]}")
    if A.dtype.kind == "c":
        raise ValueError("A is complex: binamg solves real systems")
    if A.format != "csr":
        A = A.tocsr()
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()  # also sorts each row's indices
    A = _rounded_to(A, dtype, cupy)
    if A.nnz >= 2**31:
        raise ValueError(f"A has {A.nnz} nonzeros; binamg's 32-bit indices take at most 2^31 - 1")
    arrays = (cupy.ascontiguousarray(A.indptr, dtype=cupy.int32),
              cupy.ascontiguousarray(A.indices, dtype=cupy.int32),
              cupy.ascontiguousarray(A.data, dtype=dtype))
    # binamg reads them on its own stream: the work queued on CuPy's is waited for.
    cupy.cuda.get_current_stream().synchronize()
    return arrays, (A.shape[0], A.shape[1], *(a.data.ptr for a in arrays), int(A.nnz))


def _csr_of(A, dtype):
    if not sp.issparse(A):
        raise TypeError("A must be a scipy sparse matrix (for example scipy.sparse.csr_matrix(A))")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got {A.shape[0]} x {A.shape[1]}")
    if np.iscomplexobj(A.data if hasattr(A, "data") else np.zeros(0)):
        raise ValueError("A is complex: binamg solves real systems")
    # Copied only where it must be: into CSR, to a real dtype, or to sort and sum
    # duplicates (the caller's matrix is left as it is).
    if A.dtype.kind != "f":  # integers, booleans: to the solver's type
        A = sp.csr_matrix(A, dtype=dtype)
    elif A.format != "csr":  # floats keep their type until _rounded_to checks the rounding
        A = A.tocsr()
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()  # also sorts each row's indices
    A = _rounded_to(A, dtype, np)
    if A.nnz >= 2**31:
        raise ValueError(f"A has {A.nnz} nonzeros; binamg's 32-bit indices take at most 2^31 - 1")
    return A


class Level:
    """One level of the hierarchy: A (every level), P and R (all but the coarsest),
    as scipy CSR matrices copied from the solver on first use."""

    def __init__(self, solver, index):
        self._solver, self._index, self._cache = solver, index, {}

    def _matrix(self, which):
        if which not in self._cache:
            indptr, indices, data, shape = self._solver.matrix(self._index, which)
            self._cache[which] = sp.csr_matrix((data, indices, indptr), shape=shape)
        return self._cache[which]

    A = property(lambda self: self._matrix("A"))
    P = property(lambda self: self._matrix("P"))
    R = property(lambda self: self._matrix("R"))


class MultilevelSolver:
    """A smoothed-aggregation hierarchy built by smoothed_aggregation_solver()."""

    def __init__(self, solver, dtype, precision, mixed=None):
        # _solver answers for the hierarchy; _solving solves (the mixed-precision
        # solver holds the float hierarchy and the double matrix).
        self._solver, self._solving, self.dtype = solver, mixed or solver, dtype
        self.precision = precision
        self.from_gpu_matrix = False  # built from a cupyx.scipy.sparse matrix
        self.levels = [Level(solver, i) for i in range(solver.num_levels)]

    @property
    def device(self):
        """'gpu' or 'cpu': where the hierarchy lives and its solves run."""
        return self._solver.device

    @property
    def warnings(self):
        """What the setup noticed that may cost the solve, one sentence each."""
        return list(self._solver.warnings)

    @property
    def setup_phases_ms(self):
        return dict(self._solver.setup_phases_ms)

    def operator_complexity(self):
        return self._solver.operator_complexity()

    def grid_complexity(self):
        return self._solver.grid_complexity()

    def __repr__(self):
        return (f"binamg MultilevelSolver on the {self.device}, {self.precision}\n"
                + self._solver.describe())

    def _vector(self, b, name, xp=np):
        b = xp.ascontiguousarray(xp.asarray(b), dtype=self.dtype)
        if b.ndim not in (1, 2) or b.shape[0] != self._solver.rows:
            raise ValueError(f"{name} must have {self._solver.rows} rows (a vector or an n x k "
                             f"block), got shape {b.shape}")
        return b

    def _on_device(self, b, x0):
        """Whether a solve of b (and x0) runs in GPU memory: a GPU hierarchy given a
        GPU array. A CPU hierarchy takes GPU arrays through host copies."""
        return self.device == "gpu" and (_in_gpu_memory(b) or _in_gpu_memory(x0))

    def _solve_on_device(self, b, x0, tol, maxiter, accel):
        cupy = _cupy()
        b = self._vector(b, "b", cupy)
        if x0 is not None:
            x0 = self._vector(x0, "x0", cupy)
            if x0.shape != b.shape:
                raise ValueError(f"x0 has shape {x0.shape} but b has {b.shape}")
        x = cupy.empty_like(b)
        cupy.cuda.get_current_stream().synchronize()
        info = self._solving.solve_on_device(b.data.ptr, 0 if x0 is None else x0.data.ptr,
                                             x.data.ptr, 1 if b.ndim == 1 else b.shape[1],
                                             float(tol), int(maxiter), accel)
        first = b if b.ndim == 1 else b[:, 0]
        return x, info, float(cupy.linalg.norm(first.astype(cupy.float64)))

    def solve(self, b, x0=None, tol=1e-8, maxiter=500, accel="cg", residuals=None,
              return_info=False):
        """Solves A x = b to ||b - A x|| / ||b|| <= tol (the true residual decides).

        b may be n x k: k right-hand sides solved together (block CG). A CuPy b (or x0)
        gives a CuPy x, solved in GPU memory by a GPU hierarchy. accel is "cg"
        (PCG with one V-cycle per iteration) or None (the V-cycle alone). residuals, a
        list, receives the residual norms ||r_k|| of each iteration (of the first
        column). With return_info, returns (x, info): info is a dict (one per column
        for a block) with iterations, converged, relative_residual, residual_history.
        """
        if accel not in ("cg", None):
            raise ValueError(f"accel must be 'cg' or None, got {accel!r}")
        how = "cg" if accel == "cg" else "none"
        if self._on_device(b, x0):
            x, info, scale = self._solve_on_device(b, x0, tol, maxiter, how)
            b_ndim = x.ndim
        else:
            gpu_arrays = _in_gpu_memory(b) or _in_gpu_memory(x0)
            if gpu_arrays:  # a CPU hierarchy: through host memory, and back
                cupy = _cupy()
                b = cupy.asnumpy(b)
                x0 = None if x0 is None else cupy.asnumpy(x0)
            b = self._vector(b, "b")
            if x0 is not None:
                x0 = self._vector(x0, "x0")
            if x0 is not None and x0.shape != b.shape:
                raise ValueError(f"x0 has shape {x0.shape} but b has {b.shape}")
            x, info = self._solving.solve(b, x0, float(tol), int(maxiter), how)
            first = b if b.ndim == 1 else b[:, 0]
            scale = float(np.linalg.norm(first.astype(np.float64)))
            b_ndim = b.ndim
            if gpu_arrays:
                x = cupy.asarray(x)
        if residuals is not None:
            residuals[:] = [r * scale for r in info[0]["residual_history"]]
        if return_info:
            return x, (info[0] if b_ndim == 1 else info)
        return x

    def refresh(self, A):
        """Gives the hierarchy A's values: a matrix with the sparsity pattern it was built
        for (a time step, a Newton step). The aggregates are kept; the smoothed
        prolongators, every Galerkin product and the coarse factor are recomputed, as a
        new setup with the same aggregates would compute them. setup_phases_ms becomes
        the refresh's. Raises ValueError if the shape or the pattern differs (checked
        first), or if the new values break the setup (a zero diagonal): after that, build a
        new solver. A cupyx.scipy.sparse A refreshes a GPU hierarchy in GPU memory."""
        dtype = np.float32 if self.precision == "float" else np.float64
        n = self._solver.rows
        if A.shape != (n, n):
            raise ValueError(f"A is {A.shape[0]} x {A.shape[1]}, the hierarchy was built "
                             f"for {n} x {n}")
        if _is_gpu_sparse(A) and self.device == "gpu":
            _, arguments = _device_csr_of(A, dtype)
            self._solving.refresh_on_device(*arguments)
        else:
            A = _csr_of(A.get() if _is_gpu_sparse(A) else A, dtype)
            self._solving.refresh(A.shape[0], A.shape[1], np.asarray(A.indptr, dtype=np.int32),
                                  np.asarray(A.indices, dtype=np.int32),
                                  np.ascontiguousarray(A.data))
        self.levels = [Level(self._solver, i) for i in range(self._solver.num_levels)]

    def _precondition(self, b):
        if not _in_gpu_memory(b):
            return self._solving.precondition(self._vector(b, "b"))
        cupy = _cupy()
        if self.device == "cpu":  # a CPU hierarchy: through host memory, and back
            return cupy.asarray(self._solving.precondition(self._vector(cupy.asnumpy(b), "b")))
        b = self._vector(b, "b", cupy)
        x = cupy.empty_like(b)
        cupy.cuda.get_current_stream().synchronize()
        self._solving.precondition_on_device(b.data.ptr, x.data.ptr,
                                             1 if b.ndim == 1 else b.shape[1])
        return x

    def aspreconditioner(self):
        """One V-cycle from a zero guess as a LinearOperator: scipy's (for scipy's cg,
        gmres), or cupyx's for a hierarchy built from a cupyx.scipy.sparse matrix (for
        cupyx.scipy.sparse.linalg's cg, gmres). Either takes NumPy and CuPy vectors."""
        n = self._solver.rows
        Operator = LinearOperator
        if self.from_gpu_matrix:
            from cupyx.scipy.sparse.linalg import LinearOperator as Operator
        return Operator((n, n), dtype=self.dtype, matvec=self._precondition,
                        matmat=self._precondition)


def smoothed_aggregation_solver(A, B=None, block_size=1, device="auto", precision=None,
                                **parameters):
    """Builds a smoothed-aggregation hierarchy of the sparse matrix A.

    B: near-nullspace vectors (n x k; for elasticity the rigid-body modes), with
    block_size the unknowns per node (node-major). device: "auto" (the GPU when one
    is usable), "gpu" or "cpu". precision: "double", "float", or "mixed" (a float
    hierarchy and V-cycle preconditioning CG in double on A; solve's accel must be
    "cg"); by default float for a float32 matrix, double for any other real type.
    Other keywords set AmgParameters' fields (binamg.parameter_names), for example
    strength_threshold=0.25, smoother="jacobi".

    A may be a cupyx.scipy.sparse matrix: a GPU hierarchy is then built from it in GPU
    memory (a CPU one from a host copy, with device="cpu").
    """
    if device not in ("auto", "cpu", "gpu"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'gpu', got {device!r}")
    if precision not in (None, "double", "float", "mixed"):
        raise ValueError(f"precision must be 'double', 'float' or 'mixed', got {precision!r}")
    if precision is None:
        precision = "float" if getattr(A, "dtype", None) == np.float32 else "double"
    dtype = np.float32 if precision == "float" else np.float64
    on = _binamg.choose_device(device)  # "gpu" without one (or without CUDA) is refused
    if B is not None and _in_gpu_memory(B):
        B = _cupy().asnumpy(B)  # the near-nullspace vectors are a parameter, kept on the host
    if _is_gpu_sparse(A):
        if on == "cpu":
            A = A.get()
        else:
            options = _parameters(block_size, B, A.shape[0], parameters)
            _, arguments = _device_csr_of(A, dtype)
            if precision == "mixed":
                mixed = _binamg.MixedSolver.on_device(*arguments, options)
                ml = MultilevelSolver(mixed.hierarchy, np.float64, precision, mixed)
            else:
                Solver = _binamg.Solver32 if precision == "float" else _binamg.Solver64
                ml = MultilevelSolver(Solver.on_device(*arguments, options), dtype, precision)
            ml.from_gpu_matrix = True
            return ml
    A = _csr_of(A, dtype)
    options = _parameters(block_size, B, A.shape[0], parameters)
    arrays = (A.shape[0], A.shape[1], np.asarray(A.indptr, dtype=np.int32),
              np.asarray(A.indices, dtype=np.int32), np.ascontiguousarray(A.data), options, on)
    if precision == "mixed":
        mixed = _binamg.MixedSolver(*arrays)
        return MultilevelSolver(mixed.hierarchy, np.float64, precision, mixed)
    Solver = _binamg.Solver32 if precision == "float" else _binamg.Solver64
    return MultilevelSolver(Solver(*arrays), A.dtype.type, precision)
