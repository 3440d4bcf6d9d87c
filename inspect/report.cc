// Figures derived from one decoded version; see report.h.
#include "inspect/report.h"

#include <map>

#include "impl/bitmap.h"

namespace memwal::inspect {

uint64_t CountRows(const Manifest& manifest) {
  uint64_t rows = 0;
  for (const DataFragment& fragment : manifest.fragments)
    rows += fragment.rows();
  return rows;
}

std::set<uint64_t> LiveFragments(const Manifest& manifest) {
  std::set<uint64_t> live;
  for (const DataFragment& fragment : manifest.fragments)
    live.insert(fragment.id);
  return live;
}

namespace {

std::string ColumnName(const Manifest& manifest, int64_t field_id) {
  for (const SchemaField& field : manifest.fields) {
    if (field.id == field_id) return field.name;
  }
  return "field " + std::to_string(field_id);
}

// Adds the segment's bitmap to `summary`. A bitmap that does not decode was
// already refused by the loader's validation (judge.cc), so here it counts as
// unknown coverage.
void AddCoverage(const IndexMetadata& segment, IndexSummary* summary) {
  const Result<impl::Coverage> coverage =
      impl::DecodeFragmentBitmap(segment.fragment_bitmap);
  if (!coverage.ok() || !coverage->has_value()) {
    summary->coverage_known = false;
    return;
  }
  summary->covered.insert((*coverage)->begin(), (*coverage)->end());
}

void CountCoveredRows(const Manifest& manifest, IndexSummary* summary) {
  for (const DataFragment& fragment : manifest.fragments) {
    if (summary->covered.contains(fragment.id)) {
      summary->indexed_rows += fragment.rows();
    } else {
      summary->uncovered_live.push_back(fragment.id);
      summary->unindexed_rows += fragment.rows();
    }
  }
}

}  // namespace

std::vector<IndexSummary> SummarizeIndexes(const DatasetVersion& version) {
  const Manifest& manifest = version.contents.manifest;
  std::vector<IndexSummary> summaries;
  std::map<std::string, size_t> position;
  for (const IndexMetadata& segment : version.contents.indices) {
    auto [it, inserted] = position.emplace(segment.name, summaries.size());
    if (inserted) {
      IndexSummary summary;
      summary.name = segment.name;
      summary.system = segment.name == "__lance_mem_wal";
      for (const int64_t field : segment.fields) {
        summary.columns.push_back(ColumnName(manifest, field));
      }
      summaries.push_back(std::move(summary));
    }
    IndexSummary& summary = summaries[it->second];
    summary.segments.push_back(&segment);
    AddCoverage(segment, &summary);
  }
  for (IndexSummary& summary : summaries) CountCoveredRows(manifest, &summary);
  MEMWAL_ASSERT(summaries.size() == position.size());
  return summaries;
}

std::string ProtocolName(impl::Protocol protocol) {
  switch (protocol) {
    case impl::Protocol::kLegacy:
      return "legacy";
    case impl::Protocol::kAdvance:
      return "advance";
    case impl::Protocol::kDerived:
      return "derived";
    case impl::Protocol::kUnconditional:
      return "unconditional";
  }
  return "?";
}

}  // namespace memwal::inspect
