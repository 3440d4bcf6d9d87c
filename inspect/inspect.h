// `memwal-check inspect`: reads a Lance table directory as it is on disk (every
// manifest in _versions/, the MemWAL system index, every shard manifest and
// SSTable under _mem_wal/) and reports it together with the read side (spec
// R40), the retirement rule (R12) and the invariants of spec section 9 that one
// table on disk can answer. Read-only.
#ifndef MEMWAL_INSPECT_INSPECT_H_
#define MEMWAL_INSPECT_INSPECT_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "impl/catchup.h"
#include "inspect/report.h"

namespace memwal::inspect {

struct InspectOptions {
  std::optional<uint64_t> version;  // Default: the newest version.
  std::optional<impl::Protocol>
      protocol;  // Default: inferred from the writer version.
};

// Reads `table_dir` at `version` (the newest if nullopt). Errors (NotFound,
// Corruption, IoError) name the file and what is wrong in one line; findings
// and notes are not errors.
Result<TableReport> Inspect(const std::string& table_dir,
                            std::optional<uint64_t> version);
Result<TableReport> Inspect(const std::string& table_dir,
                            const InspectOptions& options);

// The CLI: `inspect TABLE_DIR [--version N] [--json] [--protocol NAME]` (args
// exclude the program and subcommand names). Returns 0 when the table was read
// (findings included), 2 on bad usage or unreadable/corrupt input, with exactly
// one line on `err`.
int RunInspectCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err);
// Its row in memwal-check's command table (checker/cli/commands.h).
std::string InspectAbout();
std::vector<Flag> InspectFlagTable();

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_INSPECT_H_
