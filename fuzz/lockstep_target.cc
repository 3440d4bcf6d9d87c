// Fuzz target: bytes -> action sequence (checker/cli/corpus.h's binary form) ->
// the model and the implementation in lockstep (checker/lockstep/lockstep.h). After
// every step every invariant is checked on the implementation's persisted
// state and on the model, and ImplementationMatchesModel compares the two; a
// finding prints the trace and aborts, which libFuzzer and AFL++ report as a
// crash.
//
// Switches (flags start with "--", so libFuzzer ignores them; environment for
// harnesses that cannot pass flags):
//   --impl-bug=NAME  / MEMWAL_FUZZ_IMPL_BUG=NAME[,NAME]  bug in impl only
//   --bug=NAME       / MEMWAL_FUZZ_BUG=NAME[,NAME]       bug in both
//   --expect-finding  (replay executable only) do not abort; exit 0 iff some
//                     input produced a finding, 1 otherwise
//   --impl-findings-only / MEMWAL_FUZZ_IMPL_FINDINGS_ONLY=1  ignore a finding
//                     the model alone makes too (legacy's missed rows, the
//                     spec's stale data pass): fuzz for implementation bugs
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "checker/cli/corpus.h"
#include "checker/lockstep/lockstep.h"
#include "model/config.h"

namespace {

using memwal::checker::cli::CorpusEntry;

struct Switches {
  uint32_t bugs = 0;
  uint32_t impl_bugs = 0;
  bool expect_finding = false;
  bool impl_findings_only = false;
  std::size_t findings = 0;
};
Switches switches;  // set once by LLVMFuzzerInitialize

// Adds every comma-separated bug name of `names` to `bits`; exits 2 on an
// unknown name (a harness misconfiguration, not a finding).
void AddBugs(std::string_view names, uint32_t* bits) {
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    const auto bug = memwal::model::ParseBug(name);
    if (!bug.ok()) {
      std::fprintf(stderr, "lockstep target: %s\n",
                   bug.status().message().c_str());
      std::exit(2);
    }
    *bits |= memwal::model::BugBit(*bug);
    names = comma == std::string_view::npos ? "" : names.substr(comma + 1);
  }
}

void ReadSwitches(int argc, char** argv) {
  if (const char* env = std::getenv("MEMWAL_FUZZ_IMPL_BUG"))
    AddBugs(env, &switches.impl_bugs);
  if (const char* env = std::getenv("MEMWAL_FUZZ_BUG"))
    AddBugs(env, &switches.bugs);
  if (const char* env = std::getenv("MEMWAL_FUZZ_IMPL_FINDINGS_ONLY"))
    switches.impl_findings_only = std::string_view(env) == "1";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.rfind("--impl-bug=", 0) == 0)
      AddBugs(arg.substr(11), &switches.impl_bugs);
    if (arg.rfind("--bug=", 0) == 0) AddBugs(arg.substr(6), &switches.bugs);
    if (arg == "--expect-finding") switches.expect_finding = true;
    if (arg == "--impl-findings-only") switches.impl_findings_only = true;
  }
}

void Report(const CorpusEntry& entry,
            const memwal::checker::lockstep::ReplayResult& result) {
  std::fprintf(stderr, "lockstep finding: %s at step %zu under %s\n%s\n",
               result.finding->invariant.c_str(), result.step,
               memwal::model::ToString(entry.config).c_str(),
               result.finding->detail.c_str());
  for (std::size_t k = 0; k < result.step && k < entry.steps.size(); ++k) {
    std::fprintf(stderr, "  %zu: %s\n", k + 1,
                 memwal::model::ToString(entry.steps[k]).c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  ReadSwitches(*argc, *argv);
  return 0;
}

extern "C" int MemwalReplayExitCode() {
  if (!switches.expect_finding) return 0;
  std::fprintf(stderr, "lockstep target: %zu inputs with a finding\n",
               switches.findings);
  return switches.findings > 0 ? 0 : 1;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const CorpusEntry entry = memwal::checker::cli::DecodeCorpusEntry(
      std::string_view(reinterpret_cast<const char*>(data), size),
      switches.bugs);
  const memwal::checker::lockstep::LockstepSetup setup{
      .config = entry.config, .impl_only_bugs = switches.impl_bugs, .seed = 0};
  const auto result =
      memwal::checker::lockstep::ReplayLockstep(setup, entry.steps, false);
  if (!result.ok()) {
    // Decoding picks enabled actions only, so the model refusing a step is a
    // bug in the decoder.
    std::fprintf(stderr, "lockstep target: %s\n",
                 result.status().message().c_str());
    std::abort();
  }
  if (!result->finding) return 0;
  if (switches.impl_findings_only) {
    const auto model_alone =
        memwal::checker::lockstep::ReplayLockstep(setup, entry.steps, true);
    if (model_alone.ok() && model_alone->finding &&
        model_alone->finding->invariant == result->finding->invariant) {
      return 0;
    }
  }
  ++switches.findings;
  if (switches.expect_finding) return 0;
  Report(entry, *result);
  std::abort();
}
