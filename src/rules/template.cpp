#include "rules/template.hpp"

#include "base/text.hpp"

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

namespace {

// `text` without each parenthesis that holds a hole: "(asked for {gpus} GPUs) ".
std::string without_held_parentheses(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find(" (", i);
    size_t close = open == std::string_view::npos ? open : text.find(')', open);
    if (close == std::string_view::npos) break;
    std::string_view held = text.substr(open, close + 1 - open);
    out.append(text.substr(i, open - i));
    if (held.find('{') == std::string_view::npos) out.append(held);
    i = close + 1;
  }
  out.append(text.substr(i));
  return out;
}

// One sentence, or without its parentheses that need a missing fact; nothing if still not.
std::optional<std::string> render_sentence(std::string_view sentence, const Facts& facts) {
  for (const std::string& text : {std::string(sentence), without_held_parentheses(sentence)}) {
    auto parsed = Template::parse(text);
    if (!parsed) return std::nullopt;
    if (auto rendered = parsed->render(facts)) return rendered;
  }
  return std::nullopt;
}

}  // namespace

std::string Template::render_prose(const Facts& facts) const {
  if (auto whole = render(facts)) return *whole;
  // Sentence by sentence, splitting after ". " outside the holes.
  std::string out;
  std::string_view text = source_;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    bool end = i == text.size();
    if (!end) {
      depth += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
      if (depth != 0 || text[i] != '.' || i + 1 >= text.size() || !is_space(text[i + 1])) continue;
    }
    size_t stop = end ? i : i + 1;
    std::string_view sentence = trim(text.substr(start, stop - start));
    if (auto rendered = sentence.empty() ? std::nullopt : render_sentence(sentence, facts)) {
      if (!out.empty()) out += ' ';
      out += *rendered;
    }
    start = stop;
  }
  return out;
}

}  // namespace faultline::rules
