# Every dependency comes from a distro package (scripts/setup.sh installs them); nothing is vendored.
find_package(Threads REQUIRED)
find_package(CUDAToolkit REQUIRED)                 # cudart, cuBLAS
set(Boost_USE_STATIC_LIBS ON)                       # the binaries must also run where Boost is absent
find_package(Boost 1.71 REQUIRED COMPONENTS filesystem)  # Boost.Process (header-only) needs filesystem
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3.9 CONFIG REQUIRED)
find_package(ZLIB REQUIRED)  # big CSVs committed gzip-packed (NAME.csv.gz) are read as they unpack (zlib1g-dev)
find_path(FCCP_INCLUDE_DIR csv.h PATH_SUFFIXES libfccp REQUIRED
          DOC "fast-cpp-csv-parser (Debian: libfccp-dev)")
add_library(bench_mps_fccp INTERFACE)
target_include_directories(bench_mps_fccp SYSTEM INTERFACE "${FCCP_INCLUDE_DIR}")
target_link_libraries(bench_mps_fccp INTERFACE Threads::Threads)
if(BENCH_MPS_ENABLE_TESTS)
  find_package(GTest REQUIRED)
endif()
if(BENCH_MPS_ENABLE_BENCH)
  find_package(benchmark REQUIRED)
endif()
