# Every dependency comes from Debian's packages; nothing is downloaded.
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
find_package(simdjson REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(LibArchive REQUIRED)
# A compressed log (gzip, zstd, xz, bzip2) is decoded with its own library, so that the bytes
# before damage in it are read (src/ingest/stream_decoder.hpp); libarchive reads archives.
find_package(ZLIB REQUIRED)
find_package(BZip2 REQUIRED)
find_package(LibLZMA REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
find_package(Threads REQUIRED)
# Hyperscan (libhyperscan-dev; libvectorscan-dev off x86) screens large logs for the rules'
# literals in one pass (screen/literal_screen.hpp). Optional: without it every line is read.
option(FAULTLINE_HYPERSCAN "Use Hyperscan for the sparse read of large logs when found" ON)
set(FAULTLINE_HYPERSCAN_FOUND OFF)
if(FAULTLINE_HYPERSCAN)
  pkg_check_modules(HS IMPORTED_TARGET libhs)
  if(HS_FOUND)
    set(FAULTLINE_HYPERSCAN_FOUND ON)
  else()
    message(STATUS "Hyperscan not found (apt-get install libhyperscan-dev): large logs are read line by line")
  endif()
endif()
if(FAULTLINE_TESTS)
  find_package(doctest REQUIRED)
endif()
