// Control for LayeringImplCannotIncludeModel: checker/ may see model/, so the
// header that impl/ fails to find must be visible here. Otherwise that probe
// fails for a wrong reason.
#if !__has_include("model/state.h")
#error "model/state.h is not visible from checker/'s include root"
#endif
