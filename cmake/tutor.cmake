# cmake/tutor.cmake — the tutor's engine: the lessons found in lessons/, their classic mistakes
# and attn_tutor. Included by CMakeLists.txt when ATTN_BUILD_TUTOR is on.

# ---------------------------------------------------------------------------------------------
# The lessons: every folder lessons/NN-slug (cmake/lessons.cmake; docs/adding-a-lesson.md).
include(cmake/lessons.cmake)
attn_discover_lessons()
set(ATTN_GENERATED_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated)
attn_write_lesson_programs(${ATTN_GENERATED_DIR}/lesson_programs.cpp)
attn_write_exercise_entries(${ATTN_GENERATED_DIR}/exercise_entries.cpp)
set(ATTN_LESSON_PROGRAM_SOURCES ${ATTN_GENERATED_DIR}/lesson_programs.cpp)
foreach(folder IN LISTS ATTN_LESSONS)
  list(APPEND ATTN_LESSON_PROGRAM_SOURCES lessons/${folder}/lesson.cpp)
  attn_lesson_definitions(${folder} lessons/${folder}/lesson.cpp)
endforeach()

# ---------------------------------------------------------------------------------------------
# The classic mistakes, one file per lesson beside its exercise: the lesson programs show a
# trap's numbers with them, and `attn exercise` names the one a student's numbers match.
set(ATTN_MISTAKE_SOURCES)
foreach(exercise IN LISTS ATTN_EXERCISES)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/lessons/${exercise}/exercise/mistakes.cpp)
    list(APPEND ATTN_MISTAKE_SOURCES lessons/${exercise}/exercise/mistakes.cpp)
    attn_lesson_definitions(${exercise} lessons/${exercise}/exercise/mistakes.cpp)
  endif()
endforeach()
add_library(attn_mistakes STATIC ${ATTN_MISTAKE_SOURCES})
target_include_directories(attn_mistakes PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/lessons)
target_link_libraries(attn_mistakes PUBLIC attn)
attn_target_defaults(attn_mistakes)

# ---------------------------------------------------------------------------------------------
# The tutor's engine (internal headers in src/tutor)
add_library(attn_tutor STATIC
  src/tutor/lesson/tensor_format.cpp
  src/tutor/document/tensor_literal.cpp
  src/tutor/document/lesson_document.cpp
  src/tutor/lesson/check.cpp
  src/tutor/lesson/lessons.cpp
  src/tutor/language.cpp
  src/tutor/catalogue_check.cpp
  ${ATTN_LESSON_PROGRAM_SOURCES}
  src/tutor/compute/compute_gradients.cpp
  src/tutor/compute/compute_modules.cpp
  src/tutor/compute/compute_input_names.cpp
  src/tutor/compute/compute_validation.cpp
  src/tutor/compute/compute_position_modules.cpp
  src/tutor/compute/compute_inputs.cpp
  src/tutor/compute/compute_fast.cpp
  src/tutor/compute/named_weights.cpp
  src/tutor/compute/mask_conventions.cpp
  src/tutor/compute/flat_json.cpp
  src/tutor/compute/model_config.cpp
  src/tutor/compute/weight_prefix.cpp
  src/tutor/compute/decoder_weights.cpp
  src/tutor/compute/compute_decoder_modules.cpp
  src/tutor/train/copy_task.cpp
  src/tutor/train/copy_training.cpp
  src/tutor/train/copy_evaluation.cpp
  src/tutor/train/copy_files.cpp
  src/tutor/train/progress.cpp
  src/tutor/train/interrupt.cpp
  src/tutor/train/run_outputs.cpp
  src/tutor/train/copy_heatmaps.cpp
  src/tutor/terminal/terminal.cpp
  src/tutor/terminal/text_layout.cpp
  src/tutor/document/markdown_inline.cpp
  src/tutor/document/markdown_table.cpp
  src/tutor/document/markdown.cpp
  src/tutor/terminal/key_input.cpp
  src/tutor/lesson/walkthrough.cpp
  src/tutor/terminal/screens.cpp
  src/tutor/terminal/pager.cpp
  src/tutor/lesson/lesson_report.cpp
  src/tutor/views/heatmap.cpp
  src/tutor/views/attention_view.cpp
  src/tutor/views/attention_picture.cpp
  src/tutor/views/attention_page.cpp
  src/tutor/views/attention_svg.cpp
  src/tutor/exercises.cpp
)
target_include_directories(attn_tutor PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/src)
# The page's style and script are files, compiled in as char arrays (tutor/views/embedded_assets.hpp).
attn_embed_assets(attn_tutor
  attention_page_css src/tutor/views/assets/attention_page.css
  attention_page_js src/tutor/views/assets/attention_page.js)
target_link_libraries(attn_tutor PUBLIC attn PRIVATE attn_mistakes attn_fast)
attn_target_defaults(attn_tutor)
# Where the lesson documents are found when neither --lessons-dir nor ATTN_LESSONS_DIR says.
target_compile_definitions(attn_tutor PRIVATE ATTN_DEFAULT_LESSONS_DIR="${CMAKE_CURRENT_SOURCE_DIR}/lessons"
                                               ATTN_DEFAULT_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
