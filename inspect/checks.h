// Internal to inspect/: the pieces the check files (checks.cc,
// history_checks.cc, layout_checks.cc) share. A check is ok, or a finding whose
// reason lists what was found.
#ifndef MEMWAL_INSPECT_CHECKS_H_
#define MEMWAL_INSPECT_CHECKS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "inspect/report.h"

namespace memwal::inspect {

using Reasons = std::vector<std::string>;

// Appends check `name`: ok with `ok_reason` when `findings` is empty, else a
// finding.
void AddCheck(TableReport* report, std::string name, const Reasons& findings,
              std::string ok_reason);

// Transaction oneof tags [P §1.3].
inline constexpr uint32_t kOpAppend = 100;
inline constexpr uint32_t kOpOverwrite = 102;
inline constexpr uint32_t kOpCreateIndex = 103;
inline constexpr uint32_t kOpRestore = 106;
inline constexpr uint32_t kOpUpdate = 108;
inline constexpr uint32_t kOpUpdateMemWalState = 112;

// "version N".
std::string VersionName(const DatasetVersion& version);
// The operation that produced `version`; 0 when its transaction is unknown.
uint32_t OperationOf(const DatasetVersion& version);
bool IsActivation(const DatasetVersion& version);
bool IsBitProtocol(impl::Protocol protocol);
// compacted_sstables by raw shard uuid, first entry per shard (as Lance reads
// it).
std::map<std::string, uint64_t> CompactedByShard(const DatasetVersion& version);
// index_catchup by index name then raw shard, first entry of each.
std::map<std::string, std::map<std::string, uint64_t>> CatchupByIndex(
    const DatasetVersion& version);

void AddHistoryChecks(TableReport* report);
void AddLayoutChecks(TableReport* report);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_CHECKS_H_
