# Compiler settings shared by every native target of ours.

# TLSDESC accesses to TLS (OTEP 4947's recommended model; readers classify otel_thread_ctx_v1 by
# its TLSDESC relocation). VTCTX_TLSDESC_CXX_FLAGS / _C_FLAGS: what C++ / C code that accesses the
# variable is compiled with.
# - GCC, clang >= 19: the compiler's own TLSDESC code (-mtls-dialect=gnu2; desc on aarch64).
# - x86-64 compilers without the option (clang before 19): the option is dropped and the code
#   reaches the variable through the psABI's TLSDESC sequence in inline asm
#   (tls-publish/include/vtctx/tlsdescAddress.h), chosen by VTCTX_TLSDESC_ASM. That sequence calls
#   the resolver, which pushes below %rsp: -mno-red-zone comes in the same list, so no TU gets the
#   asm without it (the header explains why this rather than moving %rsp).
include(CheckCCompilerFlag)
include(CheckCXXCompilerFlag)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(VTCTX_TLS_DIALECT_FLAG "-mtls-dialect=gnu2")
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(VTCTX_TLS_DIALECT_FLAG "-mtls-dialect=desc")
else()
  message(FATAL_ERROR "vtctx: unsupported architecture ${CMAKE_SYSTEM_PROCESSOR} (x86-64 or aarch64)")
endif()
check_cxx_compiler_flag(${VTCTX_TLS_DIALECT_FLAG} VTCTX_CXX_HAS_TLS_DIALECT_FLAG)
check_c_compiler_flag(${VTCTX_TLS_DIALECT_FLAG} VTCTX_C_HAS_TLS_DIALECT_FLAG)
foreach(lang CXX C)
  if(VTCTX_${lang}_HAS_TLS_DIALECT_FLAG)
    set(VTCTX_TLSDESC_${lang}_FLAGS ${VTCTX_TLS_DIALECT_FLAG})
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    set(VTCTX_TLSDESC_${lang}_FLAGS -DVTCTX_TLSDESC_ASM -mno-red-zone)
  else()  # aarch64 (untested): no asm sequence here
    message(FATAL_ERROR
      "vtctx: ${CMAKE_${lang}_COMPILER_ID} ${CMAKE_${lang}_COMPILER_VERSION} does not accept "
      "${VTCTX_TLS_DIALECT_FLAG}: it cannot emit the TLSDESC access OTEP 4947 readers follow. "
      "Use GCC (>= 12) or a clang that accepts it (CC/CXX).")
  endif()
endforeach()

# Warnings always; -Werror only where asked (scripts/test.sh and CI do): a user's compiler or build
# type may warn where ours does not, and must not fail the build for it.
option(VTCTX_WERROR "Treat compiler warnings as errors" OFF)
set(VTCTX_WARNING_FLAGS -Wall -Wextra)
if(VTCTX_WERROR)
  list(APPEND VTCTX_WARNING_FLAGS -Werror)
endif()
set(VTCTX_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
# GoogleTest sources (the test code, not the product code they link): unoptimized, which compiles
# them ~3.7x faster than -O2 -g (one reader test file: 5.2 s against 18.6 s) and keeps CI's build
# short; the code under test keeps its own flags.
set(VTCTX_TEST_SOURCE_FLAGS -O0)

# Code that ends up inside the JVM: no exceptions or RTTI, hidden by default, TLSDESC TLS.
function(vtctx_in_jvm_code target)
  target_compile_options(${target} PRIVATE ${VTCTX_WARNING_FLAGS}
    -fno-exceptions -fno-rtti -fvisibility=hidden -fvisibility-inlines-hidden
    -ftls-model=global-dynamic ${VTCTX_TLSDESC_CXX_FLAGS})
endfunction()

function(vtctx_sanitize target)
  target_compile_options(${target} PRIVATE ${VTCTX_SANITIZER_FLAGS})
  target_link_options(${target} PRIVATE ${VTCTX_SANITIZER_FLAGS})
endfunction()

# vtctx_in_jvm_library(<name> SOURCES <file>... INCLUDES <dir>... LINK <library>...): a static
# library of code that runs inside the JVM and, with VTCTX_SANITIZERS, <name>_san, the same sources
# with ASan/UBSan for the sanitized unit tests, linked to the _san twin of each library that has
# one.
function(vtctx_in_jvm_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;INCLUDES;LINK" ${ARGN})
  set(variants ${name})
  if(VTCTX_SANITIZERS)
    list(APPEND variants ${name}_san)
  endif()
  foreach(target ${variants})
    set(links)
    foreach(library ${ARG_LINK})
      if(target STREQUAL "${name}_san" AND TARGET ${library}_san)
        list(APPEND links ${library}_san)
      else()
        list(APPEND links ${library})
      endif()
    endforeach()
    add_library(${target} STATIC ${ARG_SOURCES})
    target_include_directories(${target} PUBLIC ${ARG_INCLUDES})
    target_link_libraries(${target} PUBLIC ${links})
    vtctx_in_jvm_code(${target})
  endforeach()
  if(VTCTX_SANITIZERS)
    vtctx_sanitize(${name}_san)
  endif()
endfunction()
