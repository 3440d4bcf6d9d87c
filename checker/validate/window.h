// A window of consecutive versions of a loaded table in the model's terms.
//
// The model's state holds at most model::kVersionsMax versions and
// model::kFragmentsMax fragment ids, so a long table is validated step by
// step on a sliding window: the versions from the oldest one the step needs
// (the transaction's read version, a Restore's target) to the new one.
// Inside a window, version numbers become 1..k and fragment ids 0..m-1 in
// order (the renumbering model::FoldVersions does, R70: every guard and
// effect compares numbers and ids only by order and equality), and the
// window's versions are abstracted by lockstep's one abstraction function
// (checker/lockstep/refinement.h AbstractVersions, AbstractPersisted's code
// over given versions), so a window is abstracted exactly as lockstep
// abstracts the implementation: ops included, from the transaction files
// (renumbered with the window).
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

struct Window {
  // Renumbered: version numbers, live fragments, segment covers,
  // max_fragment_id and the fragment ids the transaction files name.
  std::vector<impl::TableVersion> versions;
  impl::RowsView rows;              // renumbered (no clone sources)
  std::vector<uint64_t> numbers;    // the table's version number by position
  std::vector<uint64_t> fragments;  // the table's fragment id by window id
  lockstep::ShardNumbers shards;    // the table's shard uuids
};

// Versions [first, last] of `table` (indices into table.versions; each must
// have a decoded table). Unrepresentable (with the reason) when the window
// names more fragment ids than the model holds.
Result<Window> MakeWindow(const LoadedTable& table, std::size_t first,
                          std::size_t last);

// The window without its last version (rows of fragments only it names are
// dropped).
Window WithoutLast(const Window& window);

// The window in model terms: lockstep::AbstractVersions on its versions and
// rows (versions with their ops, next_fragment, rows per fragment). From
// `ghost`, the chain the model explained so far, come only the fields a
// window's bytes cannot hold: the table-wide history before the window
// (committed, activated, foreign_legacy, deleted), the WAL at the window's
// head (the table directory holds only the WAL's final shard manifests:
// flushed, retired, pending), the in-flight list (nothing is staged in a
// directory) and retire_cover (docs/ghost-fields.md). `rows_known` false (the
// reader could not read the rows): the rows per fragment come from `ghost`
// too.
Result<model::State> AbstractWindow(const model::Config& config,
                                    const Window& window,
                                    const model::State& ghost, bool rows_known);

}  // namespace memwal::checker::validate

#endif  // MEMWAL_CHECKER_VALIDATE_WINDOW_H_
