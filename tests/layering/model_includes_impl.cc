// Layering probe: model/ may not see impl/. Compiled with model/'s include
// root, this include must fail. Built only by the ctest
// LayeringModelCannotIncludeImpl.
#include "impl/store.h"
