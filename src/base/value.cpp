#include "base/value.hpp"

#include "base/text.hpp"

namespace faultline {

std::string to_display(const Value& value) {
  struct Visitor {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(const IntList& list) const {
      std::string out;
      for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + std::to_string(list[i]);
      return out;
    }
    std::string operator()(const StringList& list) const { return join(list, ", "); }
  };
  return std::visit(Visitor{}, value);
}

Value value_from_capture(std::string_view text) {
  bool negative = text.starts_with('-');
  std::string_view digits = negative ? text.substr(1) : text;
  if (!digits.empty() && digits.size() <= 18) {
    if (auto number = parse_integer(digits)) return negative ? -*number : *number;
  }
  return std::string(text);
}

const Value* find_fact(const Facts& facts, std::string_view name) {
  for (const auto& [key, value] : facts) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::optional<int64_t> int_fact(const Facts& facts, std::string_view name) {
  const Value* value = find_fact(facts, name);
  if (!value || !std::holds_alternative<int64_t>(*value)) return std::nullopt;
  return std::get<int64_t>(*value);
}

void set_fact(Facts& facts, std::string name, Value value) {
  for (auto& [key, existing] : facts) {
    if (key == name) {
      existing = std::move(value);
      return;
    }
  }
  facts.emplace_back(std::move(name), std::move(value));
}

std::string fact_text(const Facts& facts, std::string_view name) {
  const Value* value = find_fact(facts, name);
  return value ? to_display(*value) : "";
}

}  // namespace faultline
