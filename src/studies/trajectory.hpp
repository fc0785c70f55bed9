#pragma once
// The H5MD trajectory of a run with save_state = true (RunContext::integrate).
#include <cstdint>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "models/state_rows.hpp"
#include "models/model.hpp"
#include "studies/output.hpp"

namespace lie::studies {

/// H5MD trajectory of one run (save_state = true; simulate, invariants, adaptive): one
/// time-dependent element <run_group>/particles/<group>/<field>/{step,time,value} per trajectory
/// field of the model (the raw state rows as field "state" when the model declares none),
/// value [frames][global_components][dim], written collectively one frame at a time. A rigid
/// body's attitude is added as `orientation` (rotation matrix, attribute `representation`) when
/// the model's state holds one and the model does not declare that field.
class Trajectory {
 public:
  Trajectory(StudyOutput& out, hid_t run_group, Model& model);
  void frame(double t, const double* y, std::uint64_t step);
  /// Writes step/time of every element and closes the datasets.
  void finish();

 private:
  StudyOutput& out_;
  Model& model_;
  io::StateRows layout_;
  std::vector<TrajectoryField> fields_;
  std::size_t declared_ = 0;    // fields_[0, declared_) come from the model, the rest from the state
  int orientation_block_ = -1;  // block whose state starts with Q (derived `orientation`), or -1
  h5::Handle root_;
  std::vector<h5::FrameWriter> writers_;
  std::vector<std::int64_t> steps_;
  std::vector<double> times_;
  std::vector<double> buf_;
};

}  // namespace lie::studies
