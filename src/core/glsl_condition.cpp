#include "core/glsl_condition.hpp"

#include <cctype>
#include <string>

#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Recursive descent over the grammar
//   or := and ('||' and)*     and := unary ('&&' unary)*
//   unary := '!' unary | '(' or ')' | 'defined' '(' NAME ')' | 'defined' NAME
class Parser {
 public:
  Parser(std::string_view text, const std::function<bool(std::string_view)>& is_defined)
      : text_(text), is_defined_(is_defined) {}

  bool parse() {
    const bool value = parse_or();
    if (!peek().empty()) fail("unexpected '" + std::string(peek()) + "'");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(Errc::unsupported, "internal: the shader condition \"" + std::string(text_) + "\" is beyond gpuscan's " +
                                       "GLSL assembler (defined(X), !, &&, ||, parentheses): " + why);
  }

  // The next token without consuming it: a name, "&&", "||", or one character; empty at the end.
  std::string_view peek() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    if (at_ == text_.size()) return {};
    size_t end = at_ + 1;
    if (is_identifier_char(text_[at_]))
      while (end < text_.size() && is_identifier_char(text_[end])) ++end;
    else if (text_.substr(at_, 2) == "&&" || text_.substr(at_, 2) == "||")
      end = at_ + 2;
    return text_.substr(at_, end - at_);
  }

  std::string_view take() {
    const std::string_view token = peek();
    at_ += token.size();
    return token;
  }

  void expect(std::string_view token) {
    if (take() != token) fail("expected '" + std::string(token) + "'");
  }

  bool parse_or() {
    bool value = parse_and();
    while (peek() == "||") {
      take();
      value = parse_and() || value;
    }
    return value;
  }

  bool parse_and() {
    bool value = parse_unary();
    while (peek() == "&&") {
      take();
      value = parse_unary() && value;
    }
    return value;
  }

  bool parse_unary() {
    const std::string_view token = take();
    if (token == "!") return !parse_unary();
    if (token == "(") {
      const bool value = parse_or();
      expect(")");
      return value;
    }
    if (token != "defined") fail(token.empty() ? "it ends early" : "unexpected '" + std::string(token) + "'");
    const bool parenthesised = peek() == "(";
    if (parenthesised) take();
    const std::string_view name = take();
    if (name.empty() || !is_identifier_char(name[0]) || std::isdigit(static_cast<unsigned char>(name[0])))
      fail("defined takes a name");
    if (parenthesised) expect(")");
    return is_defined_(name);
  }

  std::string_view text_;
  const std::function<bool(std::string_view)>& is_defined_;
  size_t at_ = 0;
};

}  // namespace

bool evaluate_glsl_condition(std::string_view condition, const std::function<bool(std::string_view)>& is_defined) {
  return Parser(condition, is_defined).parse();
}

}  // namespace gpuscan::core
