// The hoisted mul.wide -> cvt + shl peephole on PTX text (src/codegen/SplitHoistedWideMultiplies.cpp):
// what it splits, and each condition under which it must leave the text alone.
#include "codegen/SplitHoistedWideMultiplies.h"

#include <catch2/catch.hpp>

using tilec::codegen::splitHoistedWideMultiplies;

namespace {

/// A preheader computing `def`, then a loop block reading %rd10 in `use`.
std::string hoisted(const std::string &def, const std::string &use = "\tadd.s64 \t%rd9, %rd1, %rd10;\n") {
  return def + "$L__BB0_2:\n" + use + "\t@%p1 bra \t$L__BB0_2;\n";
}

} // namespace

TEST_CASE("a power-of-two mul.wide read only in another block is split", "[codegen][ptx]") {
  CHECK(splitHoistedWideMultiplies(hoisted("\tmul.wide.s32 \t%rd10, %r32, 2;\n")) ==
        hoisted("\tcvt.s64.s32 \t%rd10, %r32;\n\tshl.b64 \t%rd10, %rd10, 1;\n"));
  CHECK(splitHoistedWideMultiplies(hoisted("\tmul.wide.u32 \t%rd10, %r7, 16;\n")) ==
        hoisted("\tcvt.u64.u32 \t%rd10, %r7;\n\tshl.b64 \t%rd10, %rd10, 4;\n"));
}

TEST_CASE("mul.wide is kept unless it is a hoisted power-of-two product", "[codegen][ptx]") {
  SECTION("a use in the multiplication's own block") {
    const std::string ptx = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                            "\tadd.s64 \t%rd11, %rd2, %rd10;\n"
                            "$L__BB0_2:\n"
                            "\tadd.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(splitHoistedWideMultiplies(ptx) == ptx);
  }
  SECTION("a barrier does not end the block") {
    const std::string ptx = "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                            "\tbar.sync \t0;\n"
                            "\tadd.s64 \t%rd9, %rd1, %rd10;\n";
    CHECK(splitHoistedWideMultiplies(ptx) == ptx);
  }
  SECTION("a factor that is no power of two, or a register") {
    for (const char *factor : {"6", "1", "0", "%r5"}) {
      const std::string ptx = hoisted(std::string("\tmul.wide.s32 \t%rd10, %r32, ") + factor + ";\n");
      CHECK(splitHoistedWideMultiplies(ptx) == ptx);
    }
  }
  SECTION("a guarded multiplication") {
    const std::string ptx = hoisted("\t@%p2 mul.wide.s32 \t%rd10, %r32, 2;\n");
    CHECK(splitHoistedWideMultiplies(ptx) == ptx);
  }
  SECTION("the product defined elsewhere too") {
    const std::string ptx = hoisted("\tmul.wide.s32 \t%rd10, %r32, 2;\n",
                                    "\tadd.s64 \t%rd10, %rd10, 64;\n\tadd.s64 \t%rd9, %rd1, %rd10;\n");
    CHECK(splitHoistedWideMultiplies(ptx) == ptx);
  }
  SECTION("a product nothing reads") {
    const std::string ptx = "\tmul.wide.s32 \t%rd10, %r32, 2;\n";
    CHECK(splitHoistedWideMultiplies(ptx) == ptx);
  }
}

TEST_CASE("each function's registers are its own", "[codegen][ptx]") {
  // %rd10 of the second kernel is read in the multiplication's block there: the first kernel's
  // product, read only in its loop, is split; the second's is kept.
  const std::string first = ".visible .entry a()\n{\n" +
                            hoisted("\tmul.wide.s32 \t%rd10, %r32, 2;\n") + "}\n";
  const std::string second = ".visible .entry b()\n{\n"
                             "\tmul.wide.s32 \t%rd10, %r32, 2;\n"
                             "\tadd.s64 \t%rd9, %rd1, %rd10;\n"
                             "}\n";
  const std::string expected = ".visible .entry a()\n{\n" +
                               hoisted("\tcvt.s64.s32 \t%rd10, %r32;\n\tshl.b64 \t%rd10, %rd10, 1;\n") +
                               "}\n";
  CHECK(splitHoistedWideMultiplies(first + second) == expected + second);
}
