#include "rules/template.hpp"

namespace faultline::rules {

Result<Template> Template::parse(std::string_view text) {
  Template result;
  result.source_ = std::string(text);
  std::string literal;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      literal += c;
      ++i;
      continue;
    }
    if (c == '}') return Status::error("column " + std::to_string(i + 1) + ": unmatched '}'");
    if (c != '{') {
      literal += c;
      continue;
    }
    size_t close = text.find('}', i);
    if (close == std::string_view::npos) {
      return Status::error("column " + std::to_string(i + 1) + ": unclosed '{'");
    }
    auto expression = Expression::parse(text.substr(i + 1, close - i - 1));
    if (!expression) {
      // Re-base the expression's column onto the template text.
      const std::string& message = expression.status().message();
      size_t column = 0;
      if (message.starts_with("column ")) column = std::stoul(message.substr(7));
      std::string rest = message.substr(message.find(':') + 1);
      return Status::error("column " + std::to_string(i + 1 + column) + ":" + rest);
    }
    result.pieces_.push_back({std::move(literal), std::move(*expression)});
    literal.clear();
    i = close;
  }
  if (!literal.empty()) result.pieces_.push_back({std::move(literal), std::nullopt});
  return result;
}

Template Template::deferred(std::string text) {
  Template result;
  result.source_ = std::move(text);
  result.deferred_ = std::make_shared<Deferred>();
  return result;
}

const std::vector<Template::Piece>& Template::pieces() const {
  if (!deferred_) return pieces_;
  std::call_once(deferred_->once, [this] {
    auto parsed = parse(source_);
    // The build checked it; should the text fail anyway, it renders as it stands.
    if (parsed)
      deferred_->pieces = std::move(parsed->pieces_);
    else
      deferred_->pieces.push_back({source_, std::nullopt});
  });
  return deferred_->pieces;
}

std::vector<std::string> Template::fact_names() const {
  std::vector<std::string> names;
  for (const auto& piece : pieces()) {
    if (piece.expression) {
      for (const auto& name : piece.expression->fact_names()) names.push_back(name);
    }
  }
  return names;
}

std::optional<std::string> Template::render(const Facts& facts) const {
  std::string out;
  for (const auto& piece : pieces()) {
    out += piece.literal;
    if (!piece.expression) continue;
    auto value = piece.expression->evaluate(facts);
    if (!value) return std::nullopt;
    out += to_display(*value);
  }
  return out;
}

}  // namespace faultline::rules
