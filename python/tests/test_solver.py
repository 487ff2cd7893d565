"""The Python interface against scipy on the same problems: solutions that meet the
tolerance in the true residual, the hierarchy's matrices, the preconditioner, and
clear errors. GPU tests skip without a GPU."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import binamg

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.skipif(
    not binamg.gpu_available(), reason="no usable CUDA device"))]


def poisson2d(n, dtype=np.float64):
    """The 5-point Laplacian on an n x n grid (Dirichlet), as PyAMG's gallery builds it."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    I = sp.identity(n)
    return (sp.kron(T, I) + sp.kron(I, T)).astype(dtype).tocsr()


def true_residual(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


@pytest.mark.parametrize("device", DEVICES)
def test_solves_poisson_to_the_tolerance(device):
    A = poisson2d(64)
    b = np.ones(A.shape[0])
    ml = binamg.smoothed_aggregation_solver(A, device=device)
    assert ml.device == device
    residuals = []
    x, info = ml.solve(b, tol=1e-8, residuals=residuals, return_info=True)
    assert info["converged"]
    assert true_residual(A, x, b) <= 1e-8
    assert info["iterations"] == len(residuals) - 1 < 30
    assert residuals[0] == pytest.approx(np.linalg.norm(b))
    assert 1 < ml.operator_complexity() < 2


@pytest.mark.parametrize("device", DEVICES)
def test_the_gpu_and_the_cpu_build_the_same_hierarchy(device):
    A = poisson2d(40)
    cpu = binamg.smoothed_aggregation_solver(A, device="cpu")
    other = binamg.smoothed_aggregation_solver(A, device=device)
    assert len(cpu.levels) == len(other.levels) >= 2
    for a, b in zip(cpu.levels[:-1], other.levels[:-1]):  # the same aggregates, P to rounding
        assert a.P.shape == b.P.shape and a.P.nnz == b.P.nnz
        assert (a.P.indices == b.P.indices).all()
        assert np.allclose(a.P.data, b.P.data, rtol=1e-12, atol=0)


def test_levels_are_the_galerkin_products():
    A = poisson2d(32)
    ml = binamg.smoothed_aggregation_solver(A, device="cpu", max_coarse=50)
    assert len(ml.levels) >= 2
    assert (ml.levels[0].A != A).nnz == 0
    for fine, coarse in zip(ml.levels, ml.levels[1:]):
        assert (fine.R != fine.P.T).nnz == 0
        galerkin = (fine.R @ fine.A @ fine.P).toarray()
        assert np.allclose(coarse.A.toarray(), galerkin, atol=1e-12 * abs(galerkin).max())
    assert "operator complexity" in repr(ml)


@pytest.mark.parametrize("device", DEVICES)
def test_preconditioner_for_scipy_cg(device):
    A = poisson2d(48)
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    M = binamg.smoothed_aggregation_solver(A, device=device).aspreconditioner()
    iterations = []
    x, status = spla.cg(A, b, M=M, rtol=1e-8, maxiter=100,
                        callback=lambda xk: iterations.append(1))
    assert status == 0 and len(iterations) < 25
    assert true_residual(A, x, b) < 1e-7


@pytest.mark.parametrize("device", DEVICES)
def test_block_of_right_hand_sides(device):
    A = poisson2d(32)
    B = np.random.default_rng(2).standard_normal((A.shape[0], 4))
    ml = binamg.smoothed_aggregation_solver(A, device=device)
    X, infos = ml.solve(B, tol=1e-8, return_info=True)
    assert X.shape == B.shape and len(infos) == 4
    for j in range(4):
        assert infos[j]["converged"]
        assert true_residual(A, X[:, j], B[:, j]) <= 1e-8
        x = ml.solve(B[:, j], tol=1e-8)
        assert np.allclose(x, X[:, j], rtol=1e-10, atol=1e-12)


def test_float32_and_the_vcycle_alone():
    A = poisson2d(32, np.float32)
    b = np.ones(A.shape[0], dtype=np.float32)
    ml = binamg.smoothed_aggregation_solver(A, device="cpu")
    x = ml.solve(b, tol=1e-5, accel=None, maxiter=100)
    assert x.dtype == np.float32
    assert true_residual(A.astype(np.float64), x.astype(np.float64), b) <= 1e-5


def test_elasticity_with_its_near_nullspace():
    # 2D linear elasticity on a strip, clamped at one end, with its 3 rigid-body modes.
    n = 12
    A, B = _elasticity2d(n)
    ml = binamg.smoothed_aggregation_solver(A, B=B, block_size=2, device="cpu")
    b = np.ones(A.shape[0])
    x, info = ml.solve(b, return_info=True)
    assert info["converged"] and true_residual(A, x, b) <= 1e-8


def _elasticity2d(n):
    """Bilinear plane-strain elasticity on an n x n node grid (unit square, E = 1,
    nu = 0.3), clamped where x = 0, with the rigid-body modes of its free nodes."""
    nu = 0.3
    D = 1 / ((1 + nu) * (1 - 2 * nu)) * np.array([[1 - nu, nu, 0], [nu, 1 - nu, 0],
                                                   [0, 0, (1 - 2 * nu) / 2]])
    h = 1.0 / (n - 1)
    gauss = [-1 / np.sqrt(3), 1 / np.sqrt(3)]
    Ke = np.zeros((8, 8))
    corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    for xi in gauss:
        for eta in gauss:
            dN = np.array([[c[0] * (1 + c[1] * eta) / 4, c[1] * (1 + c[0] * xi) / 4]
                           for c in corners]) * (2 / h)
            Bm = np.zeros((3, 8))
            Bm[0, 0::2], Bm[1, 1::2] = dN[:, 0], dN[:, 1]
            Bm[2, 0::2], Bm[2, 1::2] = dN[:, 1], dN[:, 0]
            Ke += Bm.T @ D @ Bm * (h / 2) ** 2
    rows, cols, vals = [], [], []

    def node(i, j):
        return j * n + i

    for j in range(n - 1):
        for i in range(n - 1):
            nodes = [node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)]
            dofs = [2 * p + c for p in nodes for c in (0, 1)]
            rows += [d for d in dofs for _ in dofs]
            cols += dofs * 8
            vals += list(Ke.ravel())
    K = sp.csr_matrix((vals, (rows, cols)), shape=(2 * n * n, 2 * n * n))
    free = np.array([2 * node(i, j) + c for j in range(n) for i in range(1, n) for c in (0, 1)])
    K = K[free][:, free].tocsr()
    xy = np.array([(i * h, j * h) for j in range(n) for i in range(1, n)])
    B = np.zeros((2 * len(xy), 3))
    B[0::2, 0], B[1::2, 1] = 1, 1
    B[0::2, 2], B[1::2, 2] = -xy[:, 1], xy[:, 0]
    return K, B


def test_bad_input_raises_clear_errors():
    A = poisson2d(8)
    with pytest.raises(TypeError, match="scipy sparse"):
        binamg.smoothed_aggregation_solver(A.toarray())
    with pytest.raises(ValueError, match="square"):
        binamg.smoothed_aggregation_solver(sp.csr_matrix(np.ones((3, 4))))
    with pytest.raises(TypeError, match="unknown parameter 'theta'"):
        binamg.smoothed_aggregation_solver(A, theta=0.1)
    with pytest.raises(ValueError, match="unknown smoother 'sor'"):
        binamg.smoothed_aggregation_solver(A, smoother="sor")
    with pytest.raises(ValueError, match="strength_decay"):
        binamg.smoothed_aggregation_solver(A, strength_decay=0.0)
    with pytest.raises(ValueError, match="standard_strength_decay"):
        binamg.smoothed_aggregation_solver(A, standard_strength_decay=1.5)
    with pytest.raises(ValueError, match="B has 5 rows but A has 64"):
        binamg.smoothed_aggregation_solver(A, B=np.ones((5, 1)))
    with pytest.raises(ValueError, match="linear combination"):
        binamg.smoothed_aggregation_solver(A, B=np.ones((64, 2)))
    with pytest.raises(ValueError, match="diagonal"):
        binamg.smoothed_aggregation_solver(sp.csr_matrix(A - sp.diags(A.diagonal())))
    ml = binamg.smoothed_aggregation_solver(A, device="cpu")
    with pytest.raises(ValueError, match="b must have 64 rows"):
        ml.solve(np.ones(10))
    with pytest.raises(ValueError, match="accel"):
        ml.solve(np.ones(64), accel="gmres")
    with pytest.raises(ValueError, match="non-finite|finite"):
        ml.solve(np.full(64, np.nan))
    if not binamg.gpu_available():
        why = "no usable CUDA device" if binamg.built_with_cuda else "built without CUDA"
        with pytest.raises(ValueError, match=why):
            binamg.smoothed_aggregation_solver(A, device="gpu")


@pytest.mark.parametrize("device", DEVICES)
def test_initial_guess_and_duplicate_entries(device):
    A = poisson2d(24)
    b = np.random.default_rng(3).standard_normal(A.shape[0])
    # the same matrix in CSR with every entry stored twice, halved, in reverse order
    indices = [np.concatenate([A.indices[s:e], A.indices[s:e]])[::-1]
               for s, e in zip(A.indptr[:-1], A.indptr[1:])]
    data = [np.concatenate([A.data[s:e], A.data[s:e]])[::-1] / 2
            for s, e in zip(A.indptr[:-1], A.indptr[1:])]
    doubled = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), 2 * A.indptr),
                            shape=A.shape)
    assert not doubled.has_canonical_format
    before = doubled.data.copy()
    ml = binamg.smoothed_aggregation_solver(doubled, device=device)
    assert np.array_equal(doubled.data, before)  # the caller's matrix is left as it is
    x, info = ml.solve(b, return_info=True)
    assert info["converged"] and true_residual(A, x, b) <= 1e-8
    _, again = ml.solve(b, x0=x, return_info=True)  # from the solution: nothing to do
    assert again["iterations"] <= 1 and again["converged"]


@pytest.mark.parametrize("device", DEVICES)
def test_mixed_precision_reaches_a_double_tolerance(device):
    A = poisson2d(64)
    b = np.ones(A.shape[0])
    ml = binamg.smoothed_aggregation_solver(A, device=device, precision="mixed")
    assert ml.precision == "mixed" and ml.levels[0].A.dtype == np.float32
    x, info = ml.solve(b, tol=1e-11, return_info=True)
    assert x.dtype == np.float64 and info["converged"]
    assert true_residual(A, x, b) <= 1e-11
    _, double = binamg.smoothed_aggregation_solver(A, device=device).solve(
        b, tol=1e-11, return_info=True)
    assert abs(info["iterations"] - double["iterations"]) <= 2
    _, status = spla.cg(A, b, M=ml.aspreconditioner(), rtol=1e-10, maxiter=50)
    assert status == 0
    with pytest.raises(ValueError, match="accel must be 'cg'"):
        ml.solve(b, accel=None)
    with pytest.raises(ValueError, match="precision must be"):
        binamg.smoothed_aggregation_solver(A, precision="half")
    with pytest.raises(ValueError, match=r"A\(row 0, column 0\) = 4e\+300 overflows float"):
        binamg.smoothed_aggregation_solver(A * 1e300, device=device, precision="mixed")
    with pytest.raises(ValueError, match=r"A\(row 0, column 0\) = 4e-300 would be stored as 0"):
        binamg.smoothed_aggregation_solver(A * 1e-300, device=device, precision="float")


@pytest.mark.parametrize("precision", ["double", "float", "mixed"])
@pytest.mark.parametrize("device", DEVICES)
def test_refresh_gives_the_setup_of_the_new_values(device, precision):
    A = poisson2d(48)
    d = sp.diags(1 + 0.03 * np.sin(np.arange(A.shape[0])))
    scaled = (d @ A @ d).tocsr()
    ml = binamg.smoothed_aggregation_solver(A, device=device, precision=precision, max_coarse=50)
    fresh = binamg.smoothed_aggregation_solver(scaled, device=device, precision=precision,
                                               max_coarse=50)
    ml.refresh(scaled)
    assert ml.setup_phases_ms["aggregation"] == 0
    assert len(ml.levels) == len(fresh.levels) >= 3
    for a, b in zip(ml.levels, fresh.levels):  # bit for bit: the aggregates stay the same
        assert (a.A != b.A).nnz == 0 and (a.A.data == b.A.data).all()
    b = np.ones(A.shape[0])
    tol = 1e-4 if precision == "float" else 1e-8  # what float arithmetic attains
    x, info = ml.solve(b, tol=tol, return_info=True)
    assert info["converged"]
    assert true_residual(scaled, x, b) <= tol


@pytest.mark.parametrize("device", DEVICES)
def test_refresh_names_a_new_pattern(device):
    A = poisson2d(20)
    ml = binamg.smoothed_aggregation_solver(A, device=device)
    with pytest.raises(ValueError, match="the hierarchy was built for 400 x 400"):
        ml.refresh(poisson2d(21))
    other = (A + sp.eye(400, k=2)).tocsr()  # row 0 gains column 2
    with pytest.raises(ValueError, match="sparsity pattern differs .* first in row 0"):
        ml.refresh(other)
