# CPACK_PRE_BUILD_SCRIPTS: the static libraries in the package's staging
# tree lose their debug sections (strip -g, deterministic), as Debian's
# dh_strip does; lintian: unstripped-static-library. Binaries and shared
# objects are CPack's (CPACK_DEBIAN_DEBUGINFO_PACKAGE splits them).
find_program(MG_STRIP NAMES strip REQUIRED)
file(GLOB_RECURSE mg_archives "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.a")
foreach(a IN LISTS mg_archives)
  execute_process(COMMAND ${MG_STRIP} --strip-debug --enable-deterministic-archives "${a}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strip -g ${a} failed (${rc})")
  endif()
endforeach()
