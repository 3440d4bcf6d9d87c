// `memwal-check lance-diff`; see lance_diff.h.
#include "checker/cli/lance_diff.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/flags.h"
#include "base/status.h"
#include "checker/cli/cli.h"
#include "checker/cli/commands.h"
#include "checker/lockstep/lockstep.h"
#include "checker/report/trace_reader.h"
#include "impl/directory_store.h"
#include "impl/lance_export.h"
#include "impl/table.h"
#include "model/actions.h"
#include "model/read.h"
#include "model/state.h"
#include "model/switches.h"

namespace memwal::checker::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

#ifndef MEMWAL_LANCEDB12_DIR
#define MEMWAL_LANCEDB12_DIR ""
#endif

struct Options {
  model::Config config{};
  uint64_t seed = 0;
  uint64_t budget = 40;  // states visited
  int depth = 8;         // steps per walk before a new walk from Init
  std::string lancedb = MEMWAL_LANCEDB12_DIR;
  std::string keep = "lance-diff-findings";
  // --trace: check every state along these steps (from the trace's config)
  // instead of random walks.
  std::optional<std::vector<model::Action>> steps;
  model::Config trace_config{};
  // --corpus: the tables a `corpus --tables` run wrote, instead of walks.
  std::string corpus;
};

// One long-lived `node query_server.mjs`: a request line in, an answer line
// out.
class QueryServer {
 public:
  // The process runs in `cwd`, where a shallow clone's relative base path
  // ("t0/") resolves.
  static Result<std::unique_ptr<QueryServer>> Start(const std::string& dir,
                                                    const std::string& cwd) {
    const std::string script = fs::absolute(dir).string() + "/query_server.mjs";
    if (!fs::exists(script) || !fs::exists(dir + "/node_modules/@lancedb"))
      return Status::FailedPrecondition(
          "no LanceDB 0.39 in " + dir +
          " (./memwal test installs it; or pass --lancedb DIR)");
    int in[2];
    int out[2];
    if (pipe(in) != 0 || pipe(out) != 0)
      return Status::FailedPrecondition("cannot make a pipe");
    const pid_t pid = fork();
    if (pid < 0) return Status::FailedPrecondition("cannot fork");
    if (pid == 0) {
      if (chdir(cwd.c_str()) != 0) _exit(127);
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execlp("node", "node", script.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    auto server = std::unique_ptr<QueryServer>(new QueryServer());
    server->pid_ = pid;
    server->to_ = fdopen(in[1], "w");
    server->from_ = fdopen(out[0], "r");
    return server;
  }
  ~QueryServer() {
    if (to_ != nullptr) fclose(to_);
    if (from_ != nullptr) fclose(from_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }
  Result<json> Ask(const json& request) {
    const std::string line = request.dump() + "\n";
    if (fputs(line.c_str(), to_) < 0 || fflush(to_) != 0)
      return Status::FailedPrecondition("the query server is gone");
    std::string answer;
    for (int c = fgetc(from_); c != EOF && c != '\n'; c = fgetc(from_))
      answer.push_back(static_cast<char>(c));
    if (answer.empty())
      return Status::FailedPrecondition("the query server did not answer");
    json parsed = json::parse(answer, nullptr, false);
    if (parsed.is_discarded())
      return Status::FailedPrecondition("the query server's answer: " + answer);
    return parsed;
  }

 private:
  QueryServer() = default;
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
};

std::string ShapeName(const model::Config& config, model::QueryShape shape,
                      bool last) {
  if (shape.uses == 0) return "plain";
  if (last) return "all";
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (model::Contains(shape.uses, i))
      return std::string("index(").append(std::to_string(i)) + ")";
  }
  return "?";
}

// The model's MemWAL rows a query of `shape` reads from the base table: those
// held by live fragments of the head that every index of the shape covers.
model::RowSet HeldRows(const model::State& state, model::QueryShape shape,
                       int indexes) {
  const model::Version& head = model::Head(state);
  model::FragmentSet fragments = head.live;
  for (int i = 0; i < indexes; ++i) {
    if (model::Contains(shape.uses, i)) fragments &= model::CoveredBy(head, i);
  }
  model::RowSet rows = 0;
  for (int f = 0; f < model::kFragmentsMax; ++f) {
    if (model::Contains(fragments, f)) rows |= state.rows[f];
  }
  return rows;
}

json RowList(model::RowSet rows) {
  json out = json::array();
  for (int s = 0; s < model::kShardsMax; ++s) {
    for (int g = 1; g <= model::kGenerationsMax; ++g) {
      if (s * model::kGenerationsMax + g - 1 < 8 &&
          (rows & model::RowBit(s, g)) != 0)
        out.push_back(json::array({s, g}));
    }
  }
  return out;
}

std::vector<std::string> ShardUuids(const impl::World& world) {
  std::vector<std::string> uuids;
  for (uint32_t s = 0; s < world.options().shards; ++s)
    uuids.push_back(world.shard_uuid(s));
  return uuids;
}

// The rows the model's reader is served from flushed generations for a
// query of `shape` (R40): flushed, not retired, above the shape's watermark.
model::RowSet ServedRows(const model::Config& config, const model::State& state,
                         model::QueryShape shape) {
  model::RowSet rows = 0;
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= state.flushed[s]; ++g) {
      if (model::Served(config, state, shape, s, g))
        rows |= model::RowBit(s, g);
    }
  }
  return rows;
}

struct Counts {
  uint64_t states = 0;
  uint64_t queries = 0;
  uint64_t findings = 0;
  // Indexed queries on the table as written whose rows differ from the
  // model's R40 reading of the shape (see CheckState).
  uint64_t scalar_path_differs = 0;
  std::string scalar_path_first;
  // Rows the model's reading misses (not served, in no covered fragment) and
  // Lance returns: the first one.
  uint64_t model_only_misses = 0;
  std::string model_only_miss;
  // Indexed queries with an index whose segments cover no fragment (Lance
  // does not use it).
  uint64_t uncovering_index_queries = 0;
  // States whose live fragments hold some MemWAL row twice.
  uint64_t duplicate_rows_states = 0;
  // Queries whose ReadsMissNoRows is not asked: the table is foreign legacy.
  uint64_t foreign_legacy_queries = 0;
  // Queries Lance refuses on a shallow clone of a shallow clone (below).
  uint64_t clone_index_refusals = 0;
  std::string clone_index_refusal;  // the first one's error
};

// Lance's shallow clone points every index at the newest source, also one a
// source itself read from an older base (rust/lance/src/io/commit.rs sets
// base_id on each index; data files keep theirs), so on a clone of a clone an
// indexed query looks for the index files in the middle table, which has
// none. The implementation does as Lance does; such a refusal is Lance's own
// behaviour, counted apart from the differences.
bool CloneOfCloneIndex(const fs::path& dir, const std::string& error) {
  if (error.find("/_indices/") == std::string::npos ||
      error.find("Not found") == std::string::npos)
    return false;
  Result<impl::DirectoryStore> store = impl::DirectoryStore::Open(dir.string());
  if (!store.ok()) return false;
  const Result<std::vector<uint64_t>> versions = impl::ListVersions(*store);
  if (!versions.ok() || versions->empty()) return false;
  const Result<impl::Snapshot> head =
      impl::LoadVersion(*store, nullptr, versions->back(), true);
  return head.ok() && head->file->manifest.base_paths_size() >= 2;
}

}  // namespace

Result<std::vector<std::string>> WriteCloneSources(const impl::World& world,
                                                   const std::string& dir) {
  std::set<std::string> roots;
  for (const auto& [path, blob] : world.store().objects()) {
    const std::string root = path.substr(0, path.find('/') + 1);
    if (root.size() > 1 && root[0] == 't' && root != world.table_root())
      roots.insert(root);
  }
  for (const std::string& root : roots) {
    const fs::path where = fs::path(dir) / root;
    fs::remove_all(where);
    MEMWAL_ASSIGN_OR_RETURN(impl::DirectoryStore store,
                            impl::DirectoryStore::Open(where.string()));
    for (auto it = world.store().objects().lower_bound(root);
         it != world.store().objects().end() && it->first.rfind(root, 0) == 0;
         ++it)
      MEMWAL_RETURN_IF_ERROR(
          store.Put(it->first.substr(root.size()), *it->second));
    MEMWAL_RETURN_IF_ERROR(impl::WriteLanceFiles(&store, ShardUuids(world)));
  }
  return std::vector<std::string>(roots.begin(), roots.end());
}

namespace {

// A table to check: `dir`, and `cwd`, the directory where its shallow
// clone's relative base paths ("t0/") resolve (the query server runs the
// request there), holding the sources `roots`.
struct TableDir {
  fs::path dir;
  fs::path cwd;
  std::vector<std::string> roots;
};

// Writes the implementation's table as `scratch`/t.lance, with a shallow
// clone's sources beside it.
Result<TableDir> WriteStateTable(const impl::World& world,
                                 const fs::path& scratch) {
  TableDir table{.dir = scratch / "t.lance", .cwd = scratch, .roots = {}};
  fs::remove_all(table.dir);
  {
    MEMWAL_ASSIGN_OR_RETURN(impl::DirectoryStore store,
                            impl::DirectoryStore::Open(table.dir.string()));
    MEMWAL_RETURN_IF_ERROR(world.WriteTo(&store));
  }
  MEMWAL_ASSIGN_OR_RETURN(table.roots,
                          WriteCloneSources(world, scratch.string()));
  return table;
}

// The base-table view for the indexed queries: a copy of the table (the
// table keeps `_mem_wal/`: every flushed generation is a Lance dataset,
// impl/lance_sstable.h, and LanceDB's MemWAL-aware query serves it), whose
// MemWAL system index the query server drops with LanceDB's dropIndex
// (query_server.mjs); without it LanceDB reads the base table alone, so the
// view has no `_mem_wal/`. The copy's index files are the table's own: they
// name rows by stable row id, as the table's flags say (the implementation
// sets bit 2, as Lance's apply_feature_flags does, whenever the fragments
// carry row ids), and so does LanceDB's dropIndex commit on the copy.
fs::path WriteView(const fs::path& dir, const fs::path& scratch) {
  const fs::path base = scratch / "base.lance";
  fs::remove_all(base);
  fs::copy(dir, base, fs::copy_options::recursive);
  fs::remove_all(base / "_mem_wal");
  return base;
}

// The request for one state: a query per query shape, a full scan for
// `plain`, a fastSearch filter through the shape's indexes for the others.
json StateRequest(const model::Config& config, const model::QueryShapes& shapes,
                  const TableDir& table, const fs::path& base) {
  json request{{"table", table.dir.string()},
               {"base", base.string()},
               {"cwd", table.cwd.string()},
               {"queries", json::array()}};
  for (int q = 0; q < shapes.count; ++q) {
    const model::QueryShape shape = shapes.shapes[q];
    std::string where;
    for (int i = 0; i < config.bounds.indexes; ++i) {
      if (!model::Contains(shape.uses, i)) continue;
      if (!where.empty()) where += " AND ";
      where += std::string("f").append(std::to_string(i)) + " >= 0";
    }
    request["queries"].push_back(
        {{"name", ShapeName(config, shape, q == shapes.count - 1)},
         {"where", where.empty() ? json(nullptr) : json(where)},
         {"fastSearch", !where.empty()}});
  }
  return request;
}

std::string AfterLast(const std::vector<model::Action>& trace) {
  return trace.empty() ? std::string("Init") : model::ToString(trace.back());
}

// One state's comparison of LanceDB's answer with the model's rows; the
// differences it finds, and the row sets per shape for a finding.
class StateCheck {
 public:
  StateCheck(const Options& options, const model::State& state,
             const impl::World& world, const std::vector<model::Action>& trace,
             const TableDir& table, const json& answer, Counts* counts)
      : config_(options.config),
        state_(state),
        world_(world),
        trace_(trace),
        table_(table),
        answer_(answer),
        counts_(counts),
        live_(model::LiveRows(state, model::Head(state))),
        // What LanceDB 0.39 answers on the table as written, for every
        // filter (probed, docs/lance-diff.md): the base table's live rows (a
        // filter through an index scans the fragments it does not cover too)
        // and the flushed generations above each shard's compacted position.
        lance_reading_(live_ |
                       ServedRows(config_, state, model::QueryShape{})) {}

  Status Run(const model::QueryShapes& shapes, const json& request);
  const std::vector<std::string>& differences() const { return differences_; }
  const json& rows() const { return rows_; }

 private:
  Status Shape(const model::QueryShape& shape, bool indexed, const json& result,
               const json& written);
  model::RowSet MemWalRows(const std::string& name, const json& rows,
                           uint64_t* base_rows);
  void CountRows(uint64_t base_rows);
  void CompareView(const std::string& name, const model::QueryShape& shape,
                   model::RowSet lance);
  void CompareWritten(const std::string& name, model::RowSet r40,
                      const json& written);
  Status ReadsMissNoRows(const std::string& name,
                         const model::QueryShape& shape, bool indexed,
                         model::RowSet held, model::RowSet lance);

  const model::Config& config_;
  const model::State& state_;
  const impl::World& world_;
  const std::vector<model::Action>& trace_;
  const TableDir& table_;
  const json& answer_;
  Counts* counts_;
  const model::RowSet live_;
  const model::RowSet lance_reading_;
  std::vector<std::string> differences_;
  json rows_ = json::object();
};

Status StateCheck::Run(const model::QueryShapes& shapes, const json& request) {
  if (answer_.contains("error"))
    differences_.push_back("the table does not open or count: " +
                           answer_["error"].get<std::string>());
  if (answer_.contains("baseError"))
    differences_.push_back("the base-table view does not open: " +
                           answer_["baseError"].get<std::string>());
  const json no_results = json::array();
  const json& base_results =
      answer_.contains("baseResults") ? answer_["baseResults"] : no_results;
  std::size_t next_base = 0;
  for (int q = 0; q < shapes.count; ++q) {
    // A scan on the table as written; an indexed query (fastSearch) on the
    // base-table view, where Lance searches indexed fragments only.
    const bool indexed = request["queries"][q]["fastSearch"].get<bool>();
    if (indexed && next_base >= base_results.size()) {
      differences_.push_back("the base-table view answered " +
                             std::to_string(base_results.size()) +
                             " indexed queries, fewer than asked");
      break;
    }
    const json& result =
        indexed ? base_results[next_base++] : answer_["results"][q];
    MEMWAL_RETURN_IF_ERROR(
        Shape(shapes.shapes[q], indexed, result, answer_["results"][q]));
  }
  return Status::Ok();
}

// The MemWAL rows of an answer, and how many rows it has of the base table's
// own (shard -1).
model::RowSet StateCheck::MemWalRows(const std::string& name, const json& rows,
                                     uint64_t* base_rows) {
  model::RowSet out = 0;
  for (const json& row : rows) {
    const int s = row[0];
    const int g = row[1];
    if (s < 0) {
      ++*base_rows;
      continue;
    }
    if (s >= config_.bounds.shards || g < 1 || g > config_.bounds.generations) {
      differences_.push_back(name + ": Lance returned a row of no SSTable " +
                             row.dump());
      continue;
    }
    out |= model::RowBit(s, g);
  }
  return out;
}

// One query shape: `result` is the view's answer for an indexed shape, the
// table's for the plain scan; `written` the table's.
Status StateCheck::Shape(const model::QueryShape& shape, bool indexed,
                         const json& result, const json& written) {
  const std::string name = result["name"];
  ++counts_->queries;
  if (result.contains("error")) {
    const std::string error = result["error"];
    if (CloneOfCloneIndex(table_.dir, error)) {
      if (counts_->clone_index_refusals++ == 0)
        counts_->clone_index_refusal = error;
      return Status::Ok();
    }
    differences_.push_back(name + ": Lance: " + error);
    return Status::Ok();
  }
  uint64_t base_rows = 0;
  const model::RowSet lance = MemWalRows(name, result["rows"], &base_rows);
  const model::RowSet held =
      indexed ? HeldRows(state_, shape, config_.bounds.indexes) : live_;
  const model::RowSet served = ServedRows(config_, state_, shape);
  rows_[name] = {{"lance", RowList(lance)},
                 {"model", RowList(indexed ? held : held | served)},
                 {"lance_rows", result["rows"].size()}};
  if (!indexed && lance != (held | served)) {
    // The plain scan on the table as written: the base table's live rows
    // and the flushed generations Lance serves.
    differences_.push_back(
        name + ": Lance returned MemWAL rows " + RowList(lance).dump() +
        ", the model's reading (live rows and served SSTables) is " +
        RowList(held | served).dump());
  }
  if (indexed) CompareView(name, shape, lance);
  if (!indexed && !answer_["countRows"].is_null()) CountRows(base_rows);
  if (indexed) CompareWritten(name, held | served, written);
  // The model holds a table a foreign compactor wrote without the bit (R64)
  // to ReadsMissNoRows no more (model/invariants.cc, ForeignLegacyTable);
  // neither does lance-diff.
  if (model::IsForeign(config_) && state_.foreign_legacy) {
    ++counts_->foreign_legacy_queries;
    return Status::Ok();
  }
  return ReadsMissNoRows(name, shape, indexed, held, lance);
}

// Lance uses no index whose segments cover no live fragment (its plan has no
// ScalarIndexQuery for it, and fastSearch restricts nothing): such an index
// of the shape reads as absent. Lance's own behaviour, counted. (An index
// covering only deleted fragments is one: `corpus --tables` entries at tiny
// showed it, ShallowClone, DeleteFragment of the one fragment idx_0 covers, a
// compaction's fragment uncovered.)
void StateCheck::CompareView(const std::string& name,
                             const model::QueryShape& shape,
                             model::RowSet lance) {
  const model::Version& head = model::Head(state_);
  model::QueryShape used = shape;
  for (int i = 0; i < config_.bounds.indexes; ++i) {
    if (model::Contains(shape.uses, i) &&
        (model::CoveredBy(head, i) & head.live) == 0)
      used.uses &= static_cast<model::IndexSet>(~(1u << i));
  }
  if (used.uses != shape.uses) ++counts_->uncovering_index_queries;
  const model::RowSet view_held =
      used.uses == 0 ? live_ : HeldRows(state_, used, config_.bounds.indexes);
  if (lance != view_held) {
    differences_.push_back(
        name + ": on the base-table view Lance returned MemWAL rows " +
        RowList(lance).dump() + ", the model's fragments hold " +
        RowList(view_held).dump());
  }
}

// countRows counts the base table's rows: the base rows the scan returns and
// every copy of a MemWAL row the head's live fragments hold (a row two
// fragments hold, e.g. after a compaction without its marker was repeated,
// counts twice; the scan deduplicates it by primary key).
void StateCheck::CountRows(uint64_t base_rows) {
  uint64_t copies = 0;
  for (int f = 0; f < model::kFragmentsMax; ++f) {
    if (model::Contains(model::Head(state_).live, f))
      copies += static_cast<uint64_t>(
          std::popcount(static_cast<unsigned>(state_.rows[f])));
  }
  if (copies >
      static_cast<uint64_t>(std::popcount(static_cast<unsigned>(live_))))
    ++counts_->duplicate_rows_states;
  if (answer_["countRows"].get<uint64_t>() != base_rows + copies)
    differences_.push_back("countRows " + answer_["countRows"].dump() +
                           " but the scan returned " +
                           std::to_string(base_rows) +
                           " base rows and the model's live fragments hold " +
                           std::to_string(copies) + " copies of MemWAL rows");
}

// The same indexed query on the table as written: Lance 12's scalar path (no
// fast_search, no catch-up positions) must answer lance_reading_; where that
// differs from the model's R40 reading of the shape (`r40`), counted.
void StateCheck::CompareWritten(const std::string& name, model::RowSet r40,
                                const json& written) {
  if (written.contains("rows")) {
    uint64_t written_base = 0;
    const model::RowSet rows = MemWalRows(name, written["rows"], &written_base);
    rows_[name]["written"] = RowList(rows);
    if (rows != lance_reading_)
      differences_.push_back(
          name + ": on the table as written Lance returned MemWAL rows " +
          RowList(rows).dump() +
          ", expected the live rows and the SSTables served to a scan " +
          RowList(lance_reading_).dump());
    if (rows != r40 && counts_->scalar_path_differs++ == 0)
      counts_->scalar_path_first = name + " returned " + RowList(rows).dump() +
                                   ", R40 reads " + RowList(r40).dump() +
                                   " after " + AfterLast(trace_);
  } else if (written.contains("error")) {
    const std::string error = written["error"];
    if (!CloneOfCloneIndex(table_.dir, error))
      differences_.push_back(name +
                             ": on the table as written: Lance: " + error);
  }
}

// ReadsMissNoRows with "held" decided by Lance's answer: for a scan on the
// table as written, also "served" (a row the scan returns is held or served;
// one it does not is neither); for an indexed query, "held" by the base-table
// view and "served" by the implementation's reader.
Status StateCheck::ReadsMissNoRows(const std::string& name,
                                   const model::QueryShape& shape, bool indexed,
                                   model::RowSet held, model::RowSet lance) {
  std::vector<uint32_t> indexes;
  for (int i = 0; i < config_.bounds.indexes; ++i) {
    if (model::Contains(shape.uses, i)) indexes.push_back(i);
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<uint64_t> watermarks,
                          world_.Watermarks(indexes));
  for (int s = 0; s < config_.bounds.shards; ++s) {
    const int watermark = s < static_cast<int>(watermarks.size())
                              ? static_cast<int>(watermarks[s])
                              : 0;
    for (int g = 1; g <= state_.flushed[s]; ++g) {
      const model::RowSet row = model::RowBit(s, g);
      if ((state_.deleted & row) != 0) continue;
      if (indexed && model::ServedAbove(state_, watermark, s, g)) continue;
      const model::IndexSet cover =
          state_.retire_cover[s * model::kGenerationsMax + g - 1];
      if (model::Contains(state_.retired[s], g - 1) &&
          (shape.uses & ~cover) == 0 && (live_ & row) != 0)
        continue;
      std::string at("(");
      at.append(std::to_string(s)).append(",").append(std::to_string(g));
      at.push_back(')');
      if (indexed && (held & row) == 0 && (lance & row) != 0) {
        // The model's ReadsMissNoRows reading misses it; Lance returns it.
        if (counts_->model_only_misses++ == 0)
          counts_->model_only_miss = name + " row " + at + " after " +
                                     AfterLast(trace_) + " (watermark " +
                                     std::to_string(watermark) + ")";
        continue;
      }
      if ((lance & row) != 0) continue;
      differences_.push_back(
          name + ": ReadsMissNoRows on Lance 12: row " + at +
          (indexed ? " is not served (watermark " + std::to_string(watermark) +
                         ") and Lance's query does not return it"
                   : " is neither in the base table nor served by "
                     "Lance's scan"));
    }
  }
  return Status::Ok();
}

// Keeps a state's table, its view and a clone's sources in
// `options.keep`/finding-N/ with finding.json.
json KeepFinding(const Options& options, const TableDir& table,
                 const fs::path& base, const std::vector<model::Action>& trace,
                 const StateCheck& check, const json& answer, uint64_t number) {
  const fs::path kept =
      fs::path(options.keep) /
      (std::string("finding-").append(std::to_string(number)));
  fs::create_directories(kept);
  fs::remove_all(kept / "t.lance");
  fs::copy(table.dir, kept / "t.lance", fs::copy_options::recursive);
  fs::remove_all(kept / "base.lance");
  fs::copy(base, kept / "base.lance", fs::copy_options::recursive);
  // A shallow clone's sources beside it: run LanceDB in `kept` to reproduce.
  for (const std::string& root : table.roots) {
    fs::remove_all(kept / root);
    fs::copy(table.cwd / root, kept / root, fs::copy_options::recursive);
  }
  json steps = json::array();
  for (const model::Action& action : trace)
    steps.push_back(model::ToString(action));
  json finding{{"differences", check.differences()},
               {"trace", steps},
               {"rows", check.rows()},
               {"countRows", answer["countRows"]},
               {"table", (kept / "t.lance").string()}};
  std::ofstream(kept / "finding.json") << finding.dump(1) << "\n";
  return finding;
}

// Checks one state's table; the findings it makes are appended to
// `findings`.
Status CheckState(const Options& options, const model::State& state,
                  const impl::World& world,
                  const std::vector<model::Action>& trace, QueryServer* server,
                  const fs::path& scratch, const TableDir& table,
                  Counts* counts, std::vector<json>* findings) {
  const fs::path base = WriteView(table.dir, scratch);
  const model::QueryShapes shapes =
      model::AllQueryShapes(options.config, state);
  const json request = StateRequest(options.config, shapes, table, base);
  MEMWAL_ASSIGN_OR_RETURN(const json answer, server->Ask(request));
  ++counts->states;
  StateCheck check(options, state, world, trace, table, answer, counts);
  MEMWAL_RETURN_IF_ERROR(check.Run(shapes, request));
  if (check.differences().empty()) return Status::Ok();
  findings->push_back(KeepFinding(options, table, base, trace, check, answer,
                                  ++counts->findings));
  return Status::Ok();
}

// This process's own directory under the temporary directory, where the query
// server runs and the state tables are written.
fs::path MakeScratch() {
  const fs::path scratch =
      fs::temp_directory_path() /
      (std::string("memwal-lance-diff-").append(std::to_string(getpid())));
  fs::create_directories(scratch);
  return scratch;
}

Status Run(const Options& options, std::ostream& out, Counts* counts,
           std::vector<json>* findings) {
  const fs::path scratch = MakeScratch();
  MEMWAL_ASSIGN_OR_RETURN(
      std::unique_ptr<QueryServer> server,
      QueryServer::Start(options.lancedb, scratch.string()));
  std::mt19937_64 random(options.seed);
  const lockstep::LockstepSetup setup{.config = options.config,
                                      .seed = options.seed};
  Status status = Status::Ok();
  while (status.ok() && counts->states < options.budget) {
    MEMWAL_ASSIGN_OR_RETURN(impl::World world, lockstep::InitWorld(setup));
    model::State state = model::Init(options.config.bounds);
    std::vector<model::Action> trace;
    std::vector<model::Action> enabled;
    const int depth =
        options.steps ? static_cast<int>(options.steps->size()) : options.depth;
    for (int step = 0; step <= depth; ++step) {
      const Result<TableDir> table = WriteStateTable(world, scratch);
      status = table.ok()
                   ? CheckState(options, state, world, trace, server.get(),
                                scratch, *table, counts, findings)
                   : table.status();
      if (!status.ok() || step == depth) break;
      if (!options.steps && counts->states >= options.budget) break;
      model::EnabledActions(options.config, state, &enabled);
      model::Action action;
      if (options.steps) {
        action = (*options.steps)[step];
        if (std::find(enabled.begin(), enabled.end(), action) ==
            enabled.end()) {
          status = Status::InvalidArgument(
              "--trace: step " + std::to_string(step + 1) + " (" +
              model::ToString(action) + ") is not enabled");
          break;
        }
      } else {
        if (enabled.empty()) break;
        action = enabled[random() % enabled.size()];
      }
      model::Outcome outcome;
      model::Apply(options.config, action, &state, &outcome);
      const Result<model::Outcome> impl =
          lockstep::ApplyToWorld(action, &world);
      trace.push_back(action);
      if (!impl.ok() || *impl != outcome) {
        out << "lance-diff: the implementation parts from the model at "
            << model::ToString(action) << " (a lockstep matter; this walk "
            << "ends)\n";
        break;
      }
    }
    if (options.steps) break;
  }
  fs::remove_all(scratch);
  return status;
}

// The tables a `corpus --tables` run wrote under `corpus`/tables, in
// name order, with the traces of their entries.
Result<std::vector<fs::path>> CorpusTraces(const std::string& corpus) {
  const fs::path json_dir = fs::path(corpus) / "json";
  std::error_code error;
  std::vector<fs::path> traces;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(json_dir, error)) {
    if (entry.path().extension() == ".json") traces.push_back(entry.path());
  }
  if (error)
    return Status::InvalidArgument("--corpus " + corpus + ": cannot read " +
                                   json_dir.string() + ": " + error.message());
  if (traces.empty())
    return Status::InvalidArgument("--corpus " + corpus +
                                   ": no json/*.json entries");
  std::sort(traces.begin(), traces.end());
  for (const fs::path& trace : traces) {
    const std::string name = trace.stem().string();
    if (!fs::is_directory(fs::path(corpus) / "tables" / name))
      return Status::InvalidArgument("--corpus " + corpus + ": no tables/" +
                                     name + " (corpus --tables writes it)");
  }
  return traces;
}

// Replays `steps` from Init on the model and the implementation (as corpus
// --tables did to write the entry's table).
Status ReplayEntry(const std::string& name, const model::Config& config,
                   const std::vector<model::Action>& steps, model::State* state,
                   impl::World* world) {
  *state = model::Init(config.bounds);
  std::vector<model::Action> enabled;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    model::EnabledActions(config, *state, &enabled);
    if (std::find(enabled.begin(), enabled.end(), steps[k]) == enabled.end())
      return Status::InvalidArgument(name + ": step " + std::to_string(k + 1) +
                                     " is not enabled");
    model::Outcome outcome;
    model::Apply(config, steps[k], state, &outcome);
    const Result<model::Outcome> impl = lockstep::ApplyToWorld(steps[k], world);
    if (!impl.ok() || *impl != outcome)
      return Status::InvalidArgument(
          name + ": the implementation parts from the model at " +
          model::ToString(steps[k]));
  }
  return Status::Ok();
}

// --corpus DIR: every table `corpus --tables` wrote (DIR/tables/NAME, the
// table after the entry's steps; a shallow clone's sources in
// DIR/tables/NAME.sources/), checked as lance-diff checks a state, with the
// model's rows from the entry's trace (DIR/json/NAME.json) replayed.
Status RunCorpus(const Options& options, Counts* counts,
                 std::vector<json>* findings) {
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<fs::path> traces,
                          CorpusTraces(options.corpus));
  const fs::path scratch = MakeScratch();
  MEMWAL_ASSIGN_OR_RETURN(
      std::unique_ptr<QueryServer> server,
      QueryServer::Start(options.lancedb, scratch.string()));
  Status status = Status::Ok();
  for (const fs::path& path : traces) {
    const std::string name = path.stem().string();
    const fs::path tables = fs::absolute(fs::path(options.corpus) / "tables");
    TableDir table{
        .dir = tables / name, .cwd = tables / (name + ".sources"), .roots = {}};
    if (fs::is_directory(table.cwd)) {
      for (const fs::directory_entry& source :
           fs::directory_iterator(table.cwd))
        table.roots.push_back(source.path().filename().string() + "/");
      std::sort(table.roots.begin(), table.roots.end());
    } else {
      table.cwd = scratch;
    }
    const Result<report::LockstepTrace> trace =
        report::ReadTraceFile(path.string());
    if (!trace.ok()) {
      status = trace.status();
      break;
    }
    Options entry = options;
    entry.config = trace->trace.config;
    const lockstep::LockstepSetup setup{.config = entry.config,
                                        .seed = trace->trace.seed};
    Result<impl::World> world = lockstep::InitWorld(setup);
    if (!world.ok()) {
      status = world.status();
      break;
    }
    model::State state;
    status =
        ReplayEntry(name, entry.config, trace->trace.steps, &state, &*world);
    if (status.ok())
      status = CheckState(entry, state, *world, trace->trace.steps,
                          server.get(), scratch, table, counts, findings);
    if (!status.ok()) break;
  }
  server.reset();
  fs::remove_all(scratch);
  return status;
}

}  // namespace

std::string LanceDiffAbout() {
  return "Random walks (seeded) with the implementation in lockstep, or every "
         "state along\na trace; at each state its table is written in "
         "Lance's file format (flushed\ngenerations as Lance datasets) and "
         "LanceDB 0.39 (Lance 12) runs one query per\nquery shape, in one "
         "long-lived Node process: plain, a scan that LanceDB's\nMemWAL "
         "reader serves from the base table and the SSTables; index(i), all: "
         "a\nfast_search filter on the table and on a copy whose MemWAL index "
         "LanceDB drops\n(the base table as the MemWAL reader searches it). "
         "A difference from the\nmodel's rows, or a flushed undeleted row that "
         "is neither held nor served, is a\nfinding kept in DIR/finding-N (the "
         "table, the trace, both row sets).\ndocs/lance-diff.md.\n"
         "Exit 0: no difference; 1: a difference; 2: usage; 3: LanceDB "
         "missing.\n";
}

namespace {

struct LanceDiffFlags {
  CheckFlagSet set{};
  Options options{};
  std::vector<Flag> Flags();
};

std::vector<Flag> LanceDiffFlags::Flags() {
  std::vector<Flag> flags;
  // check's switches (every registered one, model/switches.h), its model
  // bugs, bounds and seed.
  std::set<std::string> taken = {"--bug",         "--preset",    "--shards",
                                 "--generations", "--fragments", "--indexes",
                                 "--commits",     "--inflight",  "--seed"};
  for (const model::Switch& variant : model::AllSwitches())
    taken.insert("--" + std::string(variant.info().name));
  for (Flag& flag : set.Flags()) {
    if (taken.contains(flag.name)) flags.push_back(std::move(flag));
  }
  flags.push_back(Valued(
      "--budget", "STATES", "states checked (default 40)",
      [this](std::string_view value) -> Status {
        MEMWAL_ASSIGN_OR_RETURN(options.budget,
                                ParseUnsigned("--budget", value));
        return options.budget == 0
                   ? Status::InvalidArgument("--budget must be at least 1")
                   : Status::Ok();
      }));
  flags.push_back(
      Valued("--depth", "STEPS", "steps per walk (default 8, at most 64)",
             [this](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(const uint64_t depth,
                                       ParseUnsigned("--depth", value));
               if (depth > 64)
                 return Status::InvalidArgument("--depth must be at most 64");
               options.depth = static_cast<int>(depth);
               return Status::Ok();
             }));
  flags.push_back(Valued(
      "--trace", "FILE",
      "check every state along a trace (e.g. a counterexample\nof check), "
      "with its configuration",
      [this](std::string_view path) -> Status {
        MEMWAL_ASSIGN_OR_RETURN(const report::LockstepTrace trace,
                                report::ReadTraceFile(std::string(path)));
        options.steps = trace.trace.steps;
        options.trace_config = trace.trace.config;
        return Status::Ok();
      }));
  flags.push_back(
      Valued("--corpus", "DIR",
             "check every table of a corpus written with --tables\n"
             "(DIR/tables/NAME, at the last state of DIR/json/NAME.json)",
             [this](std::string_view path) {
               options.corpus = std::string(path);
               return Status::Ok();
             }));
  flags.push_back(Valued("--keep", "DIR",
                         "where findings are kept (default "
                         "lance-diff-findings)",
                         [this](std::string_view value) {
                           options.keep = std::string(value);
                           return Status::Ok();
                         }));
  flags.push_back(Valued("--lancedb", "DIR",
                         "the npm package dir with query_server.mjs\n(default "
                         "tests/fixtures/lancedb/lance12)",
                         [this](std::string_view value) {
                           options.lancedb = std::string(value);
                           return Status::Ok();
                         }));
  return flags;
}

}  // namespace

std::vector<Flag> LanceDiffFlagTable() {
  return HelpTable<LanceDiffFlags>(
      [](LanceDiffFlags* flags) { return flags->Flags(); });
}

namespace {

// The findings, then the summary lines: the counts of this run.
void PrintReport(const Options& options, const Counts& counts,
                 const std::vector<json>& findings, double seconds,
                 std::ostream& out) {
  for (const json& finding : findings) {
    out << "difference (kept in " << finding["table"].get<std::string>()
        << "):\n";
    for (const json& line : finding["differences"])
      out << "  " << line.get<std::string>() << "\n";
    out << "  trace: " << finding["trace"].dump() << "\n";
    out << "  rows: " << finding["rows"].dump() << "\n";
  }
  char timing[32];
  std::snprintf(timing, sizeof timing, "%.1f", seconds);
  if (options.corpus.empty()) {
    out << "lance-diff: " << counts.states << " states (seed " << options.seed
        << ", budget " << options.budget << ", depth " << options.depth
        << "), ";
  } else {
    out << "lance-diff: " << counts.states << " corpus tables (every entry of "
        << options.corpus << "/json, at its last state), ";
  }
  out << counts.queries << " LanceDB 0.39 queries, " << counts.findings
      << (counts.findings == 1 ? " state" : " states") << " with a difference; "
      << timing << " s\n";
  out << "lance-diff: " << counts.scalar_path_differs
      << " indexed queries on the table as written (LanceDB 0.39: no "
         "fast_search, SSTables above the compacted position) returned other "
         "rows than the model's R40 reading of the shape"
      << (counts.scalar_path_differs > 0
              ? ", first: " + counts.scalar_path_first
              : std::string())
      << "\n";
  out << "lance-diff: " << counts.model_only_misses
      << " rows the model's ReadsMissNoRows reading misses (not served, in no "
         "covered fragment) were returned by Lance"
      << (counts.model_only_misses > 0 ? ", first: " + counts.model_only_miss
                                       : std::string())
      << "\n";
  if (counts.uncovering_index_queries > 0)
    out << "lance-diff: " << counts.uncovering_index_queries
        << " indexed queries used an index whose segments cover no live "
           "fragment; "
           "Lance does not use such an index (no ScalarIndexQuery in its plan, "
           "fastSearch restricts nothing), so the view is compared without "
           "it\n";
  if (counts.duplicate_rows_states > 0)
    out << "lance-diff: " << counts.duplicate_rows_states
        << " states whose live fragments hold a MemWAL row twice (a "
           "compaction without its marker repeated); countRows counts both "
           "copies, the scan one\n";
  if (counts.foreign_legacy_queries > 0)
    out << "lance-diff: " << counts.foreign_legacy_queries
        << " queries on a table a foreign compactor wrote without the bit "
           "(R64): ReadsMissNoRows not asked, as the model does not\n";
  if (counts.clone_index_refusals > 0)
    out << "lance-diff: " << counts.clone_index_refusals
        << " indexed queries on a shallow clone of a shallow clone refused by "
           "Lance itself (every index points at the newest source; not "
           "counted): "
        << counts.clone_index_refusal << "\n";
}

}  // namespace

int RunLanceDiffCommand(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err) {
  LanceDiffFlags parsed;
  if (Status status = ParseFlags("lance-diff", args, parsed.Flags()).status();
      !status.ok())
    return Fail(err, "lance-diff", status);
  if (Status status = parsed.set.Finish(); !status.ok())
    return Fail(err, "lance-diff", status);
  Options& options = parsed.options;
  const CheckFlagSet& set = parsed.set;
  if (options.steps && !options.corpus.empty())
    return Fail(
        err, "lance-diff",
        Status::InvalidArgument("--trace and --corpus exclude each other"));
  options.config = options.steps ? options.trace_config : set.check.config;
  options.seed = set.check.seed;
  const auto start = std::chrono::steady_clock::now();
  Counts counts;
  std::vector<json> findings;
  const Status status = options.corpus.empty()
                            ? Run(options, out, &counts, &findings)
                            : RunCorpus(options, &counts, &findings);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!status.ok())
    return Fail(err, "lance-diff", status,
                status.code() == StatusCode::kFailedPrecondition
                    ? kExitIncomplete
                    : kExitUsage);
  PrintReport(options, counts, findings, seconds, out);
  return counts.findings == 0 ? kExitOk : kExitViolation;
}

}  // namespace memwal::checker::cli
