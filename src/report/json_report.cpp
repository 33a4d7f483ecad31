#include "base/json_writer.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "report/story.hpp"

namespace faultline::report {
namespace {

void write_facts(JsonWriter& json, const Facts& facts) {
  json.begin_object();
  for (const auto& [name, value] : facts) json.key(name).value(value);
  json.end_object();
}

void write_strings(JsonWriter& json, const std::vector<std::string>& items) {
  json.begin_array();
  for (const auto& item : items) json.string(item);
  json.end_array();
}

void write_verification(JsonWriter& json, const Verification& verification) {
  json.begin_object();
  json.key("command").string(verification.command);
  json.key("ran").boolean(verification.ran);
  json.key("exit_code");
  if (verification.ran)
    json.number(int64_t{verification.exit_code});
  else
    json.null();
  json.key("passed").boolean(verification.passed());
  json.key("output").string(verification.output);
  json.end_object();
}

void write_sizes(JsonWriter& json, const std::vector<int64_t>& sizes) {
  json.begin_inline_array();
  for (int64_t size : sizes) json.number(size);
  json.end_array();
}

void write_action(JsonWriter& json, const correlate::Action& action) {
  json.begin_object();
  json.key("kind").string(correlate::to_string(action.kind));
  json.key("retryable").boolean(action.retryable);
  json.key("valid").begin_object();
  if (!action.valid_tp.empty()) {
    json.key("tp");
    write_sizes(json, action.valid_tp);
  }
  if (!action.valid_pp.empty()) {
    json.key("pp");
    write_sizes(json, action.valid_pp);
  }
  if (action.expert && !action.expert->valid_ep.empty()) {
    json.key("ep");
    write_sizes(json, action.expert->valid_ep);
  }
  if (action.virtual_pipeline && !action.virtual_pipeline->valid_vp.empty()) {
    json.key("vp");
    write_sizes(json, action.virtual_pipeline->valid_vp);
  }
  json.end_object();
  json.key("suggest");
  if (action.suggest) {
    json.begin_object();
    json.key("tp").number(action.suggest->tp);
    json.key("pp").number(action.suggest->pp);
    json.key("dp").number(action.suggest->dp);
    json.end_object();
  } else {
    json.null();
  }
  json.key("gpus");
  if (action.gpus)
    json.number(*action.gpus);
  else
    json.null();
  json.key("settings").begin_object();
  for (const auto& [name, value] : action.settings) json.key(name).number(value);
  json.end_object();
  json.key("exclude_hosts");
  write_strings(json, action.exclude_hosts);
  json.key("rests_on");
  write_strings(json, action.used);
  json.key("unknown");
  write_strings(json, action.unknown);
  if (action.checkpoint) {
    const correlate::CheckpointLayout& layout = *action.checkpoint;
    json.key("checkpoint").begin_object();
    for (auto [name, shape] :
         {std::pair{"saved_shape", &layout.saved_shape}, std::pair{"current_shape", &layout.current_shape}}) {
      json.key(name).begin_array();
      for (int64_t size : *shape) json.number(size);
      json.end_array();
    }
    json.key("dimension").number(static_cast<int64_t>(layout.ratio.dimension));
    json.key("factor").number(layout.ratio.factor);
    json.key("padded").boolean(layout.ratio.padded);
    json.key("saved_smaller").boolean(layout.ratio.saved_smaller);
    for (auto [name, size] :
         {std::pair{"loaded_tp", layout.loaded_tp}, std::pair{"saved_tp", layout.saved_tp}}) {
      json.key(name);
      if (size)
        json.number(*size);
      else
        json.null();
    }
    json.end_object();
  }
  json.end_object();
}

// A story item as data, with its words beside them (report/story.hpp).
void write_story_item(JsonWriter& json, const correlate::StoryItem& item) {
  json.begin_object();
  json.key("kind").string(correlate::to_string(item.kind));
  json.key("ranks").begin_array();
  for (int rank : item.ranks) json.number(static_cast<int64_t>(rank));
  json.end_array();
  json.key("cause").string(item.cause);
  if (item.kind == correlate::StoryItem::Kind::kFailedFirst) {
    json.key("title").string(item.title);
    json.key("at");
    if (item.at.valid)
      json.string(item.at.to_string());
    else
      json.null();
  } else {
    json.key("did").string(item.did);
    for (auto [name, seconds] : {std::pair{"seconds_later", item.seconds_later},
                                 std::pair{"printed_seconds_later", item.printed_seconds_later}}) {
      json.key(name);
      if (seconds)
        json.number(*seconds);
      else
        json.null();
    }
    json.key("collateral").boolean(item.collateral);
  }
  json.key("text").string(story_text(item));
  json.end_object();
}

// A confidence reason as data: its kind, its fields, and its words beside them (report/reasons.hpp).
void write_reason(JsonWriter& json, const correlate::ConfidenceReason& reason) {
  struct Field {
    JsonWriter& json;
    void operator()(bool value) const { json.boolean(value); }
    void operator()(int64_t value) const { json.number(value); }
    void operator()(const std::string& value) const { json.string(value); }
    void operator()(const std::vector<int64_t>& values) const {
      json.begin_array();
      for (int64_t value : values) json.number(value);
      json.end_array();
    }
    void operator()(const std::vector<std::string>& values) const {
      json.begin_array();
      for (const auto& value : values) json.string(value);
      json.end_array();
    }
  };
  json.begin_object();
  json.key("kind").string(correlate::to_string(reason.kind));
  for (const auto& [name, value] : reason.fields) {
    json.key(name);
    std::visit(Field{json}, value);
  }
  json.key("text").string(reason_text(reason));
  json.end_object();
}

void write_diagnosis(JsonWriter& json, const correlate::Diagnosis& diagnosis,
                     const Verification* verification) {
  json.begin_object();
  json.key("cause").string(diagnosis.cause);
  json.key("rule").string(diagnosis.rule->id);
  json.key("title").string(diagnosis.title);
  json.key("confidence").number(diagnosis.confidence);
  json.key("confidence_reasons").begin_array();
  for (const auto& reason : diagnosis.reasons) write_reason(json, reason);
  json.end_array();
  json.key("fingerprint").string(diagnosis.fingerprint);
  if (!diagnosis.failure_template.empty()) json.key("template").string(diagnosis.failure_template);
  json.key("initiating_rank");
  if (diagnosis.initiating_rank)
    json.number(int64_t{*diagnosis.initiating_rank});
  else
    json.null();
  json.key("initiating_host");
  if (!diagnosis.initiating_host.empty())
    json.string(diagnosis.initiating_host);
  else
    json.null();
  json.key("first_seen");
  if (diagnosis.first_seen.valid)
    json.string(diagnosis.first_seen.to_string());
  else
    json.null();
  json.key("facts");
  write_facts(json, diagnosis.facts);
  json.key("explain").string(diagnosis.explain);
  json.key("fix");
  write_strings(json, diagnosis.fix);
  json.key("verify").string(diagnosis.verify);
  json.key("story").begin_array();
  for (const auto& step : diagnosis.story) write_story_item(json, step);
  json.end_array();
  json.key("action");
  write_action(json, diagnosis.action);
  if (verification) {
    json.key("verification");
    write_verification(json, *verification);
  }
  json.end_object();
}

void write_job(JsonWriter& json, const RunReport& report, size_t index) {
  const correlate::JobAnalysis& job = report.jobs[index];
  json.begin_object();
  json.key("job").string(job.job);
  json.key("ranks_seen").begin_inline_array();
  for (int rank : job.shape.ranks_seen) json.number(int64_t{rank});
  json.end_array();
  json.key("hosts");
  write_strings(json, job.shape.hosts);
  json.key("coverage").begin_object();
  json.key("world_size");
  if (job.coverage.world_size)
    json.number(*job.coverage.world_size);
  else
    json.null();
  json.key("missing_ranks").begin_inline_array();
  for (int rank : job.coverage.missing_ranks) json.number(int64_t{rank});
  json.end_array();
  json.key("truncated_sources");
  write_strings(json, job.shape.truncated_sources);
  json.end_object();
  json.key("diagnosis");
  if (job.diagnosis)
    write_diagnosis(json, *job.diagnosis, verification_of(report, index));
  else
    json.null();
  json.key("job_facts").begin_array();
  for (const auto& fact : job.job_facts) {
    json.begin_object();
    json.key("name").string(fact.name);
    json.key("value");
    if (const auto* number = std::get_if<int64_t>(&fact.value))
      json.number(*number);
    else
      json.string(to_display(fact.value));
    if (fact.catalogue.empty()) {
      json.key("source").string(source_name(report, fact.where.source));
      json.key("line").number(static_cast<int64_t>(fact.where.line));
    } else {
      json.key("catalogue").string(fact.catalogue);
    }
    json.end_object();
  }
  json.end_array();
  json.key("findings").begin_array();
  for (const auto& group : job.findings) {
    json.begin_object();
    json.key("rule").string(group.rule->id);
    json.key("cause").string(group.rule->cause);
    json.key("role").string(rules::to_string(group.rule->role));
    json.key("ranks").begin_inline_array();
    for (int rank : group.ranks) json.number(int64_t{rank});
    json.end_array();
    json.key("occurrences").number(static_cast<int64_t>(group.occurrences));
    json.key("fingerprint").string(group.fingerprint);
    json.key("collateral_of");
    if (group.collateral_of.empty())
      json.null();
    else
      json.string(group.collateral_of);
    json.key("in_baseline").boolean(group.in_baseline);
    json.key("facts");
    write_facts(json, group.facts);
    json.key("evidence").begin_array();
    for (const auto& evidence : group.evidence) {
      json.begin_object();
      json.key("source").string(source_name(report, evidence.source));
      json.key("line").number(static_cast<int64_t>(evidence.line));
      json.key("rank");
      if (evidence.rank >= 0)
        json.number(int64_t{evidence.rank});
      else
        json.null();
      json.key("text").string(evidence.text);
      json.end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

void write_inputs(JsonWriter& json, const RunReport& report) {
  json.key("inputs").begin_array();
  for (const auto& source : report.sources) {
    json.begin_object();
    json.key("source").string(source.name);
    json.key("bytes").number(static_cast<int64_t>(source.bytes));
    json.key("lines").number(static_cast<int64_t>(source.lines));
    json.key("format").string(source.format);
    if (source.rank_hint) json.key("rank_hint").number(int64_t{*source.rank_hint});
    if (source.lines_cut) json.key("lines_cut").number(static_cast<int64_t>(source.lines_cut));
    if (source.bad_lines) json.key("bad_lines").number(static_cast<int64_t>(source.bad_lines));
    if (!source.error.empty()) json.key("error").string(source.error);
    if (source.error_offset) json.key("error_offset").number(static_cast<int64_t>(*source.error_offset));
    if (source.binary_stretch_count) {
      json.key("binary").begin_object();
      json.key("stretches").begin_array();
      for (const auto& stretch : source.binary_stretches) {
        json.begin_object();
        json.key("offset").number(static_cast<int64_t>(stretch.offset));
        json.key("length").number(static_cast<int64_t>(stretch.length));
        json.key("kind").string(stretch.nul ? "nul" : "binary");
        json.end_object();
      }
      json.end_array();
      json.key("count").number(static_cast<int64_t>(source.binary_stretch_count));
      json.key("bytes").number(static_cast<int64_t>(source.binary_bytes));
      json.end_object();
    }
    json.end_object();
  }
  json.end_array();
  json.key("skipped").begin_array();
  for (const auto& skipped : report.skipped) {
    json.begin_object();
    json.key("source").string(skipped.source);
    json.key("reason").string(skipped.reason);
    if (skipped.offset) json.key("offset").number(static_cast<int64_t>(*skipped.offset));
    json.end_object();
  }
  json.end_array();
}

}  // namespace

std::string render_json(const RunReport& report, bool pretty) {
  JsonWriter json(pretty);
  json.begin_object();
  json.key("schema").string("faultline.report/1");
  json.key("jobs").begin_array();
  for (size_t i = 0; i < report.jobs.size(); ++i) write_job(json, report, i);
  json.end_array();
  write_inputs(json, report);
  json.end_object();
  return json.take() + "\n";
}

std::string render_jsonl(const RunReport& report) {
  std::string out;
  for (size_t i = 0; i < report.jobs.size(); ++i) {
    JsonWriter json(false);
    json.begin_object();
    json.key("schema").string("faultline.report/1");
    json.key("jobs").begin_array();
    write_job(json, report, i);
    json.end_array();
    write_inputs(json, report);
    json.end_object();
    out += json.take() + "\n";
  }
  return out;
}

}  // namespace faultline::report
