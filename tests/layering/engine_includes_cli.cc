// Layering probe: checker/engine/ may not see checker/cli/ (the parts of
// checker/ see only the parts below them, cmake/memwal.cmake). Compiled with
// the engine's include root, this include must fail. Built only by the ctest
// LayeringEngineCannotIncludeCli.
#include "checker/cli/check.h"
