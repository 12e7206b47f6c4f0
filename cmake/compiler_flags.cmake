# cmake/compiler_flags.cmake — the flags every target of ours gets: C++17, warnings, and the
# sanitizers' or the fuzzer's instrumentation (attn_target_defaults). Included by CMakeLists.txt.

# Flags every target of ours gets (attn_target_defaults below), never global ones, so that a
# project that adds this one as a subdirectory keeps its own flags.
set(ATTN_SANITIZE_COMPILE_OPTIONS)
set(ATTN_SANITIZE_LINK_OPTIONS)
if(ATTN_SANITIZE)
  # float-cast-overflow: GCC leaves it out of "undefined", and a double → size_t from a document
  # or an option is exactly the bug class it catches.
  list(APPEND ATTN_SANITIZE_COMPILE_OPTIONS -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
                                            -fno-sanitize-recover=undefined,float-cast-overflow)
  list(APPEND ATTN_SANITIZE_LINK_OPTIONS -fsanitize=address,undefined,float-cast-overflow)
endif()
if(ATTN_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ATTN_BUILD_FUZZERS needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(NOT ATTN_BUILD_TUTOR)
    message(FATAL_ERROR "ATTN_BUILD_FUZZERS needs ATTN_BUILD_TUTOR=ON: the harnesses fuzz the tutor's parsers")
  endif()
  # Coverage instrumentation for libFuzzer in every target of ours, and the sanitizers that turn
  # a silent bug into a finding. The harnesses link the fuzzer's main (fuzz/CMakeLists.txt).
  list(APPEND ATTN_SANITIZE_COMPILE_OPTIONS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                                            -fno-omit-frame-pointer)
  list(APPEND ATTN_SANITIZE_LINK_OPTIONS -fsanitize=address,undefined)
endif()

# C++17, warnings and the sanitizer flags for one of our targets.
function(attn_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_compile_options(${target} PRIVATE -Wall -Wextra ${ATTN_SANITIZE_COMPILE_OPTIONS})
  target_link_options(${target} PRIVATE ${ATTN_SANITIZE_LINK_OPTIONS})
endfunction()
