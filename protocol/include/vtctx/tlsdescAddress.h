/*
 * The address of this thread's instance of a TLS variable through the variable's TLS descriptor:
 * the x86-64 psABI TLSDESC sequence, for compilers that cannot emit it (clang before 19 has no
 * -mtls-dialect=gnu2). Readers classify otel_thread_ctx_v1 by its R_X86_64_TLSDESC relocation,
 * so with such a compiler every access to it goes through here. cmake/VtctxFlags.cmake defines
 * VTCTX_TLSDESC_ASM for them, always together with -mno-red-zone (see below).
 *
 * Plain C: the agent (tls-publish/otelThreadContext.h) and the reader's C fixtures include it.
 */
#ifndef VTCTX_TLSDESC_ADDRESS_H_
#define VTCTX_TLSDESC_ADDRESS_H_

#if !defined(__x86_64__)
#error "vtctx: VTCTX_TLSDESC_ASM is the x86-64 TLSDESC sequence"
#endif

/*
 * Defines `static inline void* function(void)`: the address of this thread's `symbol`.
 *   leaq symbol@tlsdesc(%rip), %rax   %rax = the GOT descriptor {resolver, argument}
 *   call *symbol@tlscall(%rax)        %rax = resolver(descriptor): symbol's offset from the TP
 *   addq %fs:0, %rax                  + the thread pointer (%fs:0 holds its own address)
 * Why it is safe:
 * - Registers: the TLSDESC resolver preserves every register but %rax and the flags (the psABI's
 *   contract, which the compilers' own TLSDESC code relies on too), so %rax is the only output and
 *   "cc" the only clobber.
 * - Stack: `call` pushes the return address just below %rsp, inside the caller's 128-byte red
 *   zone. Every TU built with VTCTX_TLSDESC_ASM is compiled with -mno-red-zone (same cmake list),
 *   so nothing live is kept there. Stepping %rsp over the red zone inside the asm would work too,
 *   but the function's unwind info (CFA from %rsp) would be wrong during the call, and the
 *   profilers that read this variable unwind native stacks with .eh_frame.
 * - Linking: the relocations (GOTPC32_TLSDESC, TLSDESC_CALL) and encodings (48 8d 05, ff 10) are
 *   the compiler's own, so the linker emits R_X86_64_TLSDESC in a shared library and relaxes the
 *   sequence to initial- or local-exec in an executable exactly as for compiled code.
 * - Not volatile, no memory clobber: the result depends only on the thread, so the compiler may
 *   reuse it within a function, as it does with the TLS addresses it computes itself.
 */
#define VTCTX_DEFINE_TLSDESC_ADDRESS(function, symbol)                 \
  static inline void* function(void) {                                 \
    void* address;                                                     \
    __asm__(VTCTX_TLSDESC_SEQUENCE_(symbol) : "=a"(address) : : "cc"); \
    return address;                                                    \
  }
/* `symbol` arrives macro-expanded (a fixture passes a macro naming the variable). */
#define VTCTX_TLSDESC_SEQUENCE_(symbol) \
  "leaq " #symbol                       \
  "@tlsdesc(%%rip), %%rax\n\t"          \
  "call *" #symbol                      \
  "@tlscall(%%rax)\n\t"                 \
  "addq %%fs:0, %%rax"

#endif /* VTCTX_TLSDESC_ADDRESS_H_ */
