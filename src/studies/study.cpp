#include "studies/study.hpp"

#include "io/safe_output.hpp"

namespace lie {

namespace {
const bool kStudyKeys = declare_options({
    {"study", OptionType::String, "simulate", "study kind (`liebench list studies`)", {}, "run"},
});
}  // namespace

void run_study(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  const std::string kind = cfg.get_string("study");
  const StudyEntry& e = StudyRegistry::instance().get(kind, "study (key 'study')");
  // Every study validates its whole configuration (check) before it creates any file.
  e.run(cfg, ctx, req);
}

void check_study(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  const std::string kind = cfg.get_string("study");
  const StudyEntry& e = StudyRegistry::instance().get(kind, "study (key 'study')");
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  if (e.check) e.check(cfg, ctx);
}

}  // namespace lie
