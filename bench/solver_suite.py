#!/usr/bin/env python3
"""The solver as users run it: amg_solve on the four stencils at several sizes and on
every Matrix Market file of a folder, with the peers beside it when their binaries
are given (run them on the same machine, in the same call).

One JSON object per line on --out: a header (commit, date, device, card, command), then
one line per run, {"solver": "binamg" | "amgcl" | "hypre", "problem", "size" or
"matrix", "rows", "iterations", "operator_complexity", "setup_ms", "solve_ms",
"setup_phases_ms", "converged", ...}: warm medians where --repeat > 0. With --plot
(matplotlib), iterations and setup + solve time against rows for each stencil.

    bench/solver_suite.py --amg-solve build/amg_solve --device gpu --repeat 5 \\
        --sizes poisson2d-5=512,1024,2048,4096 --matrices FEM_DIR \\
        --amgcl /tmp/amgcl_poisson --hypre /tmp/hypre_ij --out suite.jsonl --plot suite.png
"""
import argparse
import datetime
import glob
import json
import os
import re
import subprocess
import sys

DEFAULT_SIZES = ("poisson2d-5=512,1024,2048,4096 poisson2d-9=1024 "
                 "poisson3d-7=64,128,256 poisson3d-27=101")
# hypre's ij driver: AMG-PCG with its recommended GPU settings (../shared/peers/hypre).
HYPRE_OPTIONS = ("-solver 1 -exec_device -pmis -interptype 6 -Pmx 4 -rlx 18 -keepT 1 -rap 0 "
                 "-mod_rap2 1 -mm_vendor 0 -tol 1e-8 -benchmark 1").split()
HYPRE_STENCILS = {"poisson2d-5": [], "poisson2d-9": ["-9pt"], "poisson3d-7": [],
                  "poisson3d-27": ["-27pt"]}


def parse_sizes(text):
    """'poisson2d-5=512,1024 poisson3d-7=64' -> [('poisson2d-5', 512), ...]"""
    runs = []
    for item in text.split():
        name, _, sizes = item.partition("=")
        if name not in HYPRE_STENCILS or not sizes:
            sys.exit(f"solver_suite: --sizes item '{item}' is not STENCIL=N[,N...] with a stencil "
                     f"of {sorted(HYPRE_STENCILS)}")
        runs += [(name, int(n)) for n in sizes.split(",")]
    return runs


def last_json_line(command, timeout):
    """Runs command and returns the JSON object on its last stdout line, or an error record."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    lines = done.stdout.strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": f"exit {done.returncode}: " + (done.stderr.strip() or done.stdout.strip())[-300:]}
    result["exit"] = done.returncode
    return result


def gpu_name():
    """The card's name as nvidia-smi gives it, or None: a figure counts with its card."""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = done.stdout.strip().splitlines()
    return names[0].strip() if done.returncode == 0 and names else None


def binamg(args, problem):
    command = [args.amg_solve, "--device", args.device, "--repeat", str(args.repeat), "--json"]
    command += problem + args.amg_args.split()
    r = last_json_line(command, args.timeout)
    if "error" in r:
        return r
    warm = args.repeat > 0
    return {"rows": r["rows"], "nnz": r["nnz"], "levels": len(r["levels"]),
            "operator_complexity": r["operator_complexity"], "iterations": r["iterations"],
            "converged": r["converged"], "relative_residual": r["relative_residual"],
            "setup_ms": r["setup_ms_median" if warm else "setup_ms"],
            "solve_ms": r["solve_ms_median" if warm else "solve_ms"],
            "setup_phases_ms": r["setup_phases_ms_median" if warm else "setup_phases_ms"],
            "commit": r["commit"], "device": r["device"]}


def amgcl(args, problem):
    command = [args.amgcl, "--backend", "cuda" if args.device == "gpu" else "cpu",
               "--repeat", str(max(args.repeat, 1))] + problem
    r = last_json_line(command, args.timeout)
    if "error" in r:
        return r
    return {"rows": r["levels"][0]["rows"] if r.get("levels") else None,
            "operator_complexity": r.get("operator_complexity"), "iterations": r["iterations"],
            "converged": r["exit"] == 0, "relative_residual": r.get("relative_residual"),
            "setup_ms": r["setup_ms_median"], "solve_ms": r["solve_ms_median"],
            "setup_phases_ms": r.get("setup_phases_ms"), "configuration": "stock"}


def hypre(args, stencil, size):
    dims = [str(size)] * (3 if stencil.startswith("poisson3d") else 2) + (
        ["1"] if stencil.startswith("poisson2d") else [])
    command = [args.hypre] + HYPRE_OPTIONS + ["-laplacian"] + HYPRE_STENCILS[stencil] + ["-n"] + dims
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {args.timeout} s"}
    text = done.stdout
    setups = re.findall(r"PCG Setup:\s*\n\s*wall clock time = ([0-9.]+)", text)
    solves = re.findall(r"PCG Solve:\s*\n\s*wall clock time = ([0-9.]+)", text)
    iterations = re.findall(r"Iterations = (\d+)", text)
    residuals = re.findall(r"Final Relative Residual Norm = ([0-9.e+-]+)", text)
    if not (setups and solves and iterations and residuals):
        return {"error": f"exit {done.returncode}: no timings in hypre's output"}
    # -benchmark 1 runs setup and solve twice: the second pair is warm. Its timer resolves 10 ms.
    return {"iterations": int(iterations[-1]), "relative_residual": float(residuals[-1]),
            "converged": float(residuals[-1]) <= 1e-8, "setup_ms": 1000 * float(setups[-1]),
            "solve_ms": 1000 * float(solves[-1]), "timer_resolution_ms": 10}


def stencil_rows(record):
    """A stencil run's rows: n² or n³ (hypre's records give only the size)."""
    return record["size"] ** (2 if record["problem"].startswith("poisson2d") else 3)


def plot(records, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    stencils = sorted({r["problem"] for r in records if "size" in r})
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for stencil in stencils:
        for solver, style in (("binamg", "o-"), ("amgcl", "s--"), ("hypre", "^:")):
            runs = sorted((r for r in records if r.get("problem") == stencil and
                           r["solver"] == solver and "error" not in r),
                          key=stencil_rows)
            if not runs:
                continue
            rows = [stencil_rows(r) for r in runs]
            label = f"{solver} {stencil}"
            axes[0].plot(rows, [r["iterations"] for r in runs], style, label=label)
            axes[1].plot(rows, [r["setup_ms"] + r["solve_ms"] for r in runs], style, label=label)
    axes[0].set_ylabel("PCG iterations to 1e-8")
    axes[1].set_ylabel("setup + solve, ms")
    axes[1].set_yscale("log")
    for axis in axes:
        axis.set_xscale("log")
        axis.set_xlabel("rows")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--amg-solve", required=True, help="the amg_solve binary")
    parser.add_argument("--device", default="gpu", choices=["gpu", "cpu"])
    parser.add_argument("--sizes", default=DEFAULT_SIZES,
                        help=f"STENCIL=N[,N...] items (default '{DEFAULT_SIZES}'; '' for none)")
    parser.add_argument("--matrices", help="a folder: every *.mtx and *.mtx.gz in it but "
                                           "*_rbm* (near-nullspace files)")
    parser.add_argument("--repeat", type=int, default=5, help="warm runs after the cold one")
    parser.add_argument("--amg-args", default="", help="more amg_solve options, one string")
    parser.add_argument("--amgcl", help="AMGCL's peer driver (../shared/peers/amgcl_poisson.cu)")
    parser.add_argument("--hypre", help="hypre's ij driver (../shared/peers/hypre); stencils only")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per run")
    parser.add_argument("--out", required=True, help="JSON lines")
    parser.add_argument("--plot", help="a PNG of iterations and time against rows (matplotlib)")
    args = parser.parse_args()
    if args.repeat < 0:
        sys.exit("solver_suite: --repeat must be >= 0")

    problems = [(["--problem", name, "--size", str(n)], {"problem": name, "size": n})
                for name, n in parse_sizes(args.sizes)]
    if args.matrices:
        files = sorted(f for f in glob.glob(os.path.join(args.matrices, "*.mtx*"))
                       if re.search(r"\.mtx(\.gz)?$", f) and "_rbm" not in os.path.basename(f))
        if not files:
            sys.exit(f"solver_suite: no .mtx or .mtx.gz file in {args.matrices}")
        problems += [(["--matrix", f], {"problem": os.path.basename(f).split(".mtx")[0],
                                        "matrix": f}) for f in files]

    header = {"bench": "solver_suite", "date": datetime.datetime.now(datetime.timezone.utc)
              .strftime("%Y-%m-%dT%H:%M:%SZ"), "command": " ".join(sys.argv)}
    if args.device == "gpu":
        header["card"] = gpu_name()
    records = []
    with open(args.out, "w") as out:
        first = True
        for command, key in problems:
            runs = [dict(key, solver="binamg", **binamg(args, command))]
            if first and "commit" in runs[0]:
                header.update(commit=runs[0]["commit"], device=runs[0]["device"])
            if args.amgcl:
                runs.append(dict(key, solver="amgcl", **amgcl(args, command)))
            if args.hypre and "size" in key:
                runs.append(dict(key, solver="hypre", **hypre(args, key["problem"], key["size"])))
            if first:
                out.write(json.dumps(header) + "\n")
                first = False
            for run in runs:
                out.write(json.dumps(run) + "\n")
                out.flush()
                shown = run.get("error") or (f"{run['iterations']} it, setup {run['setup_ms']:.1f} "
                                             f"ms, solve {run['solve_ms']:.1f} ms")
                print(f"{run['solver']:7s} {run['problem']} {run.get('size', '')}: {shown}")
            records += runs
    if args.plot:
        plot(records, args.plot)
    return 1 if any("error" in r or not r.get("converged") for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
