# Writes the agent's version script (MAP) from its template (TEMPLATE), exporting every JNI function
# the generated AgentNatives header (HEADER, from javac -h) declares. Run with cmake -P at build time.
file(READ "${HEADER}" header)
string(REGEX MATCHALL "JNICALL Java_[A-Za-z0-9_]+" declared "${header}")
if(NOT declared)
  message(FATAL_ERROR "vtctx: no JNI function declared in ${HEADER}")
endif()
set(VTCTX_JNI_EXPORTS "")
foreach(declaration IN LISTS declared)
  string(REPLACE "JNICALL " "" name "${declaration}")
  string(APPEND VTCTX_JNI_EXPORTS "    ${name};\n")
endforeach()
configure_file("${TEMPLATE}" "${MAP}" @ONLY)
