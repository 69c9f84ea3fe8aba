# One INTERFACE target carries the warning flags (mirrored to nvcc with -Xcompiler); every target of
# the project links it through bench_mps_target(), so leaf CMakeLists stay two or three lines.
add_library(bench_mps_warnings INTERFACE)
set(_bench_mps_warn -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wno-unused-parameter)
foreach(_flag IN LISTS _bench_mps_warn)
  target_compile_options(bench_mps_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:${_flag}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_flag}>)
endforeach()

# git sha and dirty flag, stamped into every results folder's meta.json; regenerated at every build
# (the header only changes, and triggers recompilation, when the sha or the dirty flag does).
set(BENCH_MPS_GENERATED_DIR "${PROJECT_BINARY_DIR}/generated")
add_custom_target(bench_mps_git_info ALL
  COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR="${PROJECT_SOURCE_DIR}"
          -DOUTPUT="${BENCH_MPS_GENERATED_DIR}/bench_mps_git_info.hpp" -P "${PROJECT_SOURCE_DIR}/cmake/git_info.cmake"
  BYPRODUCTS "${BENCH_MPS_GENERATED_DIR}/bench_mps_git_info.hpp"
  COMMENT "Stamping git sha")

function(bench_mps_target target)
  target_link_libraries(${target} PRIVATE bench_mps_warnings)
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}")
endfunction()

# bench_mps_wing(<wing> SOURCES ... [DEPENDS <wing>...] [LIBS ...]): harness/<wing>/ as the library
# bench_mps_<wing> (alias bench_mps::<wing>), linked PUBLIC to the wings below it. The link graph is
# the layering (docs/ARCHITECTURE.md), and the compiler enforces it too: the library defines
# BENCH_MPS_WING_<WING> for itself and whatever links it, and every header of the wing includes
# harness/<wing>/wing.hpp, which stops the build of a target that does not link the wing.
function(bench_mps_wing wing)
  cmake_parse_arguments(W "" "" "SOURCES;DEPENDS;LIBS" ${ARGN})
  add_library(bench_mps_${wing} STATIC ${W_SOURCES})
  add_library(bench_mps::${wing} ALIAS bench_mps_${wing})
  bench_mps_target(bench_mps_${wing})
  string(TOUPPER "${wing}" upper)
  target_compile_definitions(bench_mps_${wing} PUBLIC BENCH_MPS_WING_${upper})
  target_include_directories(bench_mps_${wing} PUBLIC "${PROJECT_SOURCE_DIR}")
  list(TRANSFORM W_DEPENDS PREPEND "bench_mps::")
  target_link_libraries(bench_mps_${wing} PUBLIC ${W_DEPENDS} ${W_LIBS})
endfunction()
