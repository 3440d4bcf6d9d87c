// Layering probe: impl/ may not see model/. Compiled with impl/'s include root,
// this include must fail. Built only by the ctest
// LayeringImplCannotIncludeModel.
#include "model/state.h"
