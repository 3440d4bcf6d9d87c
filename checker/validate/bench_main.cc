// memwal-validate-bench [--versions N] [--keep DIR]: writes a table of N
// versions (default 1,000) with the reference implementation (derived,
// one shard, one index: activation, a flush and its compaction, then rounds
// of Append, DeleteFragment of the oldest live fragment and CreateIndex, each
// committed), then times `validate` on it and prints the time, the verdict
// and the steps explained. Issue 38 item 5: target under 5 s.
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "checker/validate/validate.h"
#include "impl/world.h"

namespace {

using memwal::Status;

Status Commit(memwal::impl::World* world, Status begun) {
  MEMWAL_RETURN_IF_ERROR(begun);
  MEMWAL_ASSIGN_OR_RETURN(const memwal::impl::Outcome outcome,
                          world->Commit(0));
  if (outcome != memwal::impl::Outcome::kPublished)
    return Status::FailedPrecondition("a bench commit did not publish");
  return Status::Ok();
}

Status WriteTable(uint64_t versions, const std::string& dir) {
  memwal::impl::Options options;
  options.protocol = memwal::impl::Protocol::kDerived;
  options.shards = 1;
  options.indexes = 1;
  options.seed = 1;
  MEMWAL_ASSIGN_OR_RETURN(memwal::impl::World world,
                          memwal::impl::World::Create(options));
  MEMWAL_RETURN_IF_ERROR(Commit(&world, world.BeginActivate()));
  MEMWAL_RETURN_IF_ERROR(world.FlushMemTable(0));
  MEMWAL_RETURN_IF_ERROR(Commit(&world, world.BeginCompactSsTable(0, true)));
  for (;;) {
    MEMWAL_ASSIGN_OR_RETURN(const std::vector<uint64_t> numbers,
                            world.Versions());
    if (numbers.size() >= versions) break;
    const uint64_t round = numbers.size() % 3;
    if (round == 0) {
      MEMWAL_RETURN_IF_ERROR(Commit(&world, world.BeginAppend()));
    } else if (round == 1) {
      MEMWAL_ASSIGN_OR_RETURN(const memwal::impl::TableVersion head,
                              world.ReadVersion(numbers.back()));
      if (head.live.size() < 2) {
        MEMWAL_RETURN_IF_ERROR(Commit(&world, world.BeginAppend()));
      } else {
        MEMWAL_RETURN_IF_ERROR(
            Commit(&world, world.BeginDeleteFragment(*head.live.begin())));
      }
    } else {
      MEMWAL_RETURN_IF_ERROR(Commit(&world, world.BeginCreateIndex(0)));
    }
  }
  MEMWAL_ASSIGN_OR_RETURN(memwal::impl::DirectoryStore store,
                          memwal::impl::DirectoryStore::Open(dir));
  return world.WriteTo(&store);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t versions = 1000;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--versions" && i + 1 < argc) {
      versions = std::stoull(argv[++i]);
    } else if (arg == "--keep" && i + 1 < argc) {
      keep = argv[++i];
    } else {
      std::cerr << "usage: memwal-validate-bench [--versions N] [--keep DIR]\n";
      return 2;
    }
  }
  std::string dir = keep;
  if (dir.empty()) {
    char pattern[] = "/tmp/memwal-validate-bench-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      std::cerr << "memwal-validate-bench: cannot make a temporary directory\n";
      return 2;
    }
    dir = pattern;
  }
  const Status written = WriteTable(versions, dir);
  if (!written.ok()) {
    std::cerr << "memwal-validate-bench: " << written.ToString() << "\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const memwal::Result<memwal::checker::validate::Validation> validation =
      memwal::checker::validate::Validate(dir, {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (keep.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  if (!validation.ok()) {
    std::cerr << "memwal-validate-bench: " << validation.status().ToString()
              << "\n";
    return 2;
  }
  std::printf(
      "validate: %zu versions in %.3f s (target < 5 s): %s, %zu of %zu steps "
      "explained\n",
      validation->versions, seconds,
      std::string(memwal::checker::validate::Name(validation->verdict)).c_str(),
      validation->explained.size(), validation->steps);
  return validation->verdict == memwal::checker::validate::Verdict::kValid ? 0
                                                                           : 1;
}
