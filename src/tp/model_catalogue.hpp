// The model catalogue: Hugging Face model ids and their geometry (heads, KV heads, hidden, FFN,
// experts, vocabulary, layers, vision heads), from the models' public config.json files, kept as
// data in rules/models/catalogue.yaml (each entry names its source) and compiled into the
// binary. A log that names a model, and `faultline preflight --model`, take its sizes from here.
// An id the catalogue does not hold is unknown: never guessed from a similar name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "tp/layout.hpp"

namespace faultline::tp {

struct CatalogueModel {
  std::string id;
  std::vector<std::string> aliases;
  Geometry geometry;
  std::string source;
  bool verified = false;
};

// The entry for `name`: a model id or alias (case-insensitive), or a local path whose last
// component names exactly one entry ("/models/Qwen2.5-7B-Instruct"). Thread-safe; the catalogue
// is parsed at the first call.
const CatalogueModel* find_model(std::string_view name);

// Parses a catalogue (the shipped one, or a test's). Errors name the line: "catalogue:12: ...".
Result<std::vector<CatalogueModel>> parse_catalogue(std::string_view yaml);

}  // namespace faultline::tp
