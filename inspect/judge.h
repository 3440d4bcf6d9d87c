// What inspect concludes from the decoded table: the protocol its writer
// followed, notes on feature bits, the read side (spec R40) per shard, query
// shape and read mode, the retirement rule (R12) per listed SSTable, and the
// checks of spec section 9 that one table on disk can answer (checks.cc).
// Read-side and retirement verdicts come from impl/read.h, the reference
// implementation of R40 and R12, applied to views built from the decoded
// manifests.
#ifndef MEMWAL_INSPECT_JUDGE_H_
#define MEMWAL_INSPECT_JUDGE_H_

#include <optional>
#include <string>

#include "impl/catchup.h"
#include "impl/read.h"
#include "inspect/report.h"

namespace memwal::inspect {

// Sets report->protocol: `given` if set, else from the inspected version's
// writer_version: Lance before v11.0.0-beta.4 `legacy` (no catch-up bit; bit
// 128 unknown to it), beta.4-5 `advance`, beta.6-17 `derived`, later
// `unconditional` (bit 128 is covering-index metadata there). A writer that is
// not Lance: `derived` if some version carries bit 128, else `legacy`.
void InferProtocol(std::optional<impl::Protocol> given, TableReport* report);

// Fills notes on feature bits, watermarks, retirements and checks.
void Judge(TableReport* report);

// The read side's view of one version (raw shard uuids, user index names).
impl::VersionView ViewOf(const DatasetVersion& version);

// Spec section 9 checks and the consistency checks of the MemWAL layout
// (checks.cc).
void AddChecks(TableReport* report);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_JUDGE_H_
