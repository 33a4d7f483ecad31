#include "rules/expression.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "base/text.hpp"
#include "tp/arithmetic.hpp"

namespace faultline::rules {

struct Expression::Node {
  enum class Kind { kNumber, kFact, kCall, kUnary, kBinary };
  Kind kind = Kind::kNumber;
  int64_t number = 0;
  std::string name;  // fact, function or operator
  std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

Result<int64_t> as_int(const Value& value, std::string_view what) {
  if (auto* number = std::get_if<int64_t>(&value)) return *number;
  return Status::error(std::string(what) + " needs an integer, got '" + to_display(value) + "'");
}

Value layouts_value(const std::vector<tp::Layout>& layouts) {
  StringList out;
  for (const auto& layout : layouts) out.push_back(layout.to_string());
  return out;
}

struct Function {
  size_t arity;
  std::function<Value(const std::vector<int64_t>&)> call;
};

const std::map<std::string, Function, std::less<>>& functions() {
  static const std::map<std::string, Function, std::less<>> kFunctions = {
      {"divisors", {1, [](const auto& a) -> Value { return tp::divisors(a[0]); }}},
      {"divisors_le", {2, [](const auto& a) -> Value { return tp::divisors_le(a[0], a[1]); }}},
      {"common_divisors", {2, [](const auto& a) -> Value { return tp::common_divisors(a[0], a[1]); }}},
      {"largest_divisor_le", {2, [](const auto& a) -> Value { return tp::largest_divisor_le(a[0], a[1]); }}},
      {"valid_tp_sizes", {2, [](const auto& a) -> Value { return tp::valid_tp_sizes(a[0], a[1]); }}},
      {"next_multiple", {2, [](const auto& a) -> Value { return tp::next_multiple(a[0], a[1]); }}},
      {"layouts", {1, [](const auto& a) -> Value { return layouts_value(tp::layouts(a[0])); }}},
      {"layouts_for",
       {3, [](const auto& a) -> Value { return layouts_value(tp::layouts_for(a[0], a[1], a[2])); }}},
      {"gcd", {2, [](const auto& a) -> Value { return tp::gcd(a[0], a[1]); }}},
      {"lcm", {2, [](const auto& a) -> Value { return tp::lcm(a[0], a[1]); }}},
      {"min", {2, [](const auto& a) -> Value { return std::min(a[0], a[1]); }}},
      {"max", {2, [](const auto& a) -> Value { return std::max(a[0], a[1]); }}},
  };
  return kFunctions;
}

// Recursive-descent parser. Precedence, low to high: || && comparisons + - * / % unary.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<NodePtr> parse_all() {
    auto root = parse_or();
    if (!root) return root;
    skip_space();
    if (position_ < text_.size()) return error("unexpected '" + std::string(1, text_[position_]) + "'");
    return root;
  }

  std::vector<std::string> facts;

 private:
  Status error(const std::string& message) const {
    return Status::error("column " + std::to_string(position_ + 1) + ": " + message);
  }

  void skip_space() {
    while (position_ < text_.size() && is_space(text_[position_])) ++position_;
  }

  bool take(std::string_view token) {
    skip_space();
    if (!text_.substr(position_).starts_with(token)) return false;
    // "<" must not take the first half of "<=", and "!" not the first half of "!=".
    if (token.size() == 1 && position_ + 1 < text_.size() && text_[position_ + 1] == '=' &&
        (token == "<" || token == ">" || token == "!" || token == "=")) {
      return false;
    }
    position_ += token.size();
    return true;
  }

  static NodePtr binary(std::string op, NodePtr left, NodePtr right) {
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::kBinary;
    node->name = std::move(op);
    node->children = {std::move(left), std::move(right)};
    return node;
  }

  template <typename Next>
  Result<NodePtr> parse_level(std::initializer_list<std::string_view> operators, Next next) {
    auto left = (this->*next)();
    if (!left) return left;
    for (;;) {
      std::string_view matched;
      for (auto op : operators) {
        if (take(op)) {
          matched = op;
          break;
        }
      }
      if (matched.empty()) return left;
      auto right = (this->*next)();
      if (!right) return right;
      left = binary(std::string(matched), *left, *right);
    }
  }

  Result<NodePtr> parse_or() { return parse_level({"||"}, &Parser::parse_and); }
  Result<NodePtr> parse_and() { return parse_level({"&&"}, &Parser::parse_comparison); }
  Result<NodePtr> parse_comparison() {
    return parse_level({"==", "!=", "<=", ">=", "<", ">"}, &Parser::parse_sum);
  }
  Result<NodePtr> parse_sum() { return parse_level({"+", "-"}, &Parser::parse_product); }
  Result<NodePtr> parse_product() { return parse_level({"*", "/", "%"}, &Parser::parse_unary); }

  Result<NodePtr> parse_unary() {
    for (std::string_view op : {"!", "-"}) {
      if (take(op)) {
        auto operand = parse_unary();
        if (!operand) return operand;
        auto node = std::make_shared<Node>();
        node->kind = Node::Kind::kUnary;
        node->name = std::string(op);
        node->children = {*operand};
        return NodePtr(node);
      }
    }
    return parse_primary();
  }

  Result<NodePtr> parse_primary() {
    skip_space();
    if (take("(")) {
      auto inner = parse_or();
      if (!inner) return inner;
      if (!take(")")) return error("expected ')'");
      return inner;
    }
    if (position_ >= text_.size()) return error("expected a value");
    auto node = std::make_shared<Node>();
    std::string_view rest = text_.substr(position_);
    if (is_digit(rest.front())) {
      auto number = take_integer(rest);
      if (!number) return error("number out of range");
      position_ = text_.size() - rest.size();
      node->kind = Node::Kind::kNumber;
      node->number = *number;
      return NodePtr(node);
    }
    if (!is_alpha(rest.front()) && rest.front() != '_') {
      return error("unexpected '" + std::string(1, rest.front()) + "'");
    }
    size_t start = position_;
    while (position_ < text_.size() && is_word(text_[position_])) ++position_;
    node->name = std::string(text_.substr(start, position_ - start));
    if (!take("(")) {
      node->kind = Node::Kind::kFact;
      if (std::find(facts.begin(), facts.end(), node->name) == facts.end()) facts.push_back(node->name);
      return NodePtr(node);
    }
    auto function = functions().find(node->name);
    if (function == functions().end()) {
      position_ = start;
      return error("unknown function '" + node->name + "'");
    }
    node->kind = Node::Kind::kCall;
    if (!take(")")) {
      do {
        auto argument = parse_or();
        if (!argument) return argument;
        node->children.push_back(*argument);
      } while (take(","));
      if (!take(")")) return error("expected ')' after the arguments of " + node->name);
    }
    if (node->children.size() != function->second.arity) {
      position_ = start;
      return error(node->name + "() takes " + std::to_string(function->second.arity) +
                   " argument(s), given " + std::to_string(node->children.size()));
    }
    return NodePtr(node);
  }

  std::string_view text_;
  size_t position_ = 0;
};

Result<Value> evaluate_node(const Node& node, const Facts& facts);

Result<Value> evaluate_binary(const Node& node, const Facts& facts) {
  auto left_value = evaluate_node(*node.children[0], facts);
  if (!left_value) return left_value;
  const std::string& op = node.name;
  if (op == "&&" || op == "||") {
    bool left_true = is_true(*left_value);
    if (op == "&&" && !left_true) return Value(int64_t{0});
    if (op == "||" && left_true) return Value(int64_t{1});
    auto right_value = evaluate_node(*node.children[1], facts);
    if (!right_value) return right_value;
    return Value(int64_t{is_true(*right_value)});
  }
  auto right_value = evaluate_node(*node.children[1], facts);
  if (!right_value) return right_value;
  if (op == "==" || op == "!=") {
    bool equal = *left_value == *right_value;
    return Value(int64_t{op == "==" ? equal : !equal});
  }
  auto left = as_int(*left_value, "'" + op + "'");
  if (!left) return left.status();
  auto right = as_int(*right_value, "'" + op + "'");
  if (!right) return right.status();
  int64_t a = *left, b = *right;
  if ((op == "/" || op == "%") && b == 0) return Status::error("division by zero");
  int64_t result = 0;
  bool overflow = false;
  if (op == "+") overflow = __builtin_add_overflow(a, b, &result);
  if (op == "-") overflow = __builtin_sub_overflow(a, b, &result);
  if (op == "*") overflow = __builtin_mul_overflow(a, b, &result);
  if (op == "/" || op == "%") {
    overflow = a == std::numeric_limits<int64_t>::min() && b == -1;
    if (!overflow) result = op == "/" ? a / b : a % b;
  }
  if (overflow) return Status::error("integer overflow in '" + op + "'");
  if (op == "+" || op == "-" || op == "*" || op == "/" || op == "%") return Value(result);
  if (op == "<") return Value(int64_t{a < b});
  if (op == "<=") return Value(int64_t{a <= b});
  if (op == ">") return Value(int64_t{a > b});
  return Value(int64_t{a >= b});
}

Result<Value> evaluate_node(const Node& node, const Facts& facts) {
  switch (node.kind) {
    case Node::Kind::kNumber:
      return Value(node.number);
    case Node::Kind::kFact: {
      const Value* value = find_fact(facts, node.name);
      if (!value) return Status::error("missing fact '" + node.name + "'");
      return *value;
    }
    case Node::Kind::kUnary: {
      auto operand = evaluate_node(*node.children[0], facts);
      if (!operand) return operand;
      if (node.name == "!") return Value(int64_t{!is_true(*operand)});
      auto number = as_int(*operand, "'-'");
      if (!number) return number.status();
      if (*number == std::numeric_limits<int64_t>::min()) return Status::error("integer overflow in '-'");
      return Value(-*number);
    }
    case Node::Kind::kBinary:
      return evaluate_binary(node, facts);
    case Node::Kind::kCall: {
      std::vector<int64_t> arguments;
      for (const auto& child : node.children) {
        auto value = evaluate_node(*child, facts);
        if (!value) return value;
        auto number = as_int(*value, node.name + "()");
        if (!number) return number.status();
        arguments.push_back(*number);
      }
      return functions().find(node.name)->second.call(arguments);
    }
  }
  return Status::error("bad expression");
}

}  // namespace

Result<Expression> Expression::parse(std::string_view text) {
  Parser parser(text);
  auto root = parser.parse_all();
  if (!root) return root.status();
  Expression expression;
  expression.text_ = std::string(text);
  expression.root_ = *root;
  expression.fact_names_ = std::move(parser.facts);
  return expression;
}

Result<Value> Expression::evaluate(const Facts& facts) const {
  return evaluate_node(*root_, facts);
}

std::vector<std::string> function_names() {
  std::vector<std::string> names;
  for (const auto& [name, function] : functions()) names.push_back(name);
  return names;
}

bool is_true(const Value& value) {
  if (auto* number = std::get_if<int64_t>(&value)) return *number != 0;
  if (auto* text = std::get_if<std::string>(&value)) return !text->empty();
  if (auto* list = std::get_if<IntList>(&value)) return !list->empty();
  return !std::get<StringList>(value).empty();
}

}  // namespace faultline::rules
