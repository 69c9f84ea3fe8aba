# Chooses CMAKE_CUDA_ARCHITECTURES before CUDA is enabled:
#   1. the user's choice (-DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable);
#   2. `native` when nvidia-smi sees a GPU on this machine;
#   3. otherwise machine code for Ampere and Hopper plus PTX for compute_75, which any newer GPU
#      can JIT-compile (so a build made on a GPU-less machine still runs everywhere).
if(DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(_bench_mps_arch_reason "set by the user")
elseif(DEFINED ENV{CUDAARCHS})
  set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}")
  set(_bench_mps_arch_reason "from CUDAARCHS")
else()
  find_program(_bench_mps_nvidia_smi nvidia-smi)
  set(_bench_mps_gpu_count 0)
  if(_bench_mps_nvidia_smi)
    execute_process(COMMAND "${_bench_mps_nvidia_smi}" -L
                    OUTPUT_VARIABLE _bench_mps_gpus RESULT_VARIABLE _bench_mps_rc ERROR_QUIET)
    if(_bench_mps_rc EQUAL 0 AND _bench_mps_gpus MATCHES "GPU [0-9]+:")
      set(_bench_mps_gpu_count 1)
    endif()
  endif()
  if(_bench_mps_gpu_count)
    set(CMAKE_CUDA_ARCHITECTURES native)
    set(_bench_mps_arch_reason "a GPU is present")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;75-virtual")
    set(_bench_mps_arch_reason "no GPU seen: Ampere + Hopper machine code, PTX fallback")
  endif()
endif()
message(STATUS "bench_mps: CUDA architectures '${CMAKE_CUDA_ARCHITECTURES}' (${_bench_mps_arch_reason})")
