# Catch2 v3's amalgamated files (extras/catch_amalgamated.{hpp,cpp}) for
# tests/drivers' Catch2 v3 programs: from Debian's catch2 source package
# 3.7.1 (trixie; bookworm's catch2 is v2), its orig.tar.gz fetched from
# Debian's archive with its SHA-256 checked, the two files (and Catch2's
# LICENSE.txt) unpacked into DIR, which every build tree of the machine uses.
#   cmake -DDIR=/usr/local/src/memguard/catch2-3.7.1 -P fetch-catch2v3.cmake
# (ci/setup --test runs it, as root or with sudo.) Nothing is done when DIR
# holds the files; an error, saying why, when they cannot be had.
cmake_minimum_required(VERSION 3.18)
set(url http://deb.debian.org/debian/pool/main/c/catch2/catch2_3.7.1.orig.tar.gz)
set(sha c991b247a1a0d7bb9c39aa35faf0fe9e19764213f28ffba3109388e62ee0269c)
if(NOT DIR)
  message(FATAL_ERROR "fetch-catch2v3: -DDIR=... is required")
endif()
if(EXISTS ${DIR}/catch_amalgamated.cpp AND EXISTS ${DIR}/catch_amalgamated.hpp)
  return()
endif()
string(RANDOM LENGTH 8 tag)
set(tmp ${DIR}.tmp-${tag})
file(REMOVE_RECURSE ${tmp})
message(STATUS "memguard setup: fetching Catch2 3.7.1 (Debian's orig.tar.gz) into ${DIR}")
foreach(try 1 2)
  file(DOWNLOAD ${url} ${tmp}/orig.tar.gz EXPECTED_HASH SHA256=${sha} STATUS st
    TIMEOUT 120 INACTIVITY_TIMEOUT 30)
  list(GET st 0 code)
  if(code EQUAL 0)
    break()
  endif()
endforeach()
if(NOT code EQUAL 0)
  file(REMOVE_RECURSE ${tmp})
  message(FATAL_ERROR "fetch-catch2v3: could not fetch ${url} (${st})")
endif()
file(ARCHIVE_EXTRACT INPUT ${tmp}/orig.tar.gz DESTINATION ${tmp}/x
  PATTERNS */extras/catch_amalgamated.hpp */extras/catch_amalgamated.cpp */LICENSE.txt)
file(GLOB src ${tmp}/x/*/extras/catch_amalgamated.cpp)
file(GLOB hdr ${tmp}/x/*/extras/catch_amalgamated.hpp)
file(GLOB lic ${tmp}/x/*/LICENSE.txt)
if(NOT src OR NOT hdr)
  file(REMOVE_RECURSE ${tmp})
  message(FATAL_ERROR "fetch-catch2v3: ${url} holds no extras/catch_amalgamated.*")
endif()
file(MAKE_DIRECTORY ${tmp}/new)
file(COPY ${src} ${hdr} ${lic} DESTINATION ${tmp}/new
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(REMOVE_RECURSE ${DIR})
get_filename_component(parent ${DIR} DIRECTORY)
file(MAKE_DIRECTORY ${parent})
file(RENAME ${tmp}/new ${DIR})
file(REMOVE_RECURSE ${tmp})
