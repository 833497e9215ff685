// The OpenGL backend's GLSL assembly (src/core/glsl_assemble.hpp) on small made-up shader trees; every real
// variant is assembled and compiled by the gl_sources_glslang test (tests/gl/check_gl_sources.cmake).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/glsl_assemble.hpp"
#include "core/glsl_condition.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

AssembledGlsl assemble(const std::vector<GlslFile>& files, std::vector<GlslDefine> defines = {},
                       std::optional<std::string_view> snippet = std::nullopt) {
  return assemble_glsl({files, files.front().path, std::move(defines), snippet});
}

// The assembler's "internal:" error for `files`, or "" when they assemble.
std::string failure(const std::vector<GlslFile>& files, std::vector<GlslDefine> defines = {}) {
  try {
    assemble(files, std::move(defines));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::unsupported));
    return e.what();
  }
  return "";
}

TEST(GlslAssemble, VersionThenExtensionsThenDefinesThenTheResolvedIncludes) {
  const std::vector<GlslFile> files = {
      {"main.comp",
       "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"common/a.glsl\"\nvoid main() {}\n"},
      {"common/a.glsl", "#extension GL_KHR_shader_subgroup_basic : require  // why\nconst uint a = 1u;\n"},
  };
  const AssembledGlsl out = assemble(files, {{"GPUSCAN_GL", ""}, {"GPUSCAN_SPEC_0", "256"}});
  EXPECT_EQ(out.text,
            "#version 450\n"
            "#extension GL_KHR_shader_subgroup_basic : require\n"
            "#define GPUSCAN_GL\n"
            "#define GPUSCAN_SPEC_0 256\n"
            "#line 2 3\n"
            "const uint a = 1u;\n"
            "#line 4 2\n"
            "void main() {}\n");
  EXPECT_EQ(out.source_string_legend(), "0 = preamble, 2 = main.comp, 3 = common/a.glsl");
}

TEST(GlslAssemble, DropsInactiveBlocksAndTheirExtensions) {
  const std::vector<GlslFile> files = {{"main.comp",
                                        "#version 450\n"
                                        "#if !defined(GPUSCAN_GL)\n"
                                        "#extension GL_EXT_buffer_reference : require\n"
                                        "vulkan\n"
                                        "#elif defined(A) && (defined B || !defined(C))\n"
                                        "first\n"
                                        "#else\n"
                                        "second\n"
                                        "#endif\n"
                                        "#ifdef C\n"
                                        "#if defined(UNDEFINED_BUT_NOT_EVALUATED) > 1\n"
                                        "#endif\n"
                                        "#else\n"
                                        "no_c\n"
                                        "#endif\n"}};
  const std::string text = assemble(files, {{"GPUSCAN_GL", ""}, {"A", ""}}).text;
  EXPECT_EQ(text.find("GL_EXT_buffer_reference"), std::string::npos);
  EXPECT_EQ(text.find("vulkan"), std::string::npos);
  EXPECT_EQ(text.find("second"), std::string::npos);
  EXPECT_NE(text.find("#line 6 2\nfirst\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#line 14 2\nno_c\n"), std::string::npos) << text;
}

TEST(GlslAssemble, FollowsDefineAndUndefAndIncludeGuards) {
  const std::vector<GlslFile> files = {
      {"main.comp", "#version 450\n#include \"g.glsl\"\n#include \"g.glsl\"\n#undef X\n#ifndef X\nno_x\n#endif\n"},
      {"g.glsl", "#ifndef G\n#define G\n#define X(a) a\nguarded\n#endif\n"},
  };
  const std::string text = assemble(files).text;
  EXPECT_EQ(text.find("guarded"), text.rfind("guarded")) << "included once";
  EXPECT_NE(text.find("#define X(a) a\n"), std::string::npos) << "#define lines stay for the driver";
  EXPECT_NE(text.find("#undef X\n#line 6 2\nno_x\n"), std::string::npos) << text;
}

TEST(GlslAssemble, TheSnippetIsSourceStringOneWithItsOwnLineNumbers) {
  const std::vector<GlslFile> files = {
      {"main.comp", "#version 450\n#include \"common/ops.glsl\"\nvoid main() {}\n"},
      {"common/ops.glsl", "#include \"custom_op.glsl\"\n#if !defined(T)\n#error \"define T\"\n#endif\nT x;\n"},
  };
  const AssembledGlsl out =
      assemble(files, {}, std::string_view("#extension GL_EXT_x : enable\n#define T vec2\nT combine(T a, T b);"));
  EXPECT_EQ(out.text,
            "#version 450\n"
            "#extension GL_EXT_x : enable\n"
            "#line 1 1\n"
            "\n"
            "#define T vec2\n"
            "T combine(T a, T b);\n"
            "#line 5 3\n"
            "T x;\n"
            "#line 3 2\n"
            "void main() {}\n");
  EXPECT_EQ(out.source_string_legend(),
            "0 = preamble, 1 = the custom operator's snippet, 2 = main.comp, 3 = common/ops.glsl");
}

TEST(GlslAssemble, RefusesWhatItCannotEvaluate) {
  EXPECT_NE(failure({{"m.comp", "#version 450\n#include \"missing.glsl\"\n"}}).find("internal: no shader source missing.glsl"),
            std::string::npos);
  EXPECT_NE(failure({{"m.comp", "#version 450\n#include \"custom_op.glsl\"\n"}}).find("internal:"), std::string::npos)
      << "no snippet given";
  EXPECT_NE(failure({{"m.comp", "#version 450\n#ifdef A\n"}}).find("internal: an #if without #endif"), std::string::npos);
  EXPECT_NE(failure({{"m.comp", "#version 450\n#endif\n"}}).find("internal:"), std::string::npos);
  EXPECT_NE(failure({{"m.comp", "#version 450\n#if defined(A)\n#else\n#else\n#endif\n"}}).find("internal:"), std::string::npos);
  EXPECT_NE(failure({{"m.comp", "#version 450\n#if A\n#endif\n"}}).find("internal:"), std::string::npos);
  EXPECT_NE(failure({{"m.comp", "#version 450\n#if defined(A) == 1\n#endif\n"}}).find("internal:"), std::string::npos);
  EXPECT_NE(failure({{"m.comp", "#version 450\n#ifdef A B\n#endif\n"}}).find("internal:"), std::string::npos);
  EXPECT_NE(failure({{"m.comp", "#version 450\n#warning x\n"}}).find("internal:"), std::string::npos);
  EXPECT_NE(failure({{"m.comp", "void main() {}\n"}}).find("internal: m.comp has no #version"), std::string::npos);
  EXPECT_EQ(failure({{"m.comp", "#version 450\n#if defined(A)\n#include \"missing.glsl\"\n#endif\n"}}), "")
      << "an inactive #include is not resolved";
}

TEST(GlslCondition, HasCsPrecedence) {
  const auto defined = [](std::string_view name) { return name == "A" || name == "C"; };
  EXPECT_TRUE(evaluate_glsl_condition("defined(A) || defined(B) && defined(C)", defined));
  EXPECT_FALSE(evaluate_glsl_condition("(defined(A) || defined(B)) && !defined C", defined));
  EXPECT_TRUE(evaluate_glsl_condition("!(defined(B))", defined));
  EXPECT_THROW(evaluate_glsl_condition("defined(A", defined), Error);
  EXPECT_THROW(evaluate_glsl_condition("defined(A) ||", defined), Error);
  EXPECT_THROW(evaluate_glsl_condition("", defined), Error);
}

TEST(GlslAssemble, SplitsTheManifestsDefineLists) {
  const std::vector<GlslDefine> defines = split_define_list("TYPE_U32,OP_ADD");
  ASSERT_EQ(defines.size(), 2u);
  EXPECT_EQ(defines[0].name, "TYPE_U32");
  EXPECT_EQ(defines[1].name, "OP_ADD");
  EXPECT_TRUE(split_define_list("").empty());
}

}  // namespace
}  // namespace gpuscan::core
