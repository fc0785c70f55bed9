#pragma once
// Ownership rule of the small systems (one rigid body, one heavy top, a few pendula): they are
// never split over ranks. Rank 0 holds every component and the other ranks hold none, so that
// reductions over local parts (Model::state_distance, ErrorNorm) count each component once and
// every number is the same on 1..P ranks. Observables are computed on rank 0 and broadcast
// with an exact sum (x + 0 + ... + 0 = x bitwise), so all ranks report identical values.
#include <cstddef>

#include "parallel/context.hpp"

namespace lie {

class RootOwned {
 public:
  /// ctx == nullptr: a serial model (tests that construct models directly).
  explicit RootOwned(const par::Context* ctx) : ctx_(ctx) {}
  bool owns() const { return ctx_ == nullptr || ctx_->rank() == 0; }
  /// Local number of components of a block of n.
  std::size_t local(std::size_t n) const { return owns() ? n : 0; }
  /// Rank 0's value on every rank. Collective when ctx has more than one rank.
  double broadcast(double v) const {
    if (ctx_ == nullptr || ctx_->size() == 1) return v;
    return ctx_->sum(owns() ? v : 0.0);
  }
  const par::Context* context() const { return ctx_; }

 private:
  const par::Context* ctx_;
};

}  // namespace lie
