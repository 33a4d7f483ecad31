// `faultline repro`: run a small tensor-parallel job that reproduces a TP configuration
// failure, shows that faultline diagnoses the error it raises, and checks the fix.
#include <algorithm>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/pipeline.hpp"
#include "preflight/model_config.hpp"
#include "repro/tp_job.hpp"

namespace faultline::cli {
namespace {

// Every result says how real it is: HOST_CHECK (the frameworks' checks, no computation) or
// CPU_EMULATION (ranks as slices on the CPU, the all-reduce as a sum); never more.
std::string describe(const repro::TpOutcome& outcome) {
  if (!outcome.ran) return "[HOST_CHECK] refused: " + outcome.error;
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "[CPU_EMULATION] ran; %s the single-rank result (max difference %.1e)",
                outcome.matches ? "matches" : "DOES NOT match", outcome.max_difference);
  return buffer;
}

// The largest TP size, at most `limit`, that the job can take.
int64_t fitting_tp(const repro::TpJob& job, int64_t limit) {
  for (int64_t tp = limit; tp > 1; --tp) {
    repro::TpJob candidate = job;
    candidate.tp = tp;
    candidate.tokens = 1;
    if (repro::run_on_cpu(candidate).ran) return tp;
  }
  return 1;
}

}  // namespace

int run_repro(const Options& options, const rules::RuleSet& rules, Output& out) {
  if (options.backend != "cpu") {
    out.err("faultline: the '" + options.backend +
            "' backend is not built into this binary (it needs CUDA and NCCL at build time); use --backend cpu\n");
    return 2;
  }
  repro::TpJob job;
  job.tp = options.tp;
  if (!options.config.empty()) {
    auto shape = preflight::read_model_config(options.config);
    if (!shape) {
      out.err("faultline: " + shape.status().message() + "\n");
      return 2;
    }
    if (!shape->heads) {
      out.err("faultline: " + options.config + ": no num_attention_heads\n");
      return 2;
    }
    job.heads = *shape->heads;
    job.kv_heads = shape->kv_heads.value_or(0);
    job.ffn = shape->ffn.value_or(0);
  }
  if (options.heads) job.heads = options.heads;
  if (options.kv_heads) job.kv_heads = options.kv_heads;
  if (options.ffn) job.ffn = options.ffn;
  if (job.heads <= 0) {
    out.err("faultline: 'repro' needs --config config.json or --heads N\n");
    return 2;
  }
  auto outcome = repro::run_on_cpu(job);
  out.out("repro on the cpu backend: " + std::to_string(job.heads) + " heads, " +
          (job.kv_heads ? std::to_string(job.kv_heads) : std::to_string(job.heads)) + " KV heads, FFN " +
          std::to_string(job.ffn ? job.ffn : 4 * job.heads * job.head_dim) + ", TP " + std::to_string(job.tp) + "\n");
  out.out("  TP " + std::to_string(job.tp) + ": " + describe(outcome) + "\n");
  if (outcome.ran) return outcome.matches ? 0 : 1;

  // The error, as the frameworks print it, goes through faultline's own rules.
  rules::Engine engine(rules);
  auto findings = findings_for_text(engine, outcome.error);
  auto same_cause = std::find_if(findings.begin(), findings.end(),
                                 [&](const rules::Finding& f) { return f.rule->cause == outcome.cause; });
  out.out(same_cause == findings.end()
              ? "  faultline does not recognise this error: a rule is missing for " + outcome.cause + "\n"
              : "  faultline diagnoses it as " + outcome.cause + " (rule " + same_cause->rule->id + ")\n");
  int64_t fix = fitting_tp(job, job.tp);
  repro::TpJob fixed = job;
  fixed.tp = fix;
  out.out("  the fix, TP " + std::to_string(fix) + ": " + describe(repro::run_on_cpu(fixed)) + "\n");
  return 1;
}

}  // namespace faultline::cli
