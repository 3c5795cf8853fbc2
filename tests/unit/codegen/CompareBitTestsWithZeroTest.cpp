// The bit-test peephole on PTX text (src/codegen/CompareBitTestsWithZero.cpp): which compares with
// 1 become compares with 0, and each condition under which the text must stay as it is.
#include "codegen/CompareBitTestsWithZero.h"

#include <catch2/catch.hpp>

using tilec::codegen::compareBitTestsWithZero;

TEST_CASE("a compare with 1 of an and with 1 becomes a compare with 0", "[codegen][ptx]") {
  const std::string ptx = "\tand.b32  \t%r97, %r153, 1;\n"
                          "\tsetp.eq.b32 \t%p14, %r97, 1;\n"
                          "\tsetp.ne.b32 \t%p15, %r97, 1;\n"
                          "\tselp.b32 \t%r5, %r6, %r7, %p14;\n";
  const std::string expected = "\tand.b32  \t%r97, %r153, 1;\n"
                               "\tsetp.ne.b32 \t%p14, %r97, 0;\n"
                               "\tsetp.eq.b32 \t%p15, %r97, 0;\n"
                               "\tselp.b32 \t%r5, %r6, %r7, %p14;\n";
  CHECK(compareBitTestsWithZero(ptx) == expected);
}

TEST_CASE("16- and 64-bit tests, the 1 first in the and, signed compare types", "[codegen][ptx]") {
  const std::string ptx = "\tand.b16  \t%rs2, 1, %rs1;\n"
                          "\tsetp.eq.s16 \t%p1, %rs2, 1;\n"
                          "\tand.b64  \t%rd2, %rd1, 1;\n"
                          "\tsetp.eq.u64 \t%p2, %rd2, 1;\n";
  const std::string expected = "\tand.b16  \t%rs2, 1, %rs1;\n"
                               "\tsetp.ne.s16 \t%p1, %rs2, 0;\n"
                               "\tand.b64  \t%rd2, %rd1, 1;\n"
                               "\tsetp.ne.u64 \t%p2, %rd2, 0;\n";
  CHECK(compareBitTestsWithZero(ptx) == expected);
}

TEST_CASE("bit tests are kept where the register may hold more than 0 or 1", "[codegen][ptx]") {
  SECTION("an and with another constant") {
    const std::string ptx = "\tand.b32  \t%r2, %r1, 3;\n"
                            "\tsetp.eq.b32 \t%p1, %r2, 1;\n";
    CHECK(compareBitTestsWithZero(ptx) == ptx);
  }
  SECTION("a second definition (a loop's phi copy)") {
    const std::string ptx = "\tand.b32  \t%r2, %r1, 1;\n"
                            "\tmov.b32 \t%r2, %r9;\n"
                            "\tsetp.eq.b32 \t%p1, %r2, 1;\n";
    CHECK(compareBitTestsWithZero(ptx) == ptx);
  }
  SECTION("no definition in this function: another kernel's register of the same name") {
    const std::string ptx = ".visible .entry first()\n{\n"
                            "\tand.b32  \t%r2, %r1, 1;\n}\n"
                            ".visible .entry second()\n{\n"
                            "\tsetp.eq.b32 \t%p1, %r2, 1;\n}\n";
    CHECK(compareBitTestsWithZero(ptx) == ptx);
  }
  SECTION("an and of another width") {
    const std::string ptx = "\tand.b32  \t%r2, %r1, 1;\n"
                            "\tsetp.eq.b16 \t%p1, %r2, 1;\n";
    CHECK(compareBitTestsWithZero(ptx) == ptx);
  }
  SECTION("other compares, a guard, a combining setp, a float compare") {
    const std::string ptx = "\tand.b32  \t%r2, %r1, 1;\n"
                            "\tsetp.lt.s32 \t%p1, %r2, 1;\n"
                            "\t@%p3 setp.eq.b32 \t%p4, %r2, 1;\n"
                            "\tsetp.eq.and.b32 \t%p5, %r2, 1, %p1;\n"
                            "\tsetp.eq.f32 \t%p6, %f2, 1;\n"
                            "\tsetp.eq.b32 \t%p7, %r2, 2;\n";
    CHECK(compareBitTestsWithZero(ptx) == ptx);
  }
}
