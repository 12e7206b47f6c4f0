# cmake/cli.cmake — the `attn` program (src/cli). Included by CMakeLists.txt when ATTN_BUILD_CLI is on.

find_package(CLI11 REQUIRED)
add_executable(attn_cli
  src/cli/main.cpp
  src/cli/command_setup.cpp
  src/cli/language.cpp
  src/cli/usage_language.cpp
  src/cli/command_list.cpp
  src/cli/command_lesson.cpp
  src/cli/command_check.cpp
  src/cli/command_compute.cpp
  src/cli/command_run.cpp
  src/cli/command_train.cpp
  src/cli/command_exercise.cpp
  src/cli/bench_support.cpp
  src/cli/command_bench.cpp
  src/cli/command_bench_decode.cpp
  src/cli/command_bench_backward.cpp
  src/cli/command_bench_train.cpp
  src/cli/command_view.cpp
)
set_target_properties(attn_cli PROPERTIES OUTPUT_NAME attn)
target_link_libraries(attn_cli PRIVATE attn_tutor attn_exercises attn_fast CLI11::CLI11)
target_compile_definitions(attn_cli PRIVATE ATTN_VERSION="${PROJECT_VERSION}" ATTN_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                            ATTN_EXERCISE_ASAN=${ATTN_STUDENT_ASAN})
attn_target_defaults(attn_cli)
