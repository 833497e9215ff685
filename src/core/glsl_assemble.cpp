#include "core/glsl_assemble.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/glsl_condition.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

// The name the shaders include a custom operator's snippet by (shaders/common/ops.glsl), as on Vulkan.
constexpr std::string_view snippet_name = "custom_op.glsl";
// Source strings 0 and 1 are the preamble and the snippet; files take the numbers after them.
constexpr size_t snippet_string = 1;
// Deeper nesting than the shaders have: a file that includes itself without a guard.
constexpr int max_include_depth = 32;

[[noreturn]] void fail(const std::string& why) { throw Error(Errc::unsupported, "internal: " + why); }

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Calls visit(line, number) for each line of `text`, numbered from 1, without its '\n'.
template <typename Visit>
void for_each_line(std::string_view text, Visit&& visit) {
  size_t number = 1;
  for (size_t start = 0; start < text.size(); ++number) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    visit(text.substr(start, end - start), number);
    start = end + 1;
  }
}

// A preprocessor line split into its directive ("include") and the rest, comments removed.
struct Directive {
  std::string_view name;
  std::string_view rest;
};

std::optional<Directive> parse_directive(std::string_view line) {
  line = trim(line);
  if (line.empty() || line.front() != '#') return std::nullopt;
  line = trim(line.substr(1));
  size_t name_end = 0;
  while (name_end < line.size() && std::isalpha(static_cast<unsigned char>(line[name_end]))) ++name_end;
  std::string_view rest = line.substr(name_end);
  if (const size_t comment = rest.find("//"); comment != std::string_view::npos) rest = rest.substr(0, comment);
  if (rest.find("/*") != std::string_view::npos) fail("a block comment in the directive \"" + std::string(line) + "\"");
  return Directive{line.substr(0, name_end), trim(rest)};
}

// The macro a #define or #undef names: "OP_COMBINE(a, b) ..." -> "OP_COMBINE".
std::string macro_name(std::string_view rest) {
  size_t end = 0;
  while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '_')) ++end;
  return std::string(rest.substr(0, end));
}

bool is_conditional(std::string_view directive) {
  return directive == "if" || directive == "ifdef" || directive == "ifndef" || directive == "elif" ||
         directive == "else" || directive == "endif";
}

// One #if ... #endif of the file being read.
struct Conditional {
  bool enclosing_active;  // whether the lines around the block are kept
  bool active;            // whether the current branch's lines are kept
  bool taken;             // whether a branch has been kept already (or the block is skipped as a whole)
  bool seen_else;
};

class Assembler {
 public:
  explicit Assembler(const GlslRequest& request) : request_(request) {
    for (const GlslDefine& d : request.defines) defined_.insert(d.name);
    result_.source_strings = {"preamble", ""};
  }

  AssembledGlsl run() {
    const std::string_view* entry = find(request_.entry);
    if (!entry) fail("no shader source " + std::string(request_.entry));
    read_file(request_.entry, *entry, 0);
    if (version_.empty()) fail(std::string(request_.entry) + " has no #version");
    std::string& text = result_.text;
    text = version_ + "\n";
    for (const std::string& extension : extensions_) text += extension + "\n";
    for (const GlslDefine& d : request_.defines)
      text += "#define " + d.name + (d.value.empty() ? "" : " " + d.value) + "\n";
    text += body_;
    return std::move(result_);
  }

 private:
  const std::string_view* find(std::string_view path) const {
    const auto it = std::find_if(request_.files.begin(), request_.files.end(),
                                 [&](const GlslFile& f) { return f.path == path; });
    return it == request_.files.end() ? nullptr : &it->text;
  }

  // The kept lines of `text`, with a #line directive wherever the numbering would otherwise go astray.
  void read_file(std::string_view path, std::string_view text, int depth) {
    const size_t string_number = result_.source_strings.size();
    result_.source_strings.emplace_back(path);
    std::vector<Conditional> conditionals;
    bool numbering_lost = true;  // whether the next kept line needs a #line first
    for_each_line(text, [&](std::string_view line, size_t number) {
      const bool active = conditionals.empty() || conditionals.back().active;
      const std::optional<Directive> directive = parse_directive(line);
      const std::string where = directive ? std::string(path) + ":" + std::to_string(number) : std::string();
      if (directive && is_conditional(directive->name)) {
        conditional(*directive, active, conditionals, where);
        numbering_lost = true;
        return;
      }
      if (!active) {
        numbering_lost = true;
        return;
      }
      if (directive && !keep_directive(*directive, path, depth, where, line)) {
        numbering_lost = true;
        return;
      }
      if (numbering_lost)
        body_ += "#line " + std::to_string(number) + " " + std::to_string(string_number) + "\n";
      numbering_lost = false;
      body_ += line;
      body_ += '\n';
    });
    if (!conditionals.empty()) fail("an #if without #endif in " + std::string(path));
  }

  void conditional(const Directive& d, bool active, std::vector<Conditional>& stack, const std::string& where) {
    const auto evaluate = [&] {
      if (d.name == "if" || d.name == "elif")
        return evaluate_glsl_condition(d.rest, [&](std::string_view name) { return defined_.count(name) != 0; });
      const std::string name = macro_name(d.rest);
      if (name.empty() || name.size() != d.rest.size()) fail("#" + std::string(d.name) + " takes one name at " + where);
      return (defined_.count(name) != 0) == (d.name == "ifdef");
    };
    if (d.name == "if" || d.name == "ifdef" || d.name == "ifndef") {
      const bool value = active && evaluate();
      stack.push_back({active, value, value || !active, false});
      return;
    }
    if (stack.empty()) fail("#" + std::string(d.name) + " without its #if at " + where);
    Conditional& c = stack.back();
    if (d.name == "endif") {
      stack.pop_back();
      return;
    }
    if (c.seen_else) fail("#" + std::string(d.name) + " after #else at " + where);
    if (d.name == "else") {
      c.seen_else = true;
      c.active = !c.taken;
      c.taken = true;
    } else {  // elif
      c.active = !c.taken && evaluate();
      c.taken = c.taken || c.active;
    }
  }

  // Whether an active directive line stays where it is; #version, #extension and #include are dealt with here.
  bool keep_directive(const Directive& d, std::string_view path, int depth, const std::string& where,
                      std::string_view line) {
    if (d.name == "define" || d.name == "undef") {
      const std::string name = macro_name(d.rest);
      if (name.empty()) fail("#" + std::string(d.name) + " without a name at " + where);
      if (d.name == "define") defined_.insert(name);
      else defined_.erase(name);
      return true;
    }
    if (d.name == "error" || d.name == "pragma") return true;
    if (d.name == "extension") {
      hoist_extension(line);
      return false;
    }
    if (d.name == "version") {
      if (depth != 0 || !version_.empty()) fail("a #version other than the entry file's first at " + where);
      version_ = trim(line);
      return false;
    }
    if (d.name == "include") {
      include(d.rest, path, depth, where);
      return false;
    }
    fail("the directive #" + std::string(d.name) + " at " + where + " is beyond gpuscan's GLSL assembler");
  }

  void hoist_extension(std::string_view line) {
    const std::optional<Directive> d = parse_directive(line);
    // glslc's #include support; the assembler resolves the includes itself.
    if (d->rest.find("GL_GOOGLE_include_directive") != std::string_view::npos) return;
    std::string extension = "#extension " + std::string(d->rest);
    if (std::find(extensions_.begin(), extensions_.end(), extension) == extensions_.end())
      extensions_.push_back(std::move(extension));
  }

  // Resolved as glslc -I shaders does: relative to the including file first, then to shaders/.
  void include(std::string_view quoted, std::string_view from, int depth, const std::string& where) {
    if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"') fail("#include needs \"file\" at " + where);
    const std::string_view requested = quoted.substr(1, quoted.size() - 2);
    if (depth + 1 >= max_include_depth) fail("#include nested too deeply at " + where);
    if (requested == snippet_name && request_.snippet) return read_snippet(*request_.snippet);
    const size_t slash = from.rfind('/');
    const std::string relative =
        (slash == std::string_view::npos ? std::string() : std::string(from.substr(0, slash + 1))) + std::string(requested);
    if (const std::string_view* text = find(relative)) return read_file(relative, *text, depth + 1);
    if (const std::string_view* text = find(requested)) return read_file(requested, *text, depth + 1);
    fail("no shader source " + std::string(requested) + " for the #include at " + where);
  }

  // The caller's GLSL as source string 1, line for line: only its #extension lines move (to the top, leaving
  // an empty line) and its #define and #undef lines are noted; its conditionals are the driver's business.
  void read_snippet(std::string_view snippet) {
    result_.source_strings[snippet_string] = "the custom operator's snippet";
    body_ += "#line 1 " + std::to_string(snippet_string) + "\n";
    for_each_line(snippet, [&](std::string_view line, size_t) {
      const std::optional<Directive> d = parse_directive(line);
      if (d && d->name == "extension") {
        hoist_extension(line);
        line = {};
      } else if (d && d->name == "define") {
        defined_.insert(macro_name(d->rest));
      } else if (d && d->name == "undef") {
        defined_.erase(macro_name(d->rest));
      }
      body_ += line;
      body_ += '\n';
    });
  }

  const GlslRequest& request_;
  std::set<std::string, std::less<>> defined_;
  std::string version_;
  std::vector<std::string> extensions_;
  std::string body_;
  AssembledGlsl result_;
};

}  // namespace

std::string AssembledGlsl::source_string_legend() const {
  std::string legend;
  for (size_t i = 0; i < source_strings.size(); ++i)
    if (!source_strings[i].empty()) legend += (legend.empty() ? "" : ", ") + std::to_string(i) + " = " + source_strings[i];
  return legend;
}

AssembledGlsl assemble_glsl(const GlslRequest& request) { return Assembler(request).run(); }

std::vector<GlslDefine> split_define_list(std::string_view list) {
  std::vector<GlslDefine> defines;
  for (size_t start = 0; start < list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) defines.push_back({std::string(list.substr(start, end - start)), ""});
    start = end + 1;
  }
  return defines;
}

}  // namespace gpuscan::core
