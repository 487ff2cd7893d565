#pragma once
// The V-cycle's smoothing step on one level, for both devices (internal):
// the level's smoother `sweeps` times. Jacobi and l1-Jacobi differ only in the
// inverse diagonal and weight the setup stored in the level.
#include "binamg/amg/parameters.hpp"
#include "binamg/smoothers/chebyshev.hpp"
#include "binamg/smoothers/jacobi.hpp"

namespace binamg::smoother_detail {

/// With zero_guess x's old contents are ignored. `scratch` and `direction` are
/// the level's workspace (direction used by Chebyshev only); `stream` is the
/// device's stream, absent on the host.
template <typename Level, typename Vector, typename... Stream>
void smooth(const AmgParameters& parameters, const Level& level, const Vector& b, Vector& x,
            index_t k, int sweeps, bool zero_guess, Vector& scratch, Vector& direction,
            Stream... stream) {
  if (parameters.smoother == SmootherKind::chebyshev && sweeps > 0) {
    const ChebyshevSteps steps = chebyshev_steps(level.spectral_radius, parameters.chebyshev_degree,
                                                 parameters.chebyshev_lower);
    for (int sweep = 0; sweep < sweeps; ++sweep)
      chebyshev(level.A, level.inverse_diagonal, steps, b, x, k, zero_guess && sweep == 0, scratch,
                direction, stream...);
    return;
  }
  if (zero_guess)
    jacobi_from_zero(level.A, level.inverse_diagonal, level.jacobi_weight, b, x, k, sweeps, scratch,
                     stream...);
  else
    jacobi(level.A, level.inverse_diagonal, level.jacobi_weight, b, x, k, sweeps, scratch,
           stream...);
}

}  // namespace binamg::smoother_detail
