#pragma once
// amg_solve --refresh-count N: N refreshes of the hierarchy with new values on
// A's pattern (symmetrically_scaled), each timed as a user pays it and checked
// by a solve with the refreshed hierarchy.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "binamg/amg/hierarchy.hpp"
#include "binamg/problems/scaled.hpp"
#include "binamg/solvers/solve_result.hpp"
#include "examples/cli.hpp"

namespace binamg::cli {

/// How far refresh r's values lie from A's: d_i = 1 ± 0.1 (symmetrically_scaled).
constexpr double kRefreshAmplitude = 0.1;

struct RefreshRuns {
  std::vector<double> ms;                    // wall clock of each refresh() call
  std::vector<binamg::SetupTimings> phases;  // its phases (strength … tentative 0)
  std::vector<int> iterations;               // of the solve with the refreshed hierarchy
  std::vector<double> residuals;             // its true relative residual (the worst column's)
  bool converged = true;                     // every one of those solves

  double median_ms() const {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    return sorted[sorted.size() / 2];
  }
};

/// `count` refreshes: refresh r takes symmetrically_scaled(A, kRefreshAmplitude, r),
/// made and moved to the hierarchy's device by `upload` (untimed: the
/// application's new values), then `refresh_with(values)` (which refreshes
/// and returns the refresh's SetupTimings) is timed up to `settle()` (the
/// device's work done), then `solve()` (a BlockSolveResult) checks the hierarchy.
template <typename T, typename Upload, typename Settle, typename Refresh, typename Solve>
RefreshRuns time_refreshes(int count, const binamg::CsrMatrix<T>& A, Upload&& upload,
                           Settle&& settle, Refresh&& refresh_with, Solve&& solve) {
  RefreshRuns runs;
  for (int r = 1; r <= count; ++r) {
    auto values = upload(binamg::symmetrically_scaled(A, kRefreshAmplitude, double(r)));
    settle();
    const auto start = std::chrono::steady_clock::now();
    const binamg::SetupTimings phases = refresh_with(std::move(values));
    settle();
    runs.ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    runs.phases.push_back(phases);
    const auto solved = solve();
    runs.iterations.push_back(solved.max_iterations());
    double worst = 0;
    for (const binamg::SolveResult& column : solved.columns)
      worst = std::max(worst, column.relative_residual);
    runs.residuals.push_back(worst);
    runs.converged = runs.converged && solved.all_converged();
  }
  return runs;
}

inline std::string fixed2(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

/// One line per refresh, then the median against `setup_ms`; `gpu`: the first
/// refresh also keeps what the next ones reuse (DeviceHierarchy::refresh_products).
inline void print_refreshes(const RefreshRuns& runs, double setup_ms, bool gpu) {
  for (std::size_t r = 0; r < runs.ms.size(); ++r) {
    const binamg::SetupTimings& t = runs.phases[r];
    std::printf(
        "refresh %zu: %.2f ms (%sprepare %.2f, prolongator %.2f, restriction %.2f, galerkin "
        "%.2f, coarse factor %.2f), then %d iterations, true relative residual %.3e%s\n",
        r + 1, runs.ms[r],
        t.convert_ms > 0 ? ("convert " + fixed2(t.convert_ms) + ", ").c_str() : "", t.prepare_ms,
        t.prolongator_ms, t.restriction_ms, t.galerkin_ms, t.coarse_factor_ms, runs.iterations[r],
        runs.residuals[r], gpu && r == 0 ? " (the first keeps what the next ones reuse)" : "");
  }
  std::printf("median of %zu refreshes: %.2f ms, %.0f%% of the setup (%.2f ms); %s\n",
              runs.ms.size(), runs.median_ms(), 100 * runs.median_ms() / setup_ms, setup_ms,
              runs.converged ? "every solve after a refresh converged"
                             : "NOT every solve after a refresh converged");
}

/// ,"refresh_count":N,"refresh_ms":[...],"refresh_ms_median":..,"refresh_iterations":[...],
/// "refresh_converged":..,"refresh_relative_residuals":[...]
inline std::string refresh_json(const RefreshRuns& runs) {
  std::string json = ",\"refresh_count\":" + std::to_string(runs.ms.size());
  if (runs.ms.empty()) return json;
  json += ",\"refresh_ms\":[";
  for (std::size_t r = 0; r < runs.ms.size(); ++r)
    json += (r > 0 ? "," : "") + json_number(runs.ms[r]);
  json += "],\"refresh_ms_median\":" + json_number(runs.median_ms()) + ",\"refresh_iterations\":[";
  for (std::size_t r = 0; r < runs.iterations.size(); ++r)
    json += (r > 0 ? "," : "") + std::to_string(runs.iterations[r]);
  json += "],\"refresh_converged\":" + std::string(runs.converged ? "true" : "false") +
          ",\"refresh_relative_residuals\":[";
  for (std::size_t r = 0; r < runs.residuals.size(); ++r)
    json += (r > 0 ? "," : "") + json_number(runs.residuals[r]);
  return json + "]";
}

}  // namespace binamg::cli
