// `faultline repro`: run a small tensor-parallel job that reproduces a TP configuration
// failure, shows that faultline diagnoses the error it raises, and checks the fix against an
// unsharded reference. Every result says how real it is (HOST_CHECK, CPU_EMULATION,
// GPU_LOCAL_REDUCE, NCCL_SINGLE_RANK, REAL_MULTI_GPU) and never claims more.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "job/job_runner.hpp"
#include "preflight/model_config.hpp"
#include "repro/cpu_backend.hpp"
#include "repro/cuda_backend.hpp"
#include "repro/host_memory.hpp"
#include "repro/tp_job.hpp"

namespace faultline::cli {
namespace {

std::string number(double value, const char* format) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string sizes(const repro::TpJob& job) {
  return "head_dim " + std::to_string(job.head_dim) + ", hidden " + std::to_string(job.hidden_size()) +
         ", FFN " + std::to_string(job.ffn_size()) + ", vocabulary " + std::to_string(job.vocab_size()) +
         " padded to " + std::to_string(job.padded_vocab()) + " (a multiple of " +
         std::to_string(job.vocab_multiple) + "×TP)";
}

// The outcome's first line, after "TP N: ", and the lines that follow it.
std::string describe(const repro::TpOutcome& outcome) {
  using Kind = repro::TpOutcome::Kind;
  if (outcome.kind == Kind::kRefused) return "[HOST_CHECK] refused: " + outcome.error + "\n";
  if (outcome.kind == Kind::kCannotRun) return "cannot run: " + outcome.error + "\n";
  std::string text = "[" + std::string(repro::label(outcome.realism)) + "] ran; sharded " +
                     (outcome.matches ? "matches" : "DOES NOT match") +
                     " the unsharded double-precision reference: max |difference| " +
                     number(outcome.max_difference, "%.1e") + (outcome.matches ? " <= " : " > ") +
                     "tolerance " + number(outcome.tolerance, "%.1e") + " (" +
                     number(outcome.relative_tolerance, "%.0e") + " × max(1, max |reference| " +
                     number(outcome.reference_scale, "%.2f") + "))\n";
  text += "    ranks: " + outcome.note + "; " + std::to_string(outcome.all_reduces) + " all-reduces\n";
  text += "    timings: init " + number(outcome.init_ms, "%.1f") + " ms";
  if (outcome.communicator_ms > 0)
    text += " (NCCL communicators " + number(outcome.communicator_ms, "%.1f") + " ms)";
  text += ", run " + number(outcome.run_ms, "%.2f") + " ms";
  if (outcome.warm_run_ms > 0) text += " (again, warm: " + number(outcome.warm_run_ms, "%.2f") + " ms)";
  text += ", reference " + number(outcome.reference_ms, "%.1f") + " ms\n";
  return text;
}

// The largest TP size, at most `limit`, that the frameworks accept for this model.
int64_t fitting_tp(const repro::ModelGeometry& geometry, int64_t limit) {
  for (int64_t tp = limit; tp > 1; --tp) {
    if (repro::check_on_host(repro::full_size_job(geometry, tp)).passed) return tp;
  }
  return 1;
}

// `faultline` has no CUDA backend (it would load CUDA, cuBLAS and NCCL on every run); where the
// build made one, `faultline-cuda` next to it is the same CLI with it: run that instead. Returns
// only when there is none or it cannot be started.
void run_cuda_binary(const Options& options) {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || options.arguments.empty()) return;
  auto sibling = self.parent_path() / "faultline-cuda";
  if (self.filename() == sibling.filename() || access(sibling.c_str(), X_OK) != 0) return;
  std::vector<std::string> arguments = options.arguments;
  arguments[0] = sibling.string();
  std::vector<char*> pointers;
  for (auto& argument : arguments) pointers.push_back(argument.data());
  pointers.push_back(nullptr);
  std::fflush(nullptr);
  execv(sibling.c_str(), pointers.data());
}

// The model's sizes: the config's, then the options' over them, completed (repro::complete).
Result<repro::ModelGeometry> model_geometry(const Options& options) {
  repro::ModelGeometry geometry;
  if (!options.config.empty()) {
    auto shape = preflight::read_model_config(options.config);
    if (!shape) return shape.status();
    if (!shape->heads) return Status::error(options.config + ": no num_attention_heads");
    geometry.heads = *shape->heads;
    geometry.kv_heads = shape->kv_heads.value_or(0);
    geometry.hidden = shape->hidden.value_or(0);
    geometry.ffn = shape->ffn.value_or(0);
    geometry.vocab = shape->vocab.value_or(0);
  }
  if (options.heads) geometry.heads = options.heads;
  if (options.kv_heads) geometry.kv_heads = options.kv_heads;
  if (options.ffn) geometry.ffn = options.ffn;
  if (options.vocab) geometry.vocab = options.vocab;
  if (geometry.heads <= 0) return Status::error("'repro' needs --config config.json or --heads N");
  return repro::complete(geometry);
}

// The job that runs for TP `tp`: the real sizes with --full-size, else scaled down.
repro::TpJob job_for(const Options& options, const repro::ModelGeometry& geometry, int64_t tp) {
  return options.full_size ? repro::full_size_job(geometry, tp) : repro::scaled_job(geometry, tp);
}

repro::TpOutcome run_job(const Options& options, const repro::TpJob& job) {
  return options.backend == "cuda" ? repro::run_on_cuda(job) : repro::run_on_cpu(job);
}

// The first lines: the model, the tokens, and the sizes the job runs with.
std::string job_summary(const Options& options, const repro::ModelGeometry& geometry,
                        const repro::TpJob& job) {
  std::string text =
      "repro of TP " + std::to_string(options.tp) + " on the " + options.backend +
      " backend: " + std::to_string(geometry.heads) + " heads, " + std::to_string(geometry.kv_heads) +
      " KV heads, hidden " + std::to_string(geometry.hidden) + ", FFN " + std::to_string(geometry.ffn) +
      ", vocabulary " + std::to_string(geometry.vocab) + ", " + std::to_string(job.tokens) + " tokens\n";
  if (options.full_size) {
    return text + "  sizes: the real ones, " + sizes(job) + "; about " +
           repro::format_bytes(repro::weight_bytes(job)) +
           " of weights in double precision, which can be slow\n";
  }
  return text + "  sizes: scaled down " + std::to_string(repro::scale_factor(geometry)) +
         "× (the same heads, KV heads and divisibility by TP): " + sizes(job) +
         "; --full-size runs the real ones\n";
}

// A TP size the frameworks accept: run it and compare with the reference (0 when it matches).
int run_accepted(const Options& options, const repro::TpJob& job, Output& out) {
  repro::TpOutcome outcome = run_job(options, job);
  if (outcome.kind == repro::TpOutcome::Kind::kCannotRun) {
    out.err("faultline: repro --backend " + options.backend + ": " + outcome.error +
            (options.full_size ? "; without --full-size the job is scaled down" : "") +
            (options.backend == "cuda" ? "; --backend cpu runs the job on this machine's CPU" : "") + "\n");
    return 2;
  }
  out.out("  TP " + std::to_string(options.tp) + ": " + describe(outcome));
  return outcome.matches ? 0 : 1;
}

// A TP size the frameworks refuse: their error, whether faultline's own rules diagnose it, and
// the largest TP size that fits, run. Always 1: the failure is reproduced.
int run_refused(const Options& options, const rules::RuleSet& rules, const repro::ModelGeometry& geometry,
                const repro::HostCheck& check, Output& out) {
  out.out("  TP " + std::to_string(options.tp) + ": [HOST_CHECK] refused: " + check.error + "\n");
  rules::Engine engine(rules);
  auto findings = job::findings_for_text(engine, check.error);
  auto same_cause = std::find_if(findings.begin(), findings.end(),
                                 [&](const rules::Finding& f) { return f.rule->cause == check.cause; });
  out.out(same_cause == findings.end()
              ? "  faultline does not recognise this error: a rule is missing for " + check.cause + "\n"
              : "  faultline diagnoses it as " + check.cause + " (rule " + same_cause->rule->id + ")\n");
  int64_t fix = fitting_tp(geometry, options.tp);
  out.out("  the fix, TP " + std::to_string(fix) + ": " +
          describe(run_job(options, job_for(options, geometry, fix))));
  return 1;
}

}  // namespace

int run_repro(const Options& options, const rules::RuleSet& rules, Output& out) {
  if (options.backend == "cuda" && !repro::cuda_backend_built()) {
    run_cuda_binary(options);  // returns only when faultline-cuda could not be run
    std::string why_not;
    repro::cuda_device_count(why_not);
    out.err("faultline: " + why_not + "\n");
    return 2;
  }
  auto geometry = model_geometry(options);
  if (!geometry) {
    out.err("faultline: " + geometry.status().message() + "\n");
    return 2;
  }
  repro::TpJob real = repro::full_size_job(*geometry, options.tp);
  if (std::string invalid = repro::invalid_sizes(real); !invalid.empty()) {
    out.err("faultline: repro: " + invalid + "\n");
    return 2;
  }
  repro::TpJob job = job_for(options, *geometry, options.tp);
  out.out(job_summary(options, *geometry, job));
  // The frameworks' checks see the real sizes, and say what they say about them.
  repro::HostCheck check = repro::check_on_host(real);
  if (check.passed) return run_accepted(options, job, out);
  return run_refused(options, rules, *geometry, check, out);
}

}  // namespace faultline::cli
