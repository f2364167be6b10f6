# Locates a JDK >= 21 (virtual threads, JVMTI 21) for the JVMTI/JNI headers and the
# java/javac/jcmd used by tests.
#
# Order: -DJDK_HOME=..., then $JAVA_HOME, then the newest JDK under VTCTX_JDK_SEARCH_DIR
# (default /usr/lib/jvm).
# A candidate older than 21 is skipped (JAVA_HOME too, with a note); if none qualifies
# configuration stops with one clear message.
#
# Sets: JDK_HOME, JDK_VERSION_MAJOR, JDK_INCLUDE_DIRS, JDK_JAVA, JDK_JAVAC, JDK_JCMD, JDK_JAR.

function(_vtctx_jdk_major home out)
  set(${out} 0 PARENT_SCOPE)
  if(NOT EXISTS "${home}/include/jvmti.h" OR NOT EXISTS "${home}/bin/javac")
    return()
  endif()
  if(EXISTS "${home}/release")
    file(STRINGS "${home}/release" line REGEX "^JAVA_VERSION=")
    if(line MATCHES "JAVA_VERSION=\"([0-9]+)")
      set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
    endif()
  endif()
endfunction()

set(_vtctx_jdk_min 21)
set(_candidates "")
if(JDK_HOME)
  list(APPEND _candidates "${JDK_HOME}")
endif()
if(DEFINED ENV{JAVA_HOME} AND NOT "$ENV{JAVA_HOME}" STREQUAL "")
  list(APPEND _candidates "$ENV{JAVA_HOME}")
endif()
set(VTCTX_JDK_SEARCH_DIR "/usr/lib/jvm" CACHE PATH "Directory searched for JDKs when JAVA_HOME has none >= 21")
file(GLOB _system_jdks LIST_DIRECTORIES true "${VTCTX_JDK_SEARCH_DIR}/*")

set(_best_home "")
set(_best_major 0)
set(_seen "")
foreach(home IN LISTS _candidates)
  _vtctx_jdk_major("${home}" major)
  list(APPEND _seen "${home} (${major})")
  if(major GREATER_EQUAL _vtctx_jdk_min)
    set(_best_home "${home}")
    set(_best_major ${major})
    break()
  elseif(NOT major EQUAL 0)
    message(STATUS "vtctx: skipping ${home}: JDK ${major} has no virtual threads (need >= ${_vtctx_jdk_min})")
  endif()
endforeach()
if(NOT _best_home)
  foreach(home IN LISTS _system_jdks)
    _vtctx_jdk_major("${home}" major)
    list(APPEND _seen "${home} (${major})")
    if(major GREATER _best_major AND major GREATER_EQUAL _vtctx_jdk_min)
      set(_best_home "${home}")
      set(_best_major ${major})
    endif()
  endforeach()
endif()

if(NOT _best_home)
  message(FATAL_ERROR
    "vtctx: no JDK >= ${_vtctx_jdk_min} found (virtual threads need JDK 21+). Checked: ${_seen}. "
    "Install one (scripts/install-deps.sh does) or pass -DJDK_HOME=/path/to/jdk.")
endif()

set(JDK_HOME "${_best_home}" CACHE PATH "JDK (>= 21) used for headers and tests" FORCE)
set(JDK_VERSION_MAJOR ${_best_major})
set(JDK_INCLUDE_DIRS "${JDK_HOME}/include" "${JDK_HOME}/include/linux")
set(JDK_JAVA "${JDK_HOME}/bin/java")
set(JDK_JAVAC "${JDK_HOME}/bin/javac")
set(JDK_JCMD "${JDK_HOME}/bin/jcmd")
set(JDK_JAR "${JDK_HOME}/bin/jar")
message(STATUS "vtctx: using JDK ${JDK_VERSION_MAJOR} at ${JDK_HOME}")
