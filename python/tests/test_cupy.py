"""CuPy in, CuPy out: a cupyx.scipy.sparse matrix and CuPy vectors solved in GPU memory give
the bits the same problem gives through NumPy and scipy. Skipped without CuPy or a GPU."""
import numpy as np
import pytest
import scipy.sparse as sp

import binamg

cupy = pytest.importorskip("cupy")
cupyx_sparse = pytest.importorskip("cupyx.scipy.sparse")
pytestmark = pytest.mark.skipif(not binamg.gpu_available(), reason="no usable CUDA device")


def poisson2d(n, dtype=np.float64):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    I = sp.identity(n)
    return (sp.kron(T, I) + sp.kron(I, T)).astype(dtype).tocsr()


def on_gpu(A):
    return cupyx_sparse.csr_matrix(A)


def true_residual(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


@pytest.mark.parametrize("precision", ["double", "float", "mixed"])
def test_cupy_in_and_out_gives_the_numpy_bits(precision):
    A = poisson2d(48)
    dtype = np.float32 if precision == "float" else np.float64
    b = np.random.default_rng(3).standard_normal(A.shape[0]).astype(dtype)
    tol = 1e-5 if precision == "float" else 1e-9
    host = binamg.smoothed_aggregation_solver(A, device="gpu", precision=precision)
    device = binamg.smoothed_aggregation_solver(on_gpu(A), device="gpu", precision=precision)
    assert device.from_gpu_matrix and not host.from_gpu_matrix
    for a, c in zip(host.levels, device.levels):  # the same hierarchy, bit for bit
        assert (a.A != c.A).nnz == 0 and (a.A.data == c.A.data).all()
    x_host, info_host = host.solve(b, tol=tol, return_info=True)
    residuals = []
    x, info = device.solve(cupy.asarray(b), tol=tol, residuals=residuals, return_info=True)
    assert isinstance(x, cupy.ndarray) and x.dtype == dtype and x.shape == b.shape
    assert info["converged"] and info["iterations"] == info_host["iterations"]
    assert (cupy.asnumpy(x) == x_host).all()
    assert residuals[0] == pytest.approx(np.linalg.norm(b.astype(np.float64)))
    assert true_residual(A, cupy.asnumpy(x).astype(np.float64), b) <= tol


@pytest.mark.parametrize("accel", ["cg", None])
def test_a_block_and_an_initial_guess_in_gpu_memory(accel):
    A = poisson2d(32)
    rng = np.random.default_rng(4)
    B = rng.standard_normal((A.shape[0], 3))
    X0 = rng.standard_normal((A.shape[0], 3))
    ml = binamg.smoothed_aggregation_solver(on_gpu(A), device="gpu")
    expected = ml.solve(B, x0=X0, tol=1e-8, accel=accel, maxiter=200)
    X, infos = ml.solve(cupy.asarray(B), x0=cupy.asarray(X0), tol=1e-8, accel=accel,
                        maxiter=200, return_info=True)
    assert isinstance(X, cupy.ndarray) and X.shape == B.shape and len(infos) == 3
    assert all(info["converged"] for info in infos)
    assert (cupy.asnumpy(X) == expected).all()
    # A column of a block (a strided view) is made contiguous first.
    x = ml.solve(cupy.asarray(B)[:, 1], tol=1e-8, accel=accel, maxiter=200)
    assert (cupy.asnumpy(x) == ml.solve(B[:, 1], tol=1e-8, accel=accel, maxiter=200)).all()


def test_refresh_from_gpu_memory_equals_a_setup():
    A = poisson2d(48)
    d = sp.diags(1 + 0.03 * np.sin(np.arange(A.shape[0])))
    scaled = (d @ A @ d).tocsr()
    ml = binamg.smoothed_aggregation_solver(on_gpu(A), device="gpu", max_coarse=50)
    ml.refresh(on_gpu(scaled))
    fresh = binamg.smoothed_aggregation_solver(scaled, device="gpu", max_coarse=50)
    assert len(ml.levels) == len(fresh.levels) >= 3
    for a, c in zip(ml.levels, fresh.levels):
        assert (a.A != c.A).nnz == 0 and (a.A.data == c.A.data).all()
    with pytest.raises(ValueError, match="sparsity pattern differs .* first in row 0"):
        ml.refresh(on_gpu((A + sp.eye(A.shape[0], k=2)).tocsr()))


def test_preconditioner_for_cupyx_cg():
    from cupyx.scipy.sparse.linalg import cg
    A = poisson2d(48)
    b = cupy.asarray(np.random.default_rng(5).standard_normal(A.shape[0]))
    ml = binamg.smoothed_aggregation_solver(on_gpu(A), device="gpu")
    M = ml.aspreconditioner()
    z = M.matvec(b)
    assert isinstance(z, cupy.ndarray)
    host = binamg.smoothed_aggregation_solver(A, device="gpu").aspreconditioner()
    assert (cupy.asnumpy(z) == host.matvec(cupy.asnumpy(b))).all()
    x, status = cg(on_gpu(A), b, M=M, maxiter=100)  # CuPy's default tolerance, 1e-5
    assert status == 0
    assert true_residual(A, cupy.asnumpy(x), cupy.asnumpy(b)) < 1e-4


def test_a_cpu_hierarchy_takes_cupy_through_host_copies():
    A = poisson2d(24)
    b = np.ones(A.shape[0])
    ml = binamg.smoothed_aggregation_solver(on_gpu(A), device="cpu")
    assert ml.device == "cpu"
    x = ml.solve(cupy.asarray(b), tol=1e-8)
    assert isinstance(x, cupy.ndarray)
    assert (cupy.asnumpy(x) == ml.solve(b, tol=1e-8)).all()


def test_bad_gpu_matrices_are_named_by_row():
    A = poisson2d(10)
    broken = on_gpu(A)
    broken.data[4] = cupy.nan  # row 0 holds columns 0, 1, 10; row 1 columns 0, 1, 2, 11
    with pytest.raises(ValueError, match="A: row 1 column 1 holds a non-finite value"):
        binamg.smoothed_aggregation_solver(broken, device="gpu")
    with pytest.raises(ValueError, match="A must be square"):
        binamg.smoothed_aggregation_solver(on_gpu(sp.random(5, 6, density=0.5).tocsr()),
                                           device="gpu")
    ml = binamg.smoothed_aggregation_solver(on_gpu(A), device="gpu")
    with pytest.raises(ValueError, match="b must have 100 rows"):
        ml.solve(cupy.ones(99))
    # Duplicates and unsorted columns are summed and sorted first, as scipy's are.
    duplicated = cupyx_sparse.coo_matrix(A.tocoo())
    doubled = cupyx_sparse.coo_matrix(
        (cupy.concatenate([duplicated.data, duplicated.data]),
         (cupy.concatenate([duplicated.row, duplicated.row]),
          cupy.concatenate([duplicated.col, duplicated.col]))), shape=A.shape)
    x = binamg.smoothed_aggregation_solver(doubled, device="gpu").solve(cupy.ones(100), tol=1e-10)
    assert true_residual(2 * A, cupy.asnumpy(x), np.ones(100)) <= 1e-10


def test_host_addresses_are_refused_as_gpu_memory():
    A = poisson2d(10)
    ml = binamg.smoothed_aggregation_solver(on_gpu(A), device="gpu")
    host = np.ones(A.shape[0])
    x = cupy.empty(A.shape[0])
    with pytest.raises(ValueError, match="b is not memory of the GPU binamg runs on"):
        ml._solving.solve_on_device(host.ctypes.data, 0, x.data.ptr, 1, 1e-8, 10, "cg")
    # The refusal leaves no CUDA error behind for the next call to find.
    x, info = ml.solve(cupy.ones(A.shape[0]), tol=1e-8, return_info=True)
    assert info["converged"]
