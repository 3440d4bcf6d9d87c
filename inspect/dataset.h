// Loading a Lance dataset directory (a base table or an SSTable under
// _mem_wal/): every manifest in its _versions/, decoded with the MemWAL system
// index's details.
#ifndef MEMWAL_INSPECT_DATASET_H_
#define MEMWAL_INSPECT_DATASET_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "inspect/report.h"

namespace memwal::inspect {

inline constexpr std::string_view kMemWalIndexName = "__lance_mem_wal";

// Every version of the dataset at `root`, ascending. NotFound if `root` has no
// _versions/ directory or no manifest in it; Corruption naming the file if one
// does not decode.
Result<std::vector<DatasetVersion>> LoadDataset(const std::string& root,
                                                Notes* notes);

}  // namespace memwal::inspect

#endif  // MEMWAL_INSPECT_DATASET_H_
