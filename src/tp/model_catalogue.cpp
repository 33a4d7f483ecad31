#include "tp/model_catalogue.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

namespace faultline {
extern const std::string_view kModelCatalogueYaml;  // generated: rules/models/catalogue.yaml
}

namespace faultline::tp {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view last_component(std::string_view name) {
  while (!name.empty() && name.back() == '/') name.remove_suffix(1);
  size_t slash = name.find_last_of('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

std::optional<int64_t> size_at(const YAML::Node& entry, const char* key) {
  if (!entry[key]) return std::nullopt;
  int64_t value = entry[key].as<int64_t>();
  if (value <= 0) return std::nullopt;
  return value;
}

const std::vector<CatalogueModel>& shipped() {
  static const std::vector<CatalogueModel> models = [] {
    auto parsed = parse_catalogue(kModelCatalogueYaml);
    return parsed ? std::move(*parsed) : std::vector<CatalogueModel>{};
  }();
  return models;
}

}  // namespace

Result<std::vector<CatalogueModel>> parse_catalogue(std::string_view yaml) {
  std::vector<CatalogueModel> models;
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    for (const auto& entry : root["models"]) {
      CatalogueModel model;
      if (!entry["id"]) {
        return Status::error("catalogue:" + std::to_string(entry.Mark().line + 1) +
                             ": an entry needs an 'id'");
      }
      model.id = entry["id"].as<std::string>();
      if (entry["aliases"]) {
        for (const auto& alias : entry["aliases"]) model.aliases.push_back(alias.as<std::string>());
      }
      Geometry& g = model.geometry;
      g.heads = size_at(entry, "heads");
      g.kv_heads = size_at(entry, "kv_heads");
      g.hidden = size_at(entry, "hidden");
      g.ffn = size_at(entry, "ffn");
      g.moe_ffn = size_at(entry, "expert_ffn");
      g.experts = size_at(entry, "experts");
      g.vocab = size_at(entry, "vocab");
      g.layers = size_at(entry, "layers");
      g.vision_heads = size_at(entry, "vision_heads");
      if (entry["source"]) model.source = entry["source"].as<std::string>();
      if (entry["verified"]) model.verified = entry["verified"].as<bool>();
      models.push_back(std::move(model));
    }
  } catch (const YAML::Exception& error) {
    return Status::error("catalogue:" + std::to_string(error.mark.line + 1) + ": " + error.msg);
  }
  return models;
}

const CatalogueModel* find_model(std::string_view name) {
  const auto& models = shipped();
  std::string wanted = lower(name);
  for (const auto& model : models) {
    if (lower(model.id) == wanted) return &model;
    for (const auto& alias : model.aliases) {
      if (lower(alias) == wanted) return &model;
    }
  }
  // A local path or a bare name: its last component must name exactly one entry.
  std::string base = lower(last_component(name));
  if (base.empty()) return nullptr;
  const CatalogueModel* found = nullptr;
  for (const auto& model : models) {
    bool named = lower(last_component(model.id)) == base ||
                 std::any_of(model.aliases.begin(), model.aliases.end(),
                             [&](const std::string& alias) { return lower(last_component(alias)) == base; });
    if (!named) continue;
    if (found && found != &model) return nullptr;
    found = &model;
  }
  return found;
}

}  // namespace faultline::tp
