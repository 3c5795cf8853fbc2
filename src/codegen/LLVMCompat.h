// The few LLVM APIs that differ between the LLVM versions tilec builds with (19 and 22), behind
// one name each, so that the lowering reads the same for both (internal to codegen).
#pragma once

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

namespace tilec::codegen {

/// The declaration of intrinsic `id` for the overloaded `types`, added to `module` if missing
/// (LLVM 20 renamed getDeclaration to getOrInsertDeclaration).
inline llvm::Function *intrinsicDeclaration(llvm::Module *module, llvm::Intrinsic::ID id,
                                            llvm::ArrayRef<llvm::Type *> types = {}) {
#if LLVM_VERSION_MAJOR >= 20
  return llvm::Intrinsic::getOrInsertDeclaration(module, id, types);
#else
  return llvm::Intrinsic::getDeclaration(module, id, types);
#endif
}

/// `bar.sync 0`: LLVM 21 folded nvvm.barrier0 into the barrier.cta family.
#if LLVM_VERSION_MAJOR >= 21
constexpr llvm::Intrinsic::ID kBarrierIntrinsic =
    llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all;
#else
constexpr llvm::Intrinsic::ID kBarrierIntrinsic = llvm::Intrinsic::nvvm_barrier0;
#endif

/// ex2.approx.f32 and ex2.approx.ftz.f32; LLVM 21 overloads them on the type, so their
/// declarations take `float` as their one overloaded type there and none before.
#if LLVM_VERSION_MAJOR >= 21
constexpr llvm::Intrinsic::ID kEx2ApproxIntrinsic = llvm::Intrinsic::nvvm_ex2_approx;
constexpr llvm::Intrinsic::ID kEx2ApproxFtzIntrinsic = llvm::Intrinsic::nvvm_ex2_approx_ftz;
constexpr bool kEx2ApproxIsOverloaded = true;
#else
constexpr llvm::Intrinsic::ID kEx2ApproxIntrinsic = llvm::Intrinsic::nvvm_ex2_approx_f;
constexpr llvm::Intrinsic::ID kEx2ApproxFtzIntrinsic = llvm::Intrinsic::nvvm_ex2_approx_ftz_f;
constexpr bool kEx2ApproxIsOverloaded = false;
#endif

/// A target triple as the LLVM version's TargetRegistry takes it (LLVM 21: a Triple).
#if LLVM_VERSION_MAJOR >= 21
inline llvm::Triple targetTriple(const char *triple) {
  return llvm::Triple(triple);
}
#else
inline llvm::StringRef targetTriple(const char *triple) {
  return triple;
}
#endif

/// Sets `module`'s target triple (LLVM 21 takes a Triple where LLVM 19 took a string).
inline void setTargetTriple(llvm::Module &module, const char *triple) {
#if LLVM_VERSION_MAJOR >= 21
  module.setTargetTriple(llvm::Triple(triple));
#else
  module.setTargetTriple(triple);
#endif
}

} // namespace tilec::codegen
