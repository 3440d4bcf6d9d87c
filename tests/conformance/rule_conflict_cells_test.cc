// Conflict cells the table of representatives (rule_lance_conflicts_test.cc)
// does not ask, because each operation there has one representative: an
// UpdateConfig that edits schema or field metadata (the representative edits
// a config key only), and an Update that rewrites columns in place or moves
// no rows (the representative removes its fragment). Lance's answers, as
// read in conflict_resolver.rs (check_txn's pre-checks,
// check_update_config_txn, check_data_replacement_txn,
// check_data_overlay_txn):
//
// - Merge and an UpdateConfig that edits schema or field metadata (a map it
//   replaces or an entry it sets) retry each other, in either order; an
//   UpdateConfig that names the schema map without editing it does not.
// - A pending UpdateConfig that carries a schema-metadata update (even an
//   empty one) or any field-metadata update is incompatible with a committed
//   Overwrite; with another UpdateConfig, when both carry schema-metadata
//   updates or both update one field's metadata.
// - A DataReplacement of a fragment an Update left in place (in
//   updated_fragments) retries when the Update moved rows (new fragments in
//   REWRITE_ROWS mode) or rewrote a replaced field; new fragments of a
//   REWRITE_COLUMNS Update are unrelated inserts and meet nothing.
// - A Rewrite retries against a Delete that removed or wrote a deletion file
//   for (updated_fragments) one of its fragments (check_rewrite_txn).
// - UpdateBases is incompatible with another adding the same non-zero id,
//   the same name or the same path (check_add_bases_txn).
// - Config keys (upsert_key_conflict): a key one side upserts and the other
//   upserts or deletes is incompatible, also against an Overwrite's
//   config_upsert_values; two deletions of one key are not.
// - A DataOverlay of a fragment an Update left in place retries only when the
//   Update moved rows out of it (Lance then compares the moved rows with the
//   overlay's coverage; these overlays cover their whole fragment, so they
//   meet), never for an in-place column rewrite or an Update without new
//   fragments.
//
// Each cell is one call of the implementation's ClassifyConflict: no random
// cases, well under a millisecond.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "impl/conflicts.h"
#include "tests/impl/lance_conflict_table.h"

namespace memwal {
namespace {

namespace table = impl::lance_conflicts;
using impl::pb::Transaction;

Transaction ConfigEditing(bool schema, bool schema_entry,
                          std::vector<uint32_t> fields) {
  Transaction t;
  t.set_read_version(3);
  auto* op = t.mutable_update_config();
  if (schema) {
    auto* map = op->mutable_schema_metadata_updates();
    if (schema_entry) {
      auto* entry = map->add_update_entries();
      entry->set_key("s");
      entry->set_value("v");
    }
  }
  for (const uint32_t field : fields) {
    auto* update = op->add_field_metadata_updates();
    update->set_field_id(field);
    auto* entry = update->mutable_update()->add_update_entries();
    entry->set_key("f");
    entry->set_value("v");
  }
  return t;
}

Transaction UpdateInPlace(uint64_t fragment, bool new_fragments,
                          Transaction::Update::UpdateMode mode,
                          uint32_t field_modified) {
  Transaction t;
  t.set_read_version(3);
  auto* op = t.mutable_update();
  op->add_updated_fragments()->set_id(fragment);
  if (new_fragments) op->add_new_fragments()->set_id(9);
  op->set_update_mode(mode);
  op->add_fields_modified(field_modified);
  return t;
}

Transaction DeleteRowsOf(uint64_t fragment) {
  Transaction t;
  t.set_read_version(3);
  t.mutable_delete_()->add_updated_fragments()->set_id(fragment);
  return t;
}

// A base with `name` ("": none).
Transaction AddBase(uint32_t id, const std::string& name,
                    const std::string& path) {
  Transaction t;
  t.set_read_version(3);
  auto* base = t.mutable_update_bases()->add_new_bases();
  base->set_id(id);
  if (!name.empty()) base->set_name(name);
  base->set_path(path);
  return t;
}

// An UpdateConfig upserting (value) or deleting (no value) config key `key`.
Transaction ConfigKey(const std::string& key, bool upsert) {
  Transaction t;
  t.set_read_version(3);
  auto* entry =
      t.mutable_update_config()->mutable_config_updates()->add_update_entries();
  entry->set_key(key);
  if (upsert) entry->set_value("v");
  return t;
}

Transaction OverwriteUpserting(const std::string& key) {
  Transaction t;
  t.set_read_version(3);
  t.mutable_overwrite()->add_fragments()->set_id(0);
  t.mutable_overwrite()->mutable_config_upsert_values()->insert(
      {key, std::string("v")});
  return t;
}

struct Cell {
  std::string what;
  Transaction pending;
  Transaction committed;
  char lance;
};

std::vector<Cell> Cells() {
  const table::Targets mine = table::TargetsOf(true, true);
  const table::Targets theirs = table::TargetsOf(false, true);
  const Transaction merge = table::Representative(table::kMerge, theirs);
  const Transaction merge_pending = table::Representative(table::kMerge, mine);
  const Transaction overwrite =
      table::Representative(table::kOverwrite, theirs);
  const Transaction replacement = table::Representative(
      table::kDataReplacement, mine);  // fragment 1, field 0
  const Transaction overlay = table::Representative(table::kDataOverlay, mine);
  constexpr auto kRows = Transaction::Update::REWRITE_ROWS;
  constexpr auto kColumns = Transaction::Update::REWRITE_COLUMNS;
  return {
      {"Merge against an UpdateConfig editing schema metadata", merge_pending,
       ConfigEditing(true, true, {}), 'R'},
      {"Merge against an UpdateConfig editing field metadata", merge_pending,
       ConfigEditing(false, false, {0}), 'R'},
      {"UpdateConfig editing schema metadata against a Merge",
       ConfigEditing(true, true, {}), merge, 'R'},
      {"UpdateConfig editing field metadata against a Merge",
       ConfigEditing(false, false, {1}), merge, 'R'},
      {"UpdateConfig naming an empty schema map against a Merge",
       ConfigEditing(true, false, {}), merge, 'C'},
      {"UpdateConfig editing schema metadata against an Overwrite",
       ConfigEditing(true, true, {}), overwrite, 'I'},
      {"UpdateConfig naming an empty schema map against an Overwrite",
       ConfigEditing(true, false, {}), overwrite, 'I'},
      {"UpdateConfig editing field metadata against an Overwrite",
       ConfigEditing(false, false, {0}), overwrite, 'I'},
      {"UpdateConfigs both editing schema metadata",
       ConfigEditing(true, true, {}), ConfigEditing(true, true, {}), 'I'},
      {"UpdateConfigs editing one field's metadata",
       ConfigEditing(false, false, {1}), ConfigEditing(false, false, {2, 1}),
       'I'},
      {"UpdateConfigs editing other fields' metadata",
       ConfigEditing(false, false, {1}), ConfigEditing(true, true, {2}), 'C'},
      {"DataReplacement against a column rewrite of another field with inserts",
       replacement, UpdateInPlace(1, true, kColumns, 1), 'C'},
      {"DataReplacement against a column rewrite of its field", replacement,
       UpdateInPlace(1, true, kColumns, 0), 'R'},
      {"DataReplacement against an Update moving rows of its fragment",
       replacement, UpdateInPlace(1, true, kRows, 1), 'R'},
      {"DataReplacement against an Update moving no rows", replacement,
       UpdateInPlace(1, false, kRows, 1), 'C'},
      {"DataOverlay against an Update moving rows of its fragment", overlay,
       UpdateInPlace(1, true, kRows, 1), 'R'},
      {"DataOverlay against an Update moving rows of another fragment", overlay,
       UpdateInPlace(2, true, kRows, 1), 'C'},
      {"DataOverlay against an Update moving no rows", overlay,
       UpdateInPlace(1, false, kRows, 1), 'C'},
      {"DataOverlay against a column rewrite with inserts", overlay,
       UpdateInPlace(1, true, kColumns, 0), 'C'},
      {"Rewrite against a Delete of rows of its fragment",
       table::Representative(table::kRewrite, mine), DeleteRowsOf(1), 'R'},
      {"Rewrite against a Delete of rows of another fragment",
       table::Representative(table::kRewrite, mine), DeleteRowsOf(2), 'C'},
      {"UpdateBases adding one base id twice", AddBase(5, "", "p"),
       AddBase(5, "", "q"), 'I'},
      {"UpdateBases adding base id 0 twice (no id)", AddBase(0, "", "p"),
       AddBase(0, "", "q"), 'C'},
      {"UpdateBases adding one base name twice", AddBase(5, "n", "p"),
       AddBase(6, "n", "q"), 'I'},
      {"UpdateBases adding other bases", AddBase(5, "n", "p"),
       AddBase(6, "m", "q"), 'C'},
      {"UpdateConfig upserting a key an Overwrite upserts",
       ConfigKey("k", true), OverwriteUpserting("k"), 'I'},
      {"UpdateConfig upserting a key an Overwrite does not",
       ConfigKey("k", true), OverwriteUpserting("j"), 'C'},
      {"UpdateConfig deleting a key another upserts", ConfigKey("k", false),
       ConfigKey("k", true), 'I'},
      {"UpdateConfig upserting a key another deletes", ConfigKey("k", true),
       ConfigKey("k", false), 'I'},
      {"UpdateConfigs deleting one key", ConfigKey("k", false),
       ConfigKey("k", false), 'C'},
  };
}

TEST(RuleFunctions,
     TheConflictTableIsLancesForMetadataEditsAndInPlaceColumnRewrites) {
  for (Cell& cell : Cells()) {
    const Result<impl::ConflictClass> got =
        impl::ClassifyConflict(&cell.pending, cell.committed);
    const char ours = got.ok() ? table::Letter(*got) : '?';
    EXPECT_EQ(ours, cell.lance) << cell.what;
  }
}

}  // namespace
}  // namespace memwal
