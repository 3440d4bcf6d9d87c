// Failure path of MEMWAL_ASSERT (base/assert.h), kept out of line so the check
// inlines small.
#include "base/assert.h"

#include <cstdio>
#include <cstdlib>

namespace memwal::internal {

void AssertFail(const char* expression, const char* file, int line) noexcept {
  std::fprintf(stderr, "%s:%d: MEMWAL_ASSERT(%s) failed\n", file, line,
               expression);
  std::fflush(stderr);
  std::abort();
}

}  // namespace memwal::internal
