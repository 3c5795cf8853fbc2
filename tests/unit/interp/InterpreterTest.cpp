// The interpreter on whole kernels: the grid, masks, control flow, atomics, printing, and the
// errors that make it a debugging tool (out-of-bounds accesses, failed asserts, bad arguments).
#include "TestKernels.h"

#include <chrono>
#include <cmath>
#include <sstream>

using namespace tilec;
using namespace interp_test;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using tir::Value;

namespace {

const tir::DType i32 = scalar(ScalarKind::I32);
const tir::DType f32 = scalar(ScalarKind::F32);

/// The seeds' add_kernel: out[i] = x[i] + y[i] for i < n, `block` elements per program. Without
/// `masked` the loads and the store are not masked (the classic out-of-bounds bug). The loads are
/// built at line 12, column 9.
std::unique_ptr<tir::Function> makeAddKernel(int64_t block, bool masked) {
  KernelBuilder k("add_kernel");
  Value *x = k.param("x", pointerTo(ScalarKind::F32), 16);
  Value *y = k.param("y", pointerTo(ScalarKind::F32), 16);
  Value *out = k.param("out", pointerTo(ScalarKind::F32), 16);
  Value *n = k.param("n", i32);
  Value *pid = k.b.programId(0);
  Value *start = k.b.binary(OpCode::Mul, pid, k.constant(block, ScalarKind::I32));
  Value *offsets = k.b.binary(OpCode::Add, k.b.splat(start, {block}), k.b.makeRange(0, block));
  Value *mask = masked ? k.b.cmp("lt", offsets, k.b.splat(n, {block})) : nullptr;
  k.at(12, 9);
  Value *a = k.load(k.pointers(x, offsets), mask);
  Value *b = k.load(k.pointers(y, offsets), mask);
  k.at(14, 5);
  k.store(k.pointers(out, offsets), k.b.binary(OpCode::Add, a, b), mask);
  return k.finish();
}

std::vector<float> iota(size_t n, float scale) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = static_cast<float>(i) * scale;
  return values;
}

} // namespace

TEST_CASE("add_kernel over a length that is not a multiple of the block", "[interp]") {
  const int64_t n = 1000, block = 128;
  auto kernel = makeAddKernel(block, /*masked=*/true);
  interp::HostBuffer x = makeBuffer(ScalarKind::F32, iota(n, 0.5f));
  interp::HostBuffer y = makeBuffer(ScalarKind::F32, iota(n, -0.25f));
  // The output is larger than n: the elements past n must keep their sentinel.
  interp::HostBuffer out = makeBuffer(ScalarKind::F32, std::vector<float>(1024, -7.0f));
  interp::run(*kernel,
              {interp::KernelArg::pointer(x), interp::KernelArg::pointer(y),
               interp::KernelArg::pointer(out), interp::KernelArg::integer(n)},
              gridOf((n + block - 1) / block));
  std::vector<float> result = contents<float>(out);
  for (int64_t i = 0; i < 1024; ++i) {
    float expected = i < n ? static_cast<float>(i) * 0.5f + static_cast<float>(i) * -0.25f : -7.0f;
    INFO("element " << i);
    REQUIRE(result[i] == expected);
  }
}

TEST_CASE("masked-off lanes of a load take `other`, or 0 without it", "[interp]") {
  KernelBuilder k("masked_load");
  Value *x = k.param("x", pointerTo(ScalarKind::F32));
  Value *out = k.param("out", pointerTo(ScalarKind::F32));
  Value *outZero = k.param("out_zero", pointerTo(ScalarKind::F32));
  Value *n = k.param("n", i32);
  Value *offsets = k.b.makeRange(0, 16);
  Value *mask = k.b.cmp("lt", offsets, k.b.splat(n, {16}));
  Value *withOther = k.load(k.pointers(x, offsets), mask, k.constantF(-1.5, ScalarKind::F32, {16}));
  Value *withoutOther = k.load(k.pointers(x, offsets), mask);
  k.store(k.pointers(out, offsets), withOther);
  k.store(k.pointers(outZero, offsets), withoutOther);
  auto kernel = k.finish();

  // x holds only 5 elements: the masked-off lanes point past its end and must not be read.
  interp::HostBuffer input = makeBuffer<float>(ScalarKind::F32, {1, 2, 3, 4, 5});
  interp::HostBuffer result(f32, 16),
      resultZero = makeBuffer(ScalarKind::F32, std::vector<float>(16, 9.0f));
  interp::run(*kernel,
              {interp::KernelArg::pointer(input), interp::KernelArg::pointer(result),
               interp::KernelArg::pointer(resultZero), interp::KernelArg::integer(5)},
              gridOf(1));
  std::vector<float> expected = {1, 2, 3, 4, 5}, expectedZero = {1, 2, 3, 4, 5};
  expected.resize(16, -1.5f);
  expectedZero.resize(16, 0.0f);
  CHECK(contents<float>(result) == expected);
  CHECK(contents<float>(resultZero) == expectedZero);
}

TEST_CASE("program ids run x fastest and num_programs gives the grid", "[interp]") {
  KernelBuilder k("grid");
  Value *out = k.param("out", pointerTo(ScalarKind::I32));
  Value *counter = k.param("counter", pointerTo(ScalarKind::I32));
  Value *linear = k.b.binary(OpCode::Add, k.b.programId(0),
                             k.b.binary(OpCode::Mul, k.b.programId(1), k.b.numPrograms(0)));
  Value *tag =
      k.b.binary(OpCode::Add, k.b.programId(0),
                 k.b.binary(OpCode::Mul, k.b.programId(1), k.constant(100, ScalarKind::I32)));
  k.store(k.b.addPtr(out, linear), tag);
  // Each program records the order it ran in: a counter incremented by an atomic.
  tir::Operation *bump =
      k.b.create(OpCode::AtomicRMW, {counter, k.constant(1, ScalarKind::I32)}, {Type(i32)});
  bump->setAttr("kind", std::string("add"));
  k.store(k.b.addPtr(out, k.b.binary(OpCode::Add, linear, k.constant(6, ScalarKind::I32))),
          bump->result());
  auto kernel = k.finish();
  interp::HostBuffer result(i32, 12), count(i32, 1);
  interp::run(*kernel, {interp::KernelArg::pointer(result), interp::KernelArg::pointer(count)},
              gridOf(3, 2));
  CHECK(contents<int32_t>(result) ==
        std::vector<int32_t>{0, 1, 2, 100, 101, 102, 0, 1, 2, 3, 4, 5});
  CHECK(contents<int32_t>(count)[0] == 6);
}

TEST_CASE("a for loop carries values and yields them in a new order", "[interp][control]") {
  // (a, b) = (0, 1); for i in range(lb, ub, step): (a, b) = (b, a + b); also count iterations.
  auto fibonacci = [](int64_t lb, int64_t ub, int64_t step) {
    KernelBuilder k("fib");
    Value *out = k.param("out", pointerTo(ScalarKind::I32));
    tir::Operation *loop =
        k.b.create(OpCode::For,
                   {k.constant(lb, ScalarKind::I32), k.constant(ub, ScalarKind::I32),
                    k.constant(step, ScalarKind::I32), k.constant(0, ScalarKind::I32),
                    k.constant(1, ScalarKind::I32), k.constant(0, ScalarKind::I32)},
                   {Type(i32), Type(i32), Type(i32)});
    tir::Block &body = loop->addRegion().block();
    body.addArgument(Type(i32)); // iv
    Value *a = body.addArgument(Type(i32));
    Value *b = body.addArgument(Type(i32));
    Value *count = body.addArgument(Type(i32));
    tir::Builder inner(body);
    Value *sum = inner.binary(OpCode::Add, a, b);
    Value *one = inner.intConstant(1, Type(i32));
    inner.create(OpCode::Yield, {b, sum, inner.binary(OpCode::Add, count, one)}, {});
    k.store(out, loop->result(0));
    k.store(k.b.addPtr(out, k.constant(1, ScalarKind::I32)), loop->result(2));
    auto kernel = k.finish();
    interp::HostBuffer result(i32, 2);
    interp::run(*kernel, {interp::KernelArg::pointer(result)}, gridOf(1));
    return contents<int32_t>(result);
  };
  // Reference: the same recurrence in C++.
  auto reference = [](int64_t lb, int64_t ub, int64_t step) {
    int32_t a = 0, b = 1, count = 0;
    for (int64_t i = lb; step > 0 ? i < ub : i > ub; i += step) {
      int32_t next = a + b;
      a = b;
      b = next;
      ++count;
    }
    return std::vector<int32_t>{a, count};
  };
  CHECK(fibonacci(0, 10, 1) == reference(0, 10, 1));
  CHECK(fibonacci(0, 10, 1) == std::vector<int32_t>{55, 10});
  CHECK(fibonacci(10, 0, -3) == reference(10, 0, -3)); // 10, 7, 4, 1
  CHECK(fibonacci(10, 0, -3)[1] == 4);
  CHECK(fibonacci(5, 5, 1) == std::vector<int32_t>{0, 0}); // no iteration: the inits
}

TEST_CASE("a for loop may yield its own arguments swapped", "[interp][control]") {
  // (a, b) = (1, 2); for i in range(3): (a, b) = (b, a)  ->  (2, 1). Copying the yielded values
  // one by one into the arguments would give (2, 2).
  KernelBuilder k("swap");
  Value *out = k.param("out", pointerTo(ScalarKind::I32));
  tir::Operation *loop =
      k.b.create(OpCode::For,
                 {k.constant(0, ScalarKind::I32), k.constant(3, ScalarKind::I32),
                  k.constant(1, ScalarKind::I32), k.constant(1, ScalarKind::I32, {2}),
                  k.constant(2, ScalarKind::I32, {2})},
                 {Type(i32, {2}), Type(i32, {2})});
  tir::Block &body = loop->addRegion().block();
  body.addArgument(Type(i32));
  Value *a = body.addArgument(Type(i32, {2}));
  Value *b = body.addArgument(Type(i32, {2}));
  tir::Builder(body).create(OpCode::Yield, {b, a}, {});
  Value *offsets = k.b.makeRange(0, 2);
  k.store(k.pointers(out, offsets), loop->result(0));
  k.store(k.b.addPtr(k.b.splat(out, {2}),
                     k.b.binary(OpCode::Add, offsets, k.constant(2, ScalarKind::I32, {2}))),
          loop->result(1));
  auto kernel = k.finish();
  interp::HostBuffer result(i32, 4);
  interp::run(*kernel, {interp::KernelArg::pointer(result)}, gridOf(1));
  CHECK(contents<int32_t>(result) == std::vector<int32_t>{2, 2, 1, 1});
}

TEST_CASE("if yields the value of the branch taken", "[interp][control]") {
  KernelBuilder k("branch");
  Value *out = k.param("out", pointerTo(ScalarKind::F32));
  Value *pid = k.b.programId(0);
  Value *even = k.b.cmp("eq", k.b.binary(OpCode::Rem, pid, k.constant(2, ScalarKind::I32)),
                        k.constant(0, ScalarKind::I32));
  tir::Operation *branch = k.b.create(OpCode::If, {even}, {Type(f32)});
  tir::Builder thenBuilder(branch->addRegion().block());
  thenBuilder.create(OpCode::Yield, {thenBuilder.floatConstant(1.5, Type(f32))}, {});
  tir::Builder elseBuilder(branch->addRegion().block());
  elseBuilder.create(OpCode::Yield, {elseBuilder.floatConstant(-2.0, Type(f32))}, {});
  k.store(k.b.addPtr(out, pid), branch->result());
  auto kernel = k.finish();
  interp::HostBuffer result(f32, 5);
  interp::run(*kernel, {interp::KernelArg::pointer(result)}, gridOf(5));
  CHECK(contents<float>(result) == std::vector<float>{1.5f, -2.0f, 1.5f, -2.0f, 1.5f});
}

TEST_CASE("while runs until its condition is false", "[interp][control]") {
  // Collatz: steps = 0; while n != 1: n = n / 2 if n % 2 == 0 else 3 * n + 1; steps += 1.
  KernelBuilder k("collatz");
  Value *out = k.param("out", pointerTo(ScalarKind::I32));
  Value *start = k.param("start", i32);
  tir::Operation *loop =
      k.b.create(OpCode::While, {start, k.constant(0, ScalarKind::I32)}, {Type(i32), Type(i32)});
  tir::Block &before = loop->addRegion().block();
  Value *n = before.addArgument(Type(i32));
  Value *steps = before.addArgument(Type(i32));
  tir::Builder beforeBuilder(before);
  Value *notOne = beforeBuilder.cmp("ne", n, beforeBuilder.intConstant(1, Type(i32)));
  beforeBuilder.create(OpCode::Condition, {notOne, n, steps}, {});
  tir::Block &after = loop->addRegion().block();
  Value *m = after.addArgument(Type(i32));
  Value *count = after.addArgument(Type(i32));
  tir::Builder afterBuilder(after);
  Value *two = afterBuilder.intConstant(2, Type(i32));
  Value *isEven = afterBuilder.cmp("eq", afterBuilder.binary(OpCode::Rem, m, two),
                                   afterBuilder.intConstant(0, Type(i32)));
  Value *half = afterBuilder.binary(OpCode::Div, m, two);
  Value *triple = afterBuilder.binary(
      OpCode::Add, afterBuilder.binary(OpCode::Mul, m, afterBuilder.intConstant(3, Type(i32))),
      afterBuilder.intConstant(1, Type(i32)));
  afterBuilder.create(
      OpCode::Yield,
      {afterBuilder.select(isEven, half, triple),
       afterBuilder.binary(OpCode::Add, count, afterBuilder.intConstant(1, Type(i32)))},
      {});
  k.store(out, loop->result(1));
  k.store(k.b.addPtr(out, k.constant(1, ScalarKind::I32)), loop->result(0));
  auto kernel = k.finish();

  auto reference = [](int32_t value) {
    int32_t count = 0;
    while (value != 1) {
      value = value % 2 == 0 ? value / 2 : 3 * value + 1;
      ++count;
    }
    return count;
  };
  for (int32_t value : {27, 1, 6}) {
    interp::HostBuffer result(i32, 2);
    interp::run(*kernel, {interp::KernelArg::pointer(result), interp::KernelArg::integer(value)},
                gridOf(1));
    INFO("start " << value);
    CHECK(contents<int32_t>(result) == std::vector<int32_t>{reference(value), 1});
  }
  CHECK(reference(27) == 111);
}

TEST_CASE("atomic_rmw add from many programs into one cell", "[interp][atomic]") {
  // Every program adds 1 to an int counter and 0.5 to every lane of a float cell (16 lanes, all
  // aimed at the same address), and records the counter's old value.
  KernelBuilder k("atomics");
  Value *counter = k.param("counter", pointerTo(ScalarKind::I32));
  Value *cell = k.param("cell", pointerTo(ScalarKind::F32));
  Value *old = k.param("old", pointerTo(ScalarKind::I32));
  tir::Operation *add =
      k.b.create(OpCode::AtomicRMW, {counter, k.constant(1, ScalarKind::I32)}, {Type(i32)});
  add->setAttr("kind", std::string("add"));
  Value *sameCell = k.b.splat(cell, {16});
  Value *mask = k.b.cmp("lt", k.b.makeRange(0, 16), k.constant(16, ScalarKind::I32, {16}));
  tir::Operation *addF =
      k.b.create(OpCode::AtomicRMW, {sameCell, k.constantF(0.5, ScalarKind::F32, {16}), mask},
                 {Type(f32, {16})});
  addF->setAttr("kind", std::string("add"));
  k.store(k.b.addPtr(old, k.b.programId(0)), add->result());
  auto kernel = k.finish();

  const unsigned programs = 300;
  interp::HostBuffer count(i32, 1), total(f32, 1), olds(i32, programs);
  interp::run(*kernel,
              {interp::KernelArg::pointer(count), interp::KernelArg::pointer(total),
               interp::KernelArg::pointer(olds)},
              gridOf(programs));
  CHECK(contents<int32_t>(count)[0] == static_cast<int32_t>(programs));
  CHECK(contents<float>(total)[0] == 0.5f * 16 * programs);
  std::vector<int32_t> expectedOld(programs);
  for (unsigned p = 0; p < programs; ++p)
    expectedOld[p] = static_cast<int32_t>(p); // programs run in order
  CHECK(contents<int32_t>(olds) == expectedOld);
}

TEST_CASE("atomic_rmw max/xchg and atomic_cas", "[interp][atomic]") {
  KernelBuilder k("cas");
  Value *lock = k.param("lock", pointerTo(ScalarKind::I32));
  Value *best = k.param("best", pointerTo(ScalarKind::I32));
  Value *seen = k.param("seen", pointerTo(ScalarKind::I32));
  Value *pid = k.b.programId(0);
  Value *pidPlusOne = k.b.binary(OpCode::Add, pid, k.constant(1, ScalarKind::I32));
  // Only the first program finds 0 and swaps in its id + 1.
  tir::Operation *cas = k.b.create(OpCode::AtomicCAS,
                                   {lock, k.constant(0, ScalarKind::I32), pidPlusOne}, {Type(i32)});
  // best = max(best, (pid * 7) % 5).
  Value *score =
      k.b.binary(OpCode::Rem, k.b.binary(OpCode::Mul, pid, k.constant(7, ScalarKind::I32)),
                 k.constant(5, ScalarKind::I32));
  tir::Operation *max = k.b.create(OpCode::AtomicRMW, {best, score}, {Type(i32)});
  max->setAttr("kind", std::string("max"));
  k.store(k.b.addPtr(seen, pid), cas->result());
  auto kernel = k.finish();
  interp::HostBuffer lockBuffer(i32, 1), bestBuffer = makeBuffer<int32_t>(ScalarKind::I32, {-1}),
                                         seenBuffer(i32, 4);
  interp::run(*kernel,
              {interp::KernelArg::pointer(lockBuffer), interp::KernelArg::pointer(bestBuffer),
               interp::KernelArg::pointer(seenBuffer)},
              gridOf(4));
  CHECK(contents<int32_t>(lockBuffer)[0] == 1);
  CHECK(contents<int32_t>(seenBuffer) == std::vector<int32_t>{0, 1, 1, 1});
  CHECK(contents<int32_t>(bestBuffer)[0] == 4); // scores 0, 2, 4, 1
}

TEST_CASE("an out-of-bounds load names its location, index and buffer", "[interp][errors]") {
  const int64_t n = 1000, block = 128;
  auto kernel = makeAddKernel(block, /*masked=*/false);
  interp::HostBuffer x(f32, n), y(f32, n), out(f32, n);
  std::vector<interp::KernelArg> args = {
      interp::KernelArg::pointer(x), interp::KernelArg::pointer(y), interp::KernelArg::pointer(out),
      interp::KernelArg::integer(n)};
  // Program 7 covers 896..1023: lane 104 is element 1000, the first past the end.
  try {
    interp::run(*kernel, args, gridOf(8));
    FAIL("no error was raised");
  } catch (const interp::InterpError &error) {
    std::string message = error.what();
    INFO(message);
    CHECK(message.rfind("12:9: ", 0) == 0);
    CHECK(error.loc().line == 12);
    CHECK(message.find("out-of-bounds load at index (104)") != std::string::npos);
    CHECK(message.find("element 1000 of 'x'") != std::string::npos);
    CHECK(message.find("1000 f32 elements") != std::string::npos);
    CHECK(message.find("program (7, 0, 0)") != std::string::npos);
  }
  // The masked kernel reads nothing out of bounds on the same buffers.
  auto masked = makeAddKernel(block, /*masked=*/true);
  CHECK_NOTHROW(interp::run(*masked, args, gridOf(8)));
}

TEST_CASE("a store before the start of a buffer is reported", "[interp][errors]") {
  KernelBuilder k("underflow");
  Value *out = k.param("out", pointerTo(ScalarKind::I32));
  Value *offsets =
      k.b.binary(OpCode::Sub, k.b.makeRange(0, 4), k.constant(1, ScalarKind::I32, {4}));
  k.at(3, 7);
  k.store(k.pointers(out, offsets), k.constant(5, ScalarKind::I32, {4}));
  auto kernel = k.finish();
  interp::HostBuffer result = makeBuffer<int32_t>(ScalarKind::I32, {0, 0, 0, 0});
  CHECK_THROWS_WITH(
      interp::run(*kernel, {interp::KernelArg::pointer(result)}, gridOf(1)),
      Catch::StartsWith("3:7: out-of-bounds store at index (0): element -1 of 'out'"));
  // Nothing was written before the error: the bad lane is the first one.
  CHECK(contents<int32_t>(result) == std::vector<int32_t>{0, 0, 0, 0});
}

TEST_CASE("a failing device_assert reports the message, index and program", "[interp][errors]") {
  KernelBuilder k("checked");
  Value *limit = k.param("limit", i32);
  Value *offsets = k.b.makeRange(0, 8);
  Value *ok = k.b.cmp("lt", offsets, k.b.splat(limit, {8}));
  k.at(21, 5);
  tir::Operation *check = k.b.create(OpCode::Assert, {ok}, {});
  check->setAttr("message", std::string("offsets out of range"));
  auto kernel = k.finish();
  CHECK_NOTHROW(interp::run(*kernel, {interp::KernelArg::integer(8)}, gridOf(2)));
  CHECK_THROWS_WITH(
      interp::run(*kernel, {interp::KernelArg::integer(5)}, gridOf(2)),
      "21:5: device_assert failed at index (5): offsets out of range (in 'assert', program (0, 0, "
      "0))");
}

TEST_CASE("print writes one line per element with the program id", "[interp][print]") {
  KernelBuilder k("printer");
  Value *values = k.b.binary(OpCode::Mul, k.b.cast(k.b.makeRange(0, 4), f32),
                             k.constantF(0.5, ScalarKind::F32, {4}));
  tir::Operation *printValues = k.b.create(OpCode::Print, {values}, {});
  printValues->setAttr("prefix", std::string("x"));
  tir::Operation *printPid = k.b.create(OpCode::Print, {k.b.programId(0)}, {});
  printPid->setAttr("prefix", std::string("pid: "));
  auto kernel = k.finish();
  std::ostringstream output;
  interp::LaunchOptions options = gridOf(2);
  options.printStream = &output;
  interp::run(*kernel, {}, options);
  CHECK(output.str() == "pid (0, 0, 0) idx (0) x: 0\n"
                        "pid (0, 0, 0) idx (1) x: 0.5\n"
                        "pid (0, 0, 0) idx (2) x: 1\n"
                        "pid (0, 0, 0) idx (3) x: 1.5\n"
                        "pid (0, 0, 0) idx () pid: 0\n"
                        "pid (1, 0, 0) idx (0) x: 0\n"
                        "pid (1, 0, 0) idx (1) x: 0.5\n"
                        "pid (1, 0, 0) idx (2) x: 1\n"
                        "pid (1, 0, 0) idx (3) x: 1.5\n"
                        "pid (1, 0, 0) idx () pid: 1\n");
}

TEST_CASE("arguments must match the kernel's parameters", "[interp][errors]") {
  auto kernel = makeAddKernel(128, /*masked=*/true);
  interp::HostBuffer x(f32, 128), y(f32, 128), out(f32, 128), halves(scalar(ScalarKind::F16), 128);
  auto pointer = [](interp::HostBuffer &b, int64_t offset = 0) {
    return interp::KernelArg::pointer(b, offset);
  };
  CHECK_THROWS_WITH(interp::run(*kernel, {pointer(x), pointer(y), pointer(out)}, gridOf(1)),
                    Catch::Contains("takes 4 arguments but 3 were given"));
  CHECK_THROWS_WITH(
      interp::run(*kernel,
                  {pointer(x), pointer(halves), pointer(out), interp::KernelArg::integer(5)},
                  gridOf(1)),
      Catch::Contains("argument 'y' (!ptr<f32>) needs a buffer of f32, not of f16"));
  CHECK_THROWS_WITH(interp::run(*kernel,
                                {pointer(x), pointer(y), interp::KernelArg::integer(0),
                                 interp::KernelArg::integer(5)},
                                gridOf(1)),
                    Catch::Contains("argument 'out' (!ptr<f32>) needs a buffer"));
  CHECK_THROWS_WITH(interp::run(*kernel,
                                {pointer(x), pointer(y), pointer(out),
                                 interp::KernelArg::integer(int64_t(1) << 40)},
                                gridOf(1)),
                    Catch::Contains("does not fit the type"));
  CHECK_THROWS_WITH(
      interp::run(*kernel, {pointer(x), pointer(y), pointer(out), interp::KernelArg::floating(2.5)},
                  gridOf(1)),
      Catch::Contains("needs an integer"));
  // x is declared 16-byte aligned: an offset of one f32 element breaks the promise.
  CHECK_THROWS_WITH(
      interp::run(*kernel, {pointer(x, 1), pointer(y), pointer(out), interp::KernelArg::integer(5)},
                  gridOf(1)),
      Catch::Contains("declared 16-byte aligned but starts 4 bytes into its buffer"));
  // An offset pointer works when it keeps the alignment: out[i] = x[4 + i] + y[i].
  std::vector<float> xs = iota(128, 1.0f);
  interp::HostBuffer shifted = makeBuffer(ScalarKind::F32, xs);
  CHECK_NOTHROW(interp::run(
      *kernel, {pointer(shifted, 4), pointer(y), pointer(out), interp::KernelArg::integer(124)},
      gridOf(1)));
  CHECK(contents<float>(out)[0] == 4.0f);
  CHECK(contents<float>(out)[123] == 127.0f);
}

TEST_CASE("malformed IR is reported instead of misread", "[interp][errors]") {
  // A load whose `other` is an integer while the load yields floats.
  KernelBuilder k("bad_other");
  Value *x = k.param("x", pointerTo(ScalarKind::F32));
  Value *offsets = k.b.makeRange(0, 4);
  Value *mask = k.b.cmp("lt", offsets, k.constant(2, ScalarKind::I32, {4}));
  k.at(7, 3);
  k.load(k.pointers(x, offsets), mask, k.constant(0, ScalarKind::I32, {4}));
  auto kernel = k.finish(); // the verifier does not check `other`
  interp::HostBuffer input(f32, 4);
  CHECK_THROWS_WITH(interp::run(*kernel, {interp::KernelArg::pointer(input)}, gridOf(1)),
                    Catch::StartsWith("7:3: 'other' is i32 where f32 is expected"));
}

// Tests run grids of thousands of programs; the time is reported (about 15 ms in a Release build),
// not asserted: a busy CI machine would make a bound flaky.
TEST_CASE("interpreting a 2^20-element vector add", "[interp]") {
  const int64_t n = int64_t(1) << 20, block = 1024;
  auto kernel = makeAddKernel(block, /*masked=*/true);
  interp::HostBuffer x = interp::parseBufferSpec("rand:1048576:1", f32);
  interp::HostBuffer y = interp::parseBufferSpec("rand:1048576:2", f32);
  interp::HostBuffer out(f32, n);
  std::vector<interp::KernelArg> args = {
      interp::KernelArg::pointer(x), interp::KernelArg::pointer(y), interp::KernelArg::pointer(out),
      interp::KernelArg::integer(n)};
  double best = 1e9;
  for (int repetition = 0; repetition < 5; ++repetition) {
    auto start = std::chrono::steady_clock::now();
    interp::run(*kernel, args, gridOf(n / block));
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, seconds);
  }
  WARN("2^20-element fp32 vector add, 1024-element programs: " << best * 1e3 << " ms");
  std::vector<float> a = contents<float>(x), b = contents<float>(y), r = contents<float>(out);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i)
    mismatches += r[i] != a[i] + b[i];
  CHECK(mismatches == 0);
}
