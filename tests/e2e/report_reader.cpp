#include "report_reader.hpp"

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

namespace faultline::testing {
namespace {

std::string display(simdjson::dom::element value) {
  switch (value.type()) {
    case simdjson::dom::element_type::INT64:
      return std::to_string(int64_t(value));
    case simdjson::dom::element_type::UINT64:
      return std::to_string(uint64_t(value));
    case simdjson::dom::element_type::STRING:
      return std::string(std::string_view(value));
    case simdjson::dom::element_type::ARRAY: {
      std::string out;
      for (auto item : simdjson::dom::array(value)) out += (out.empty() ? "" : ", ") + display(item);
      return out;
    }
    default:
      return simdjson::to_string(value);
  }
}

}  // namespace

Outcome outcome_from_report(const std::string& json_text) {
  Outcome outcome;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(json_text).get(root)) {
    outcome.error = simdjson::error_message(error);
    return outcome;
  }
  simdjson::dom::element diagnosis;
  if (root["jobs"].at(0)["diagnosis"].get(diagnosis)) {
    outcome.error = "no jobs[0].diagnosis key";
    return outcome;
  }
  outcome.parsed = true;
  if (diagnosis.is_null()) {
    outcome.cause = "negative";
    return outcome;
  }
  outcome.cause = std::string(std::string_view(diagnosis["cause"]));
  auto rank = diagnosis["initiating_rank"];
  if (!rank.is_null()) outcome.initiating_rank = static_cast<int>(int64_t(rank));
  for (auto [key, value] : simdjson::dom::object(diagnosis["facts"]))
    outcome.facts[std::string(key)] = display(value);
  return outcome;
}

Outcome outcome_from_yaml(const std::string& path) {
  Outcome outcome;
  try {
    YAML::Node root = YAML::LoadFile(path);
    outcome.cause = root["cause"].as<std::string>();
    if (root["initiating_rank"] && !root["initiating_rank"].IsNull()) {
      outcome.initiating_rank = root["initiating_rank"].as<int>();
    }
    if (root["facts"] && root["facts"].IsMap()) {
      for (auto it = root["facts"].begin(); it != root["facts"].end(); ++it) {
        if (it->second.IsScalar()) outcome.facts[it->first.as<std::string>()] = it->second.as<std::string>();
      }
    }
    outcome.parsed = true;
  } catch (const YAML::Exception& e) {
    outcome.error = path + ": " + e.what();
  }
  return outcome;
}

}  // namespace faultline::testing
