# Installation and packages: `cmake --install build --prefix P` and `cpack` (from the build tree)
# give one layout:
#   lib/libvtctx.so                      the agent (glibc-only: tests/abi)
#   bin/vtctx-reader                     the reader (finds the agent at ../lib by default)
#   share/java/vtctx-shim-<version>.jar  the Java shim (built with Maven, VTCTX_BUILD_SHIM)
#   share/doc/vtctx/                     README, docs, license
# Packages: vtctx-<version>-linux-<arch>.tar.gz and a .deb that needs nothing but libc6.

# One version everywhere: the Maven builds' version is the root pom.xml's property `revision`
# (every module's version is ${revision}); its default must be the project's, and every Maven run
# of CMake and ctest also passes it in (-Drevision=${PROJECT_VERSION}).
file(STRINGS ${PROJECT_SOURCE_DIR}/pom.xml _vtctx_pom_revision REGEX "<revision>[^<]*</revision>")
list(LENGTH _vtctx_pom_revision _vtctx_pom_revisions)
if(NOT _vtctx_pom_revisions EQUAL 1)
  message(FATAL_ERROR "vtctx: pom.xml must declare the property <revision> once (found "
                      "${_vtctx_pom_revisions})")
endif()
string(REGEX REPLACE ".*<revision>([^<]*)</revision>.*" "\\1" _vtctx_pom_revision
                     "${_vtctx_pom_revision}")
if(NOT _vtctx_pom_revision STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "vtctx: pom.xml has revision ${_vtctx_pom_revision}, the project "
                      "${PROJECT_VERSION} (CMakeLists.txt): make them equal")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/pom.xml)

find_program(VTCTX_MVN mvn)
if(VTCTX_MVN)
  option(VTCTX_BUILD_SHIM "Build the Java shim jar with Maven (installed and packaged)" ON)
else()
  option(VTCTX_BUILD_SHIM "Build the Java shim jar with Maven (installed and packaged)" OFF)
endif()
set(VTCTX_SHIM_JAR ${PROJECT_BINARY_DIR}/java-shim/vtctx-shim-${PROJECT_VERSION}.jar)
if(VTCTX_BUILD_SHIM)
  if(NOT VTCTX_MVN)
    message(FATAL_ERROR "vtctx: VTCTX_BUILD_SHIM needs Maven (mvn); install it or turn it off")
  endif()
  file(GLOB_RECURSE _vtctx_shim_sources CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/java-shim/src/main/*)
  math(EXPR _vtctx_next_major "${JDK_VERSION_MAJOR} + 1")
  add_custom_command(
    OUTPUT ${VTCTX_SHIM_JAR}
    COMMAND ${VTCTX_MVN} -B -q -ntp -Dstyle.color=never -f ${PROJECT_SOURCE_DIR}/java-shim/pom.xml
            -Drevision=${PROJECT_VERSION} -Dvtctx.buildDir=${PROJECT_BINARY_DIR}/java-shim
            "-Dvtctx.jdkVersion=[${JDK_VERSION_MAJOR},${_vtctx_next_major})"
            -Dmaven.test.skip=true -Dvtctx.javadoc.skip=true -Dmaven.source.skip=true package
    DEPENDS ${_vtctx_shim_sources} ${PROJECT_SOURCE_DIR}/java-shim/pom.xml
            ${PROJECT_SOURCE_DIR}/pom.xml
    COMMENT "Maven: the Java shim jar"
    VERBATIM)
  add_custom_target(vtctx_shim_jar ALL DEPENDS ${VTCTX_SHIM_JAR})
  install(FILES ${VTCTX_SHIM_JAR} DESTINATION share/java)
endif()

install(TARGETS vtctx LIBRARY DESTINATION lib)
install(TARGETS vtctx-reader RUNTIME DESTINATION bin)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION share/doc/vtctx)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/vtctx/docs)

# --- cpack: tarball and .deb ----------------------------------------------------------------------
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(_vtctx_arch x86_64)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
else()
  set(_vtctx_arch aarch64)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
endif()
set(CPACK_GENERATOR TGZ DEB)
set(CPACK_PACKAGE_NAME vtctx)
set(CPACK_PACKAGE_VENDOR "vtctx")
set(CPACK_PACKAGE_CONTACT "vtctx maintainers <vtctx@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Trace context for Java virtual threads, readable by eBPF (OTEP 4947)")
set(CPACK_PACKAGE_FILE_NAME vtctx-${PROJECT_VERSION}-linux-${_vtctx_arch})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
# The tarball unpacks anywhere (paths relative to its top directory); the .deb installs under /usr.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/vtctx/vtctx")
# Both binaries need glibc only (the reader links its libraries statically); 2.35: the newest
# symbol version the agent uses (Debian 12 has 2.36).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.35)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "A JVMTI agent (libvtctx.so) gives every Java thread, virtual or platform, its own\n\
OTEP 4947 thread-context record and points each carrier's otel_thread_ctx_v1 at the\n\
record of the virtual thread it runs; vtctx-reader profiles and traces a JVM with\n\
every sample tagged with the request (trace and span) that ran; the Java shim\n\
publishes OpenTelemetry's current span with no code change.")
include(CPack)
