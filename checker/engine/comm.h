// The ranks of a distributed search and what they say to each other: a
// communicator over Open MPI (MPI_COMM_WORLD) when the process was started by
// mpirun, or a single rank without MPI otherwise. Only collective operations:
// every rank calls each of them in the same order.
#ifndef MEMWAL_CHECKER_ENGINE_COMM_H_
#define MEMWAL_CHECKER_ENGINE_COMM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memwal::checker::engine {

enum class Reduce { kMin, kMax, kSum, kOr };

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Sends send[t] to rank t; returns what each rank sent to this one, by
  // source rank.
  virtual std::vector<std::string> AllToAll(std::vector<std::string> send) = 0;
  // Element-wise over ranks; every rank passes the same length.
  virtual void AllReduce(std::vector<uint64_t>* values, Reduce op) = 0;
  uint64_t AllReduce(uint64_t value, Reduce op) {
    std::vector<uint64_t> values{value};
    AllReduce(&values, op);
    return values[0];
  }
  // Every rank's value, by rank.
  virtual std::vector<uint64_t> AllGather(uint64_t value) = 0;
  // `bytes` from `root` to every rank.
  virtual void Broadcast(std::string* bytes, int root) = 0;
  virtual void Barrier() = 0;
  // Payload bytes this rank has sent to other ranks (AllToAll and
  // Broadcast), excluding what it sent to itself.
  uint64_t bytes_sent() const { return bytes_sent_; }

 protected:
  uint64_t bytes_sent_ = 0;
};

// True when this process runs under mpirun (Open MPI's environment).
bool UnderMpirun();

// The process's communicator: MPI_COMM_WORLD under mpirun (MPI is
// initialized on the first call and finalized at exit), a single rank
// otherwise. The same object on every call.
Comm& WorldComm();

// This process's rank (0 without mpirun); initializes MPI under mpirun.
int WorldRank();

}  // namespace memwal::checker::engine

#endif  // MEMWAL_CHECKER_ENGINE_COMM_H_
