// Names of the variant switches and the known-bug table (spec/protocol.md
// sections 1 and 8).
#include "model/config.h"

#include <array>

namespace memwal::model {
namespace {

constexpr std::array<std::string_view, 4> kProtocolNames = {
    "derived", "advance", "unconditional", "legacy"};
constexpr std::array<std::string_view, 3> kReadNames = {"strict", "min",
                                                        "single-index"};
constexpr std::array<std::string_view, 3> kGcNames = {"atomic", "stale-read",
                                                      "recheck"};
constexpr std::array<std::string_view, 2> kEnvNames = {"none", "foreign"};

template <std::size_t N>
std::vector<std::string_view> Spellings(
    const std::array<std::string_view, N>& names) {
  return {names.begin(), names.end()};
}

// The four switches with typed Config fields (model/switches.h).
const Switch kProtocolSwitch =
    Switch::Typed<&Config::protocol>({.name = "protocol",
                                      .values = Spellings(kProtocolNames),
                                      .rank = 0,
                                      .always_shown = true});
const Switch kReadSwitch =
    Switch::Typed<&Config::read>({.name = "read",
                                  .values = Spellings(kReadNames),
                                  .rank = 1,
                                  .always_shown = true});
const Switch kGcSwitch =
    Switch::Typed<&Config::gc>({.name = "gc",
                                .values = Spellings(kGcNames),
                                .rank = 2,
                                .always_shown = true});
const Switch kEnvSwitch = Switch::Typed<&Config::env>(
    {.name = "env",
     .values = Spellings(kEnvNames),
     .help = "add the environment actions of\nspec section 10 "
             "(ForeignHalfSet, CallerAdvance, ResetMemWal,\nDropMemWal, "
             "ForeignCompaction)",
     .rank = 3,
     .model_only = true});

// Spec section 8, row by row. For a model bug `reason` is the expected
// violation; for an impl-only bug it is the spec's reason why no model action
// can produce it.
constexpr std::array<BugInfo, kBugCount> kBugs = {{
    {Bug::kBitDroppedByNewFromPrevious, "bit-dropped-by-new-from-previous",
     "R35.4 does not inherit the bit from the head; it survives only on the "
     "activating commit",
     "bit", true, "ActivationIsPermanent", false},
    {Bug::kBitClearedBySecondApply, "bit-cleared-by-second-apply",
     "apply_feature_flags does not carry bit 128, so the write-time apply "
     "(R35.5) clears it",
     "bit", true, "ActivationIsPermanent", false},
    {Bug::kShallowCloneZeroesBits, "shallow-clone-zeroes-bits",
     "R37 zeroes both feature words of the clone", "bit", true,
     "ActivationIsPermanent", false},
    {Bug::kRestoreWalksBack, "restore-walks-back",
     "R36 neither refuses an older version nor inherits the head's bits", "bit",
     true, "ActivationIsPermanent", false},
    {Bug::kHalfSetFolded, "half-set-folded",
     "a half-set head or restored version is completed to both bits instead of "
     "refused",
     "bit", false,
     "no action of env none produces a half-set manifest; env foreign's "
     "ForeignHalfSet (R60) does",
     false},
    {Bug::kUnchangedByUuidOnly, "unchanged-by-uuid-only",
     "\"unchanged\" compares segment uuids only, not their covers",
     "derived, advance", true, "CatchupWithinCoverage, ReadsMissNoRows", false},
    {Bug::kAdvanceWithoutInspected, "advance-without-inspected",
     "R34 skips the check inspected <= union of covers", "advance", false,
     "the model's own repair always covers what it inspected; env foreign's "
     "CallerAdvance (R61) does not",
     false},
    {Bug::kAdvanceBoundAtCommit, "advance-bound-at-commit",
     "the advance claim is taken from the head's progress at commit, not the "
     "read version's",
     "advance", true, "CatchupWithinCoverage", false},
    {Bug::kNoWorkRepairRecordsNothing, "no-work-repair-records-nothing",
     "a repair with no new segment commits nothing", "derived, advance", true,
     "CompactedGenerationsEventuallyRetire (liveness)", true},
    {Bug::kClaimPastReadVersion, "claim-past-read-version",
     "the derived credit uses the head's progress instead of the read "
     "version's",
     "derived", true, "CatchupWithinCoverage", false},
    {Bug::kInvalidationOnLegacy, "invalidation-on-legacy",
     "withdrawal runs on a table without the bit", "bit", false,
     "under env none a table without the bit carries no positions; env "
     "foreign's ForeignCompaction (R64) records some",
     false},
    {Bug::kAdvanceDroppedWithoutSystemIndex,
     "advance-dropped-without-system-index",
     "an advance on a table without __lance_mem_wal is dropped, not refused",
     "advance", false,
     "under env none the system index always exists; env foreign's "
     "DropMemWal (R63) drops it",
     false},
    {Bug::kAdvanceReplacesPosition, "advance-replaces-position",
     "the advance merge replaces the old entry (erasing other shards, moving "
     "backward)",
     "advance", false,
     "the model's own repair claims every shard with progress at its read "
     "version; env foreign's CallerAdvance (R61) claims fewer or lower",
     false},
    {Bug::kRepairSpansLiveAtCommit, "repair-spans-live-at-commit",
     "advance validation requires covering every fragment live at commit",
     "advance", true,
     "CompactedGenerationsEventuallyRetire (liveness under continuous appends)",
     true},
    {Bug::kProgressCommitDropsFragments, "progress-commit-drops-fragments",
     "UpdateMemWalState publishes an empty fragment list", "all", true,
     "NoRowIsLost", false},
    {Bug::kIndexWorkPerTransaction, "index-work-per-transaction",
     "advance validation decides \"index work published\" once per transaction",
     "advance", false,
     "the model's own transaction carries one advance; env foreign's "
     "CallerAdvance (R61) carries two",
     false},
    {Bug::kCoveragePastCompaction, "coverage-past-compaction",
     "the derivation does not clamp to the commit's own progress", "derived",
     false,
     "under env none the clamp never binds (a commit rebased over a Restore "
     "is refused); env foreign's ResetMemWal (R62) makes it bind",
     false},
    {Bug::kSingleIndexWatermark, "single-index-watermark",
     "the reader caps the watermark by the first index only (same as --read "
     "single-index)",
     "all", true, "ReadsMissNoRows", false},
    {Bug::kReaderIgnoresBit, "reader-ignores-bit",
     "the strict reader treats a missing entry as no cap", "bit", true,
     "ReadsMissNoRows", false},
    {Bug::kBitsOneWord, "bits-one-word",
     "the write path sets the catch-up bit in the writer word only", "bit",
     false,
     "the model's versions carry one bit pair (reader_bit, writer_bit) that "
     "its writers set together; only a foreign writer (R60) splits them",
     false},
    {Bug::kProgressRegresses, "progress-regresses",
     "a progress update starts from the read version's compacted_sstables, "
     "not the head's (another shard's progress goes back)",
     "all", false,
     "the model's R32 merge starts from the head by construction; only the "
     "implementation's merge can start elsewhere",
     false},
}};

template <typename Enum, std::size_t N>
Result<Enum> ParseName(const std::array<std::string_view, N>& names,
                       std::string_view what, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) expected += ", ";
    expected += names[i];
  }
  return Status::InvalidArgument("unknown " + std::string(what) + " '" +
                                 std::string(name) + "' (expected " + expected +
                                 ")");
}

}  // namespace

std::span<const BugInfo> AllBugs() { return kBugs; }

const BugInfo& Info(Bug bug) {
  const auto index = static_cast<std::size_t>(bug);
  MEMWAL_ASSERT(index < kBugs.size());
  MEMWAL_ASSERT(kBugs[index].bug == bug);
  return kBugs[index];
}

Result<Protocol> ParseProtocol(std::string_view name) {
  return ParseName<Protocol>(kProtocolNames, "protocol", name);
}
Result<ReadMode> ParseReadMode(std::string_view name) {
  return ParseName<ReadMode>(kReadNames, "read mode", name);
}
Result<GcMode> ParseGcMode(std::string_view name) {
  return ParseName<GcMode>(kGcNames, "gc mode", name);
}

Result<Env> ParseEnv(std::string_view name) {
  return ParseName<Env>(kEnvNames, "env", name);
}

Env RequiredEnv(Bug bug) {
  switch (bug) {
    case Bug::kHalfSetFolded:
    case Bug::kAdvanceWithoutInspected:
    case Bug::kAdvanceReplacesPosition:
    case Bug::kIndexWorkPerTransaction:
    case Bug::kCoveragePastCompaction:
    case Bug::kAdvanceDroppedWithoutSystemIndex:
    case Bug::kInvalidationOnLegacy:
      return Env::kForeign;
    default:
      return Env::kNone;
  }
}

Result<Bug> ParseBug(std::string_view name) {
  for (const BugInfo& info : kBugs) {
    if (info.name == name) return info.bug;
  }
  return Status::InvalidArgument(
      "unknown bug '" + std::string(name) +
      "' (see memwal-check check --help for the list)");
}

std::string_view Name(Protocol protocol) {
  return kProtocolNames.at(static_cast<std::size_t>(protocol));
}
std::string_view Name(ReadMode read) {
  return kReadNames.at(static_cast<std::size_t>(read));
}
std::string_view Name(GcMode gc) {
  return kGcNames.at(static_cast<std::size_t>(gc));
}
std::string_view Name(Env env) {
  return kEnvNames.at(static_cast<std::size_t>(env));
}
std::string_view Name(Bug bug) { return Info(bug).name; }

Status CheckConfig(const Config& config) {
  MEMWAL_RETURN_IF_ERROR(CheckBounds(config.bounds));
  if ((config.bugs >> kBugCount) != 0) {
    return Status::InvalidArgument("unknown bug bit in config");
  }
  return Status::Ok();
}

std::string ToString(const Config& config) {
  std::string bugs;
  for (const BugInfo& info : kBugs) {
    if (!Has(config, info.bug)) continue;
    if (!bugs.empty()) bugs += ",";
    bugs += info.name;
  }
  const Bounds& b = config.bounds;
  std::string switches;
  for (const Switch& variant : AllSwitches()) {
    if (!variant.info().always_shown && variant.IsDefault(config)) continue;
    if (!switches.empty()) switches.push_back(' ');
    switches.append(variant.info().name);
    switches.push_back('=');
    switches.append(variant.Spelling(config));
  }
  return switches + " bugs=" + (bugs.empty() ? std::string("none") : bugs) +
         " bounds=" + std::string(PresetName(b)) +
         "(shards=" + std::to_string(b.shards) +
         " generations=" + std::to_string(b.generations) +
         " fragments=" + std::to_string(b.fragments) +
         " indexes=" + std::to_string(b.indexes) +
         " commits=" + std::to_string(b.commits) +
         " inflight=" + std::to_string(b.inflight) +
         (b.reinstalls != 0 ? " reinstalls=" + std::to_string(b.reinstalls)
                            : std::string()) +
         ")";
}

std::vector<Protocol> ProtocolsOf(const BugInfo& info) {
  const std::string_view protocols = info.protocols;
  if (protocols == "all") {
    return {Protocol::kDerived, Protocol::kAdvance, Protocol::kUnconditional,
            Protocol::kLegacy};
  }
  if (protocols == "bit") return {Protocol::kDerived, Protocol::kAdvance};
  std::vector<Protocol> out;
  std::size_t start = 0;
  while (start < protocols.size()) {
    std::size_t end = protocols.find(',', start);
    if (end == std::string_view::npos) end = protocols.size();
    std::string_view name = protocols.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    const Result<Protocol> parsed = ParseProtocol(name);
    MEMWAL_ASSERT(parsed.ok() && "a bug row names an unknown protocol");
    out.push_back(*parsed);
    start = end + 1;
  }
  return out;
}

bool BugApplies(const BugInfo& info, Protocol protocol) {
  for (const Protocol p : ProtocolsOf(info)) {
    if (p == protocol) return true;
  }
  return false;
}

Protocol ProtocolFor(const BugInfo& info, Protocol base) {
  if (BugApplies(info, base)) return base;
  const std::vector<Protocol> listed = ProtocolsOf(info);
  return listed.empty() ? base : listed.front();
}

}  // namespace memwal::model
