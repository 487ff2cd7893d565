// SolveMonitor::restart: a solve whose own residual met the tolerance goes on
// from b − Ax where that misses it narrowly (rounding drift), not where it
// misses it widely (the precision's floor), and only a bounded number of times.
// SolveMonitor::likely_active_after_next: the prediction the GPU pcg queues
// its next cycle by.
#include <gtest/gtest.h>

#include <limits>

#include "binamg/solvers/monitor.hpp"

namespace binamg {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

// A monitor for ‖b‖ = 1 whose iteration's own residual has just met 1e-8.
SolveMonitor stopped_at_the_tolerance(int max_iterations = 100) {
  SolveMonitor monitor("pcg", {1e-8, max_iterations}, 1.0, kEpsilon);
  monitor.start(1.0);
  monitor.step(1e-4);
  monitor.step(0.9e-8);
  EXPECT_FALSE(monitor.active());
  return monitor;
}

TEST(SolveMonitor, RestartsFromATrueResidualJustAboveTheTolerance) {
  SolveMonitor monitor = stopped_at_the_tolerance();
  EXPECT_TRUE(monitor.restart(1.02e-8));
  EXPECT_TRUE(monitor.active());
  EXPECT_EQ(monitor.iterations(), 2);  // a restart is no iteration
  monitor.step(0.5e-8);
  EXPECT_FALSE(monitor.restart(0.6e-8));  // b − Ax meets it: done
  const SolveResult result = monitor.finish(0.6e-8, 1.0);
  EXPECT_TRUE(result.converged);
  ASSERT_EQ(result.residual_history.size(), 4u);  // one per iteration and r_0
  EXPECT_EQ(result.residual_history[2], 1.02e-8);  // the true residual replaced the recurrence's
}

TEST(SolveMonitor, DoesNotRestartFromThePrecisionsFloor) {
  SolveMonitor monitor = stopped_at_the_tolerance();
  EXPECT_FALSE(monitor.restart(1e-4));  // 10^4 times the tolerance: more steps cannot reach it
  EXPECT_FALSE(monitor.active());
  const SolveResult result = monitor.finish(1e-4, 1.0);
  EXPECT_FALSE(result.converged);
  EXPECT_TRUE(result.stalled);
}

TEST(SolveMonitor, RestartsAtMostTwiceAndWithinTheIterationLimit) {
  SolveMonitor monitor = stopped_at_the_tolerance();
  for (int restart = 0; restart < SolveMonitor::kMaxRestarts; ++restart) {
    EXPECT_TRUE(monitor.restart(2e-8)) << restart;
    monitor.step(0.9e-8);
  }
  EXPECT_FALSE(monitor.restart(2e-8));
  EXPECT_TRUE(monitor.finish(2e-8, 1.0).stalled);

  SolveMonitor at_the_limit = stopped_at_the_tolerance(2);
  EXPECT_FALSE(at_the_limit.restart(2e-8));  // two iterations of two done
}

TEST(SolveMonitor, PredictsTheNextResidualFromTheLastTwo) {
  SolveMonitor monitor("pcg", {1e-8, 100}, 1.0, kEpsilon);
  monitor.start(1.0);
  EXPECT_FALSE(monitor.likely_active_after_next());  // one residual: no ratio yet
  monitor.step(1e-2);
  EXPECT_TRUE(monitor.likely_active_after_next());  // 1e-4 predicted
  monitor.step(1e-4);
  monitor.step(1e-6);
  EXPECT_FALSE(monitor.likely_active_after_next());  // 1e-8 predicted: within 4x the tolerance
  monitor.step(5e-7);
  EXPECT_TRUE(monitor.likely_active_after_next());  // slowed down: 2.5e-7 predicted
  monitor.step(1e-9);
  EXPECT_FALSE(monitor.active());
  EXPECT_FALSE(monitor.likely_active_after_next());  // stopped

  SolveMonitor at_the_limit("pcg", {1e-8, 2}, 1.0, kEpsilon);
  at_the_limit.start(1.0);
  at_the_limit.step(0.5);
  EXPECT_FALSE(at_the_limit.likely_active_after_next());  // the next is the last allowed
}

TEST(SolveMonitor, DoesNotRestartWhereTheIterationDidNotMeetTheTolerance) {
  SolveMonitor monitor("pcg", {1e-8, 3}, 1.0, kEpsilon);
  monitor.start(1.0);
  for (int i = 0; i < 3; ++i) monitor.step(1e-3);  // the limit stopped it
  EXPECT_FALSE(monitor.restart(2e-8));
  SolveMonitor zero("pcg", {1e-8, 100}, 0.0, kEpsilon);
  EXPECT_FALSE(zero.restart(0.0));  // b = 0: x = 0 solved it
}

}  // namespace
}  // namespace binamg
