// MEMWAL_ASSERT must fire in every build type. This file defines NDEBUG itself,
// so the test proves that even when the Debug build is used.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "base/assert.h"

#include <gtest/gtest.h>

namespace memwal {
namespace {

TEST(AssertDeathTest, AbortsWithTheExpressionFileAndLineEvenUnderNdebug) {
  EXPECT_DEATH(
      MEMWAL_ASSERT(1 + 1 == 3),
      "assert_test\\.cc:[0-9]+: MEMWAL_ASSERT\\(1 \\+ 1 == 3\\) failed");
}

TEST(Assert, EvaluatesItsConditionExactlyOnce) {
  int evaluations = 0;
  MEMWAL_ASSERT(++evaluations == 1);
  EXPECT_EQ(evaluations, 1);
}

}  // namespace
}  // namespace memwal
