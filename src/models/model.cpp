#include "models/model.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace lie {

namespace {
const bool kModelKeys = declare_options({
    {"model", OptionType::String, "nfold_pendulum", "model to integrate (`liebench list models`)", {}, "run"},
});
}  // namespace

void Observables::set(const std::string& name, double value) {
  for (auto& [k, v] : items_)
    if (k == name) {
      v = value;
      return;
    }
  items_.emplace_back(name, value);
}

double Observables::get(const std::string& name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return v;
  throw std::out_of_range("observable '" + name + "' not reported by this model");
}

bool Observables::has(const std::string& name) const {
  for (const auto& [k, v] : items_)
    if (k == name) return true;
  return false;
}

void Model::exact_solution(double, double*) const {
  throw std::logic_error("model '" + name() + "' has no exact solution");
}

void Model::ambient_field(double t, const double* y, double* dy) {
  ambient_xi_.resize(space().alg_size());  // kept across calls (classical steppers call this per stage)
  vector_field(t, y, ambient_xi_.data());
  space().generator(ambient_xi_.data(), y, dy);
}

double Model::state_distance(const double* y1, const double* y2, const par::Context& ctx) const {
  const std::size_t n = space().state_size();
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) d[i] = y1[i] - y2[i];
  return std::sqrt(ctx.sum_of_squares(d.data(), n));
}

// <edge> parse: key model and the model's keys
ModelChoice parse_model(const Config& cfg) {
  const std::string name = cfg.get_string("model");
  const ModelEntry& e = ModelRegistry::instance().get(name, "model (key 'model')");
  return {name, &e, e.parse ? e.parse(cfg) : ModelOptions{}};
}

std::unique_ptr<Model> make_model(const Config& cfg, par::Context& ctx) { return make_model(parse_model(cfg), ctx); }
// </edge>

std::unique_ptr<Model> make_model(const ModelChoice& choice, par::Context& ctx) {
  return choice.entry->create(choice.options, ctx);
}

}  // namespace lie
