// The mul.wide + add.s64 -> mad.wide peephole on PTX text (src/codegen/FuseWideMultiplyAdd.cpp):
// what it fuses, and each condition under which it must leave the text alone.
#include "codegen/FuseWideMultiplyAdd.h"

#include <catch2/catch.hpp>

using tilec::codegen::fuseWideMultiplyAdds;

TEST_CASE("a product used once by an add in the same block becomes mad.wide", "[codegen][ptx]") {
  const std::string ptx = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                          "\tsetp.lt.s32 \t%p2, %r32, %r6;\n"
                          "\tadd.s64 \t%rd9, %rd1, %rd10;\n"
                          "\tld.global.b32 \t%r1, [%rd9];\n";
  const std::string expected = "\tsetp.lt.s32 \t%p2, %r32, %r6;\n"
                               "\tmad.wide.s32 \t%rd9, %r32, 2, %rd1;\n"
                               "\tld.global.b32 \t%r1, [%rd9];\n";
  CHECK(fuseWideMultiplyAdds(ptx) == expected);
}

TEST_CASE("the product may be either operand of the add, and unsigned", "[codegen][ptx]") {
  const std::string ptx = "\tmul.wide.u32 \t%rd13, %r1, %r2;\n"
                          "\tadd.s64 \t%rd14, %rd13, %rd12;\n";
  CHECK(fuseWideMultiplyAdds(ptx) == "\tmad.wide.u32 \t%rd14, %r1, %r2, %rd12;\n");
}

TEST_CASE("mul.wide is kept where fusing would change a value", "[codegen][ptx]") {
  SECTION("the product has another use") {
    const std::string ptx = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                            "\tadd.s64 \t%rd9, %rd1, %rd10;\n"
                            "\tadd.s64 \t%rd11, %rd2, %rd10;\n";
    CHECK(fuseWideMultiplyAdds(ptx) == ptx);
  }
  SECTION("a factor is redefined before the add") {
    const std::string ptx = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                            "\tadd.s32 \t%r32, %r32, 1;\n"
                            "\tadd.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(fuseWideMultiplyAdds(ptx) == ptx);
  }
  SECTION("a factor is redefined in a brace group (unpacking, inline assembly)") {
    const std::string ptx = "\tmul.wide.s32 \t%rd10, %r32, %r7;\n"
                            "\tmov.b64 \t{%r7, %r8}, %rd3;\n"
                            "\tadd.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(fuseWideMultiplyAdds(ptx) == ptx);
  }
  SECTION("a label or a branch lies between them") {
    const std::string label = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                              "$L__BB0_2:\n"
                              "\tadd.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(fuseWideMultiplyAdds(label) == label);
    const std::string branch = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                               "\t@%p1 bra \t$L__BB0_4;\n"
                               "\tadd.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(fuseWideMultiplyAdds(branch) == branch);
  }
  SECTION("the use is not a 64-bit add, or the add is guarded") {
    const std::string sub = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                            "\tsub.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(fuseWideMultiplyAdds(sub) == sub);
    const std::string guarded = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                                "\t@%p3 add.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(fuseWideMultiplyAdds(guarded) == guarded);
  }
}

TEST_CASE("registers are matched whole: %rd10 is not %rd100", "[codegen][ptx]") {
  const std::string ptx = "\tmul.wide.s32 \t%rd10, %r3, 4;\n"
                          "\tadd.s64 \t%rd100, %rd1, %rd2;\n"
                          "\tadd.s64 \t%rd9, %rd100, %rd10;\n";
  const std::string expected = "\tadd.s64 \t%rd100, %rd1, %rd2;\n"
                               "\tmad.wide.s32 \t%rd9, %r3, 4, %rd100;\n";
  CHECK(fuseWideMultiplyAdds(ptx) == expected);
}

TEST_CASE("uses are counted per function: kernels of one module reuse register names",
          "[codegen][ptx]") {
  const std::string kernel = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                             "\tadd.s64 \t%rd9, %rd1, %rd10;\n"
                             "\tret;\n"
                             "}\n";
  const std::string fused = "\tmad.wide.s32 \t%rd9, %r32, 2, %rd1;\n"
                            "\tret;\n"
                            "}\n";
  const std::string ptx =
      ".visible .entry first(\n)\n{\n" + kernel + ".visible .entry second(\n)\n{\n" + kernel;
  const std::string expected =
      ".visible .entry first(\n)\n{\n" + fused + ".visible .entry second(\n)\n{\n" + fused;
  CHECK(fuseWideMultiplyAdds(ptx) == expected);
}
