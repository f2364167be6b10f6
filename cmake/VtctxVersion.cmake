# The project version as a C header: ${PROJECT_BINARY_DIR}/generated/vtctx/version.h, included as
# "vtctx/version.h" by whatever links the interface target vtctx_version (agent, reader, tests).
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in
               ${PROJECT_BINARY_DIR}/generated/vtctx/version.h @ONLY)
add_library(vtctx_version INTERFACE)
target_include_directories(vtctx_version INTERFACE ${PROJECT_BINARY_DIR}/generated)
