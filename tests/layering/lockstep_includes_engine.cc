// Layering probe: checker/lockstep/ may not see checker/engine/. Compiled with
// the lockstep part's include root, this include must fail. Built only by the
// ctest LayeringLockstepCannotIncludeEngine.
#include "checker/engine/search.h"
