# Compiler settings shared by every native target of ours.

# TLS dialect that produces TLSDESC accesses (OTEP 4947's recommended model).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(VTCTX_TLS_DIALECT_FLAG "-mtls-dialect=gnu2")
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(VTCTX_TLS_DIALECT_FLAG "-mtls-dialect=desc")
else()
  message(FATAL_ERROR "vtctx: unsupported architecture ${CMAKE_SYSTEM_PROCESSOR} (x86-64 or aarch64)")
endif()
# Readers find otel_thread_ctx_v1 through its TLSDESC relocation: a compiler that cannot emit one
# (clang before 19 on x86-64 has no -mtls-dialect) cannot build the agent. Said once, here.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(${VTCTX_TLS_DIALECT_FLAG} VTCTX_HAS_TLS_DIALECT_FLAG)
if(NOT VTCTX_HAS_TLS_DIALECT_FLAG)
  message(FATAL_ERROR
    "vtctx: ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} does not accept "
    "${VTCTX_TLS_DIALECT_FLAG}: it cannot emit the TLSDESC access OTEP 4947 readers follow. "
    "Use GCC (>= 12) or clang >= 19 (CC/CXX).")
endif()

# Warnings always; -Werror only where asked (scripts/test.sh and CI do): a user's compiler or build
# type may warn where ours does not, and must not fail the build for it.
option(VTCTX_WERROR "Treat compiler warnings as errors" OFF)
set(VTCTX_WARNING_FLAGS -Wall -Wextra)
if(VTCTX_WERROR)
  list(APPEND VTCTX_WARNING_FLAGS -Werror)
endif()
set(VTCTX_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

# Code that ends up inside the JVM: no exceptions or RTTI, hidden by default, TLSDESC TLS.
function(vtctx_in_jvm_code target)
  target_compile_options(${target} PRIVATE ${VTCTX_WARNING_FLAGS}
    -fno-exceptions -fno-rtti -fvisibility=hidden -fvisibility-inlines-hidden
    -ftls-model=global-dynamic ${VTCTX_TLS_DIALECT_FLAG})
endfunction()

function(vtctx_sanitize target)
  target_compile_options(${target} PRIVATE ${VTCTX_SANITIZER_FLAGS})
  target_link_options(${target} PRIVATE ${VTCTX_SANITIZER_FLAGS})
endfunction()
