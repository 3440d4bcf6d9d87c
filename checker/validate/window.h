// A window of consecutive versions of a loaded table in the model's terms.
//
// The model's state holds at most model::kVersionsMax versions and
// model::kFragmentsMax fragment ids, so a long table is validated step by
// step on a sliding window: the versions from the oldest one the step needs
// (the transaction's read version, a Restore's target) to the new one.
// Inside a window, version numbers become 1..k and fragment ids 0..m-1 in
// order (the renumbering model::FoldVersions does, R70: every guard and
// effect compares numbers and ids only by order and equality), and the
// window's versions are abstracted by lockstep's abstraction
// (checker/lockstep/refinement.h Abstract), so a window is abstracted exactly
// as lockstep abstracts the implementation.
#ifndef MEMWAL_CHECKER_VALIDATE_WINDOW_H_
#define MEMWAL_CHECKER_VALIDATE_WINDOW_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "checker/lockstep/refinement.h"
#include "checker/validate/load.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::checker::validate {

// A version's op as the model explained it, with fragment ids in the table's
// own numbering (so that it can be placed in any later window).
struct StoredOp {
  model::Op op;
  std::vector<uint64_t> fragments;
  std::vector<uint64_t> new_covers;
};

struct Window {
  lockstep::ImplSnapshot snapshot;  // renumbered
  std::vector<uint64_t> numbers;    // the table's version number by position
  std::vector<uint64_t> fragments;  // the table's fragment id by window id
};

// Versions [first, last] of `table` (indices into table.versions; each must
// have a decoded table). Unrepresentable (with the reason) when the window
// names more fragment ids than the model holds.
Result<Window> MakeWindow(const LoadedTable& table, std::size_t first,
                          std::size_t last);

// The window without its last version (rows of fragments only it names are
// dropped).
Window WithoutLast(const Window& window);

// The window in model terms: lockstep's abstraction of its versions, WAL and
// rows, with `ghost` supplying what the bytes do not hold (activated,
// retire_cover, foreign_legacy, deleted, committed, the in-flight list; see
// checker/lockstep/refinement.h) and the WAL (flushed, retired, pending),
// and each version's op from `ops` where the model explained it. `rows_known`
// false: the rows per fragment come from `ghost` too.
Result<model::State> AbstractWindow(const model::Config& config,
                                    const Window& window,
                                    const model::State& ghost,
                                    const std::map<uint64_t, StoredOp>& ops,
                                    bool rows_known);

// `state`'s head op in the table's fragment numbering.
StoredOp StoreOp(const model::Op& op, const Window& window);

}  // namespace memwal::checker::validate

#endif  // MEMWAL_CHECKER_VALIDATE_WINDOW_H_
