// `memwal-check lance-diff`: ReadsMissNoRows decided by real Lance's reader
// (issue 39, docs/lance-diff.md). Seeded random walks on the model with the
// implementation in lockstep; at every visited state the implementation's
// table is written to a directory (impl::World::WriteTo: Lance data files and
// BTree index files) and one long-lived LanceDB 0.39 (Lance 12) process
// (tests/fixtures/lancedb/lance12/query_server.mjs) runs a query per query
// shape the model knows: a full scan for `plain`, a fast_search filter through
// index i for `index(i)`, through every present index for `all`. The rows it
// returns are compared with the model's: a difference is a finding, kept with
// the table, the trace and both row sets. With --corpus it checks every table
// a `corpus --tables` run wrote, at its entry's last state.
#ifndef MEMWAL_CHECKER_CLI_LANCE_DIFF_H_
#define MEMWAL_CHECKER_CLI_LANCE_DIFF_H_

#include <ostream>
#include <string>
#include <vector>

#include "base/flags.h"
#include "base/status.h"

namespace memwal::impl {
class World;
}  // namespace memwal::impl

namespace memwal::checker::cli {

std::string LanceDiffAbout();
std::vector<Flag> LanceDiffFlagTable();
int RunLanceDiffCommand(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err);

// Writes the tables `world` holds besides its own (a shallow clone's sources,
// "t0/", ...) as `dir`/t0/, ... with their Lance data and index files; returns
// their names ("t0/", ...). A clone's base paths are relative, so a reader
// finds them from `dir` as its working directory.
Result<std::vector<std::string>> WriteCloneSources(const impl::World& world,
                                                   const std::string& dir);

}  // namespace memwal::checker::cli

#endif  // MEMWAL_CHECKER_CLI_LANCE_DIFF_H_
