# cmake/tests.cmake — the Catch2 suite (tests/) and its CTest entries. Included by CMakeLists.txt
# when ATTN_BUILD_TESTS is on.

find_package(Catch2 2 REQUIRED)
include(Catch)
# Catch2's main is the slowest file to compile: it lives alone in its own object library.
add_library(attn_catch_main OBJECT tests/catch_main.cpp)
target_link_libraries(attn_catch_main PUBLIC Catch2::Catch2)
attn_target_defaults(attn_catch_main)
add_executable(attn_tests
  $<TARGET_OBJECTS:attn_catch_main>
  tests/support/tensor_match.cpp
  tests/support/run_command.cpp
  tests/support/temp_dir.cpp
  tests/support/fixtures.cpp
  tests/support/pty_session.cpp
  tests/support/hostile_checks.cpp
  tests/support/interop_cases.cpp
  tests/support/per_lesson.cpp
  tests/support/lesson_runs.cpp
  tests/support/npy_bytes.cpp
  tests/support/state_dict.cpp
  tests/support/gradient_check.cpp
  tests/support/layer_parameters.cpp
  tests/test_shape.cpp
  tests/test_matmul.cpp
  tests/test_check.cpp
  tests/test_softmax.cpp
  tests/test_dot_attention.cpp
  tests/test_luong_attention.cpp
  tests/test_bahdanau_attention.cpp
  tests/test_linear.cpp
  tests/test_masks.cpp
  tests/test_scaled_dot_product_attention.cpp
  tests/test_online_softmax_attention.cpp
  tests/test_multi_head_attention.cpp
  tests/test_grouped_query_attention.cpp
  tests/test_kv_cache.cpp
  tests/test_generation.cpp
  tests/test_layer_norm.cpp
  tests/test_embedding.cpp
  tests/test_positions.cpp
  tests/test_rotary.cpp
  tests/test_feed_forward.cpp
  tests/test_encoder_layer.cpp
  tests/test_decoder_layer.cpp
  tests/test_transformer.cpp
  tests/test_softmax_backward.cpp
  tests/test_linear_backward.cpp
  tests/test_scaled_dot_product_attention_backward.cpp
  tests/test_layer_norm_backward.cpp
  tests/test_feed_forward_backward.cpp
  tests/test_multi_head_attention_backward.cpp
  tests/test_encoder_layer_backward.cpp
  tests/support/training_fixtures.cpp
  tests/test_embedding_backward.cpp
  tests/test_cross_entropy.cpp
  tests/test_adam.cpp
  tests/test_learning_rate.cpp
  tests/test_decoder_layer_backward.cpp
  tests/test_transformer_backward.cpp
  tests/support/fast_inputs.cpp
  tests/test_fast_attention.cpp
  tests/test_fast_multi_head_attention.cpp
  tests/test_fast_multi_head_attention_backward.cpp
  tests/test_fast_seq2seq_training.cpp
  tests/test_fast_seq2seq_dropout.cpp
  tests/test_fast_encoder_layer.cpp
  tests/test_fast_threads.cpp
  tests/test_fast_kernels.cpp
  tests/test_fast_tile_products.cpp
  tests/test_fast_rope.cpp
  tests/test_fast_decode.cpp
  tests/support/copy_training_fixtures.cpp
  tests/test_dropout.cpp
  tests/test_seq2seq_dropout.cpp
  tests/test_seq2seq_transformer.cpp
  tests/test_copy_training.cpp
  tests/test_cli_train.cpp
  tests/test_cli_train_run.cpp
  tests/test_cli_train_heatmaps.cpp
  tests/test_cli_train_float32.cpp
  tests/test_npy.cpp
  tests/test_npy_bytes.cpp
  tests/test_npy_write.cpp
  tests/test_npz_write.cpp
  tests/test_npy_float32.cpp
  tests/test_npy_tensor.cpp
  tests/test_printable.cpp
  tests/test_files.cpp
  tests/test_fuzz_regressions.cpp
  fuzz/fuzz_targets.cpp
  tests/test_mistakes.cpp
  tests/test_mistakes_layers.cpp
  tests/test_mistakes_online_softmax.cpp
  tests/test_exercise_diagnosis.cpp
  tests/test_exercise_sandbox.cpp
  tests/test_exercise_files.cpp
  tests/test_student_build.cpp
  tests/test_tensor_format.cpp
  tests/test_tensor_literal.cpp
  tests/test_lesson_document.cpp
  tests/test_heatmap.cpp
  tests/test_terminal.cpp
  tests/test_text_layout.cpp
  tests/test_markdown.cpp
  tests/test_screens.cpp
  tests/test_lesson_report.cpp
  tests/test_pager.cpp
  tests/test_projector_output.cpp
  tests/test_lesson_screens_cli.cpp
  tests/test_attention_view.cpp
  tests/test_attention_page.cpp
  tests/test_lessons.cpp
  tests/test_lesson_conventions.cpp
  tests/test_lesson_editions.cpp
  tests/test_compute_modules.cpp
  tests/test_cli.cpp
  tests/test_cli_lesson.cpp
  tests/test_cli_compute.cpp
  tests/test_cli_compute_fast.cpp
  tests/test_cli_compute_positions.cpp
  tests/test_cli_compute_config.cpp
  tests/test_cli_compute_decoder.cpp
  tests/test_cli_compute_grad.cpp
  tests/test_cli_run.cpp
  tests/test_cli_view.cpp
  tests/test_cli_hostile.cpp
  tests/test_cli_hostile_archives.cpp
  tests/test_cli_hostile_outputs.cpp
  tests/test_cli_hostile_tutor.cpp
  tests/test_cli_hostile_files.cpp
  tests/test_cli_interop.cpp
  tests/test_cli_pytorch_settings.cpp
  tests/test_cli_bench.cpp
  tests/test_language.cpp
  tests/test_cli_language.cpp
  tests/test_cli_spanish.cpp
)
# Each lesson folder's own tests (lessons/NN-slug/tests.cpp, tests/*.cpp), compiled with the folder's
# names so that ATTN_LESSON_TEST_CASE (tests/support/lesson_test_case.hpp) names and tags them.
foreach(folder IN LISTS ATTN_LESSONS)
  attn_lesson_test_sources(${folder} lesson_tests)
  if(lesson_tests)
    target_sources(attn_tests PRIVATE ${lesson_tests})
    attn_lesson_definitions(${folder} ${lesson_tests})
  endif()
endforeach()
target_include_directories(attn_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
target_link_libraries(attn_tests PRIVATE attn_tutor attn_exercises attn_fast Catch2::Catch2)
attn_target_defaults(attn_tests)
# The test files themselves at -O1 in a Release build: what they compute is references and checks on
# small tensors, while the library under test keeps the build's own -O3. Measured on an AMD EPYC
# Zen 4 (2 vCPUs): compiling attn_tests took 400 s of CPU at -O3, 343 s with the precompiled header
# below, 192 s with both; `attn_tests "~[slow]"` ran 28 s of CPU against 24 s.
target_compile_options(attn_tests PRIVATE $<$<CONFIG:Release>:-O1>)
# Catch2's header and xtensor's, read once for the whole suite instead of once per test file.
target_precompile_headers(attn_tests PRIVATE
  <catch2/catch.hpp> <xtensor/xarray.hpp> <xtensor/xtensor.hpp> <xtensor/xview.hpp>
  <algorithm> <cmath> <filesystem> <string> <vector>)
if(ATTN_HAVE_OPENBLAS)
  target_compile_definitions(attn_tests PRIVATE ATTN_HAVE_OPENBLAS)  # test_fast_threads reads OpenBLAS's count
endif()
target_precompile_headers(attn_tests PRIVATE <catch2/catch.hpp> <xtensor/xtensor.hpp> <xtensor/xarray.hpp>)
target_compile_definitions(attn_tests PRIVATE
  ATTN_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
  ATTN_BUILD_PATH="${CMAKE_BINARY_DIR}"
  ATTN_EXERCISE_ASAN=${ATTN_STUDENT_ASAN}
  $<$<BOOL:${ATTN_BUILD_CLI}>:ATTN_CLI_PATH="$<TARGET_FILE:attn_cli>">)
if(ATTN_BUILD_CLI)
  add_dependencies(attn_tests attn_cli)
endif()
catch_discover_tests(attn_tests WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME "documentation - every path written in backticks exists"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/doc_paths.sh)
