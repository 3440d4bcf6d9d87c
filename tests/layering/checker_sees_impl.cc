// Control for LayeringModelCannotIncludeImpl: checker/ may see impl/, so the
// header that model/ fails to find must be visible here. Otherwise that probe
// fails for a wrong reason.
#if !__has_include("impl/store.h")
#error "impl/store.h is not visible from checker/'s include root"
#endif
