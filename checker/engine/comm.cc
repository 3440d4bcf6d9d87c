// Ranks over Open MPI or alone (checker/engine/comm.h).
#include "checker/engine/comm.h"

#include <mpi.h>

#include <cstdlib>
#include <limits>

#include "base/assert.h"

namespace memwal::checker::engine {
namespace {

class SingleComm final : public Comm {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> AllToAll(std::vector<std::string> send) override {
    MEMWAL_ASSERT(send.size() == 1);
    return send;
  }
  void AllReduce(std::vector<uint64_t>*, Reduce) override {}
  std::vector<uint64_t> AllGather(uint64_t value) override { return {value}; }
  void Broadcast(std::string*, int root) override { MEMWAL_ASSERT(root == 0); }
  void Barrier() override {}
};

MPI_Op OpOf(Reduce op) {
  switch (op) {
    case Reduce::kMin:
      return MPI_MIN;
    case Reduce::kMax:
      return MPI_MAX;
    case Reduce::kSum:
      return MPI_SUM;
    case Reduce::kOr:
      return MPI_BOR;
  }
  return MPI_SUM;
}

void Check(int code) { MEMWAL_ASSERT(code == MPI_SUCCESS); }

int IntSize(std::size_t bytes) {
  MEMWAL_ASSERT(bytes <=
                static_cast<std::size_t>(std::numeric_limits<int>::max()));
  return static_cast<int>(bytes);
}

void Finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

class MpiComm final : public Comm {
 public:
  MpiComm() {
    int initialized = 0;
    Check(MPI_Initialized(&initialized));
    if (!initialized) {
      Check(MPI_Init(nullptr, nullptr));
      // memwal-check ends with std::quick_exit (checker/cli/main.cc), tests
      // with exit: both finalize.
      std::atexit(&Finalize);
      std::at_quick_exit(&Finalize);
    }
    Check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    Check(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> AllToAll(std::vector<std::string> send) override {
    MEMWAL_ASSERT(send.size() == static_cast<std::size_t>(size_));
    std::vector<int> send_counts(size_), recv_counts(size_);
    std::vector<int> send_offsets(size_), recv_offsets(size_);
    std::string send_bytes;
    for (int t = 0; t < size_; ++t) {
      send_counts[t] = IntSize(send[t].size());
      send_offsets[t] = IntSize(send_bytes.size());
      send_bytes += send[t];
      if (t != rank_) bytes_sent_ += send[t].size();
    }
    Check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1,
                       MPI_INT, MPI_COMM_WORLD));
    std::size_t total = 0;
    for (int t = 0; t < size_; ++t) {
      recv_offsets[t] = IntSize(total);
      total += static_cast<std::size_t>(recv_counts[t]);
    }
    std::string recv_bytes(total, '\0');
    Check(MPI_Alltoallv(send_bytes.data(), send_counts.data(),
                        send_offsets.data(), MPI_BYTE, recv_bytes.data(),
                        recv_counts.data(), recv_offsets.data(), MPI_BYTE,
                        MPI_COMM_WORLD));
    std::vector<std::string> out(size_);
    for (int t = 0; t < size_; ++t)
      out[t] = recv_bytes.substr(recv_offsets[t], recv_counts[t]);
    return out;
  }

  void AllReduce(std::vector<uint64_t>* values, Reduce op) override {
    Check(MPI_Allreduce(MPI_IN_PLACE, values->data(), IntSize(values->size()),
                        MPI_UINT64_T, OpOf(op), MPI_COMM_WORLD));
  }

  std::vector<uint64_t> AllGather(uint64_t value) override {
    std::vector<uint64_t> out(size_);
    Check(MPI_Allgather(&value, 1, MPI_UINT64_T, out.data(), 1, MPI_UINT64_T,
                        MPI_COMM_WORLD));
    return out;
  }

  void Broadcast(std::string* bytes, int root) override {
    uint64_t size = bytes->size();
    Check(MPI_Bcast(&size, 1, MPI_UINT64_T, root, MPI_COMM_WORLD));
    bytes->resize(size);
    Check(MPI_Bcast(bytes->data(), IntSize(size), MPI_BYTE, root,
                    MPI_COMM_WORLD));
    if (rank_ == root) bytes_sent_ += size * (size_ - 1);
  }

  void Barrier() override { Check(MPI_Barrier(MPI_COMM_WORLD)); }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

bool UnderMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

Comm& WorldComm() {
  static Comm* const comm = UnderMpirun()
                                ? static_cast<Comm*>(new MpiComm())
                                : static_cast<Comm*>(new SingleComm());
  return *comm;
}

int WorldRank() { return WorldComm().rank(); }

}  // namespace memwal::checker::engine
