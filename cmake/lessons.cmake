# cmake/lessons.cmake — the lessons are the folders lessons/NN-slug; nothing else counts them.
#
# Why: a lesson is a folder (its documents, its program, its exercise). Adding one must not mean
# registering it in CMakeLists.txt, in the tutor's table, in the checker's switch and in every
# test (docs/adding-a-lesson.md). CMake finds the folders here; the tutor's table of lesson
# programs and the checker's table of exercises are generated from what it found.
#
#   attn_discover_lessons()          ATTN_LESSONS: the folders (01-dot-product, …, 12-…, 100-…)
#                                    in the order of their numbers; ATTN_EXERCISES: those with an
#                                    exercise/cases.cpp; per folder F, ATTN_LESSON_NUMBER_${F}
#   attn_lesson_definitions(F file…) gives the files of folder F their lesson's own names
#   attn_lesson_test_sources(F out)  the lesson's own tests: F/tests.cpp and F/tests/*.cpp
#   attn_write_lesson_programs(out)  writes the tutor's table of lesson programs (a .cpp)
#   attn_write_exercise_entries(out) writes the checker's table of exercises (a .cpp)
#
# A folder counts when its name is digits, a dash and a slug of lowercase letters, digits and
# dashes, and it holds a README.md and a lesson.cpp. The names each lesson's files get:
#   ATTN_LESSON_NUMBER    the folder's number (1, 12, 100)
#   ATTN_LESSON_FOLDER    the folder's name as a string ("01-dot-product")
#   ATTN_LESSON_TAG       the folder's test tag as a string ("[lesson01]": two digits at least,
#                         as tests/support/per_lesson.hpp writes it)
#   ATTN_LESSON_ENTRY     the lesson program's function (attn_lesson_01_dot_product), defined by
#                         ATTN_LESSON_PROGRAM in lesson.cpp (tutor/lesson/lesson_registration.hpp)
#   ATTN_EXERCISE_ENTRY   the exercise's definition, defined by ATTN_EXERCISE_DEFINITION in
#                         exercise/cases.cpp (exercises/exercise_case.hpp)
# so a lesson's sources never write their own number, and a copied folder is a new lesson.

# The C identifier of folder F: attn_lesson_ + F with dashes as underscores.
function(attn_lesson_identifier folder out)
  string(REPLACE "-" "_" name "${folder}")
  set(${out} "attn_lesson_${name}" PARENT_SCOPE)
endfunction()

macro(attn_discover_lessons)
  file(GLOB _attn_candidates LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}/lessons
       CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/lessons/*)
  # The files that make a folder a lesson, or give it an exercise, can appear in a folder that
  # already exists (a branch merged, a lesson written in steps): globbing them too makes the next
  # build configure again and find them, not only a new folder.
  file(GLOB _attn_lesson_markers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/lessons/*/README.md
       ${CMAKE_CURRENT_SOURCE_DIR}/lessons/*/lesson.cpp ${CMAKE_CURRENT_SOURCE_DIR}/lessons/*/exercise/cases.cpp)
  set(_attn_keyed)
  foreach(folder IN LISTS _attn_candidates)
    if(folder MATCHES "^([0-9]+)-([a-z0-9][a-z0-9-]*)$"
       AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/lessons/${folder}/README.md
       AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/lessons/${folder}/lesson.cpp)
      math(EXPR _attn_number "${CMAKE_MATCH_1}")  # "07" → 7
      string(LENGTH "${_attn_number}" _attn_digits)
      # Sorted by number: a key of the number padded to 9 digits, then the folder.
      math(EXPR _attn_pad "9 - ${_attn_digits}")
      string(REPEAT "0" ${_attn_pad} _attn_zeros)
      list(APPEND _attn_keyed "${_attn_zeros}${_attn_number}|${folder}")
      set(ATTN_LESSON_NUMBER_${folder} ${_attn_number})
    endif()
  endforeach()
  list(SORT _attn_keyed)
  set(ATTN_LESSONS)
  set(ATTN_EXERCISES)
  foreach(key IN LISTS _attn_keyed)
    string(REGEX REPLACE "^[0-9]+\\|" "" folder "${key}")
    list(APPEND ATTN_LESSONS ${folder})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/lessons/${folder}/exercise/cases.cpp)
      list(APPEND ATTN_EXERCISES ${folder})
    endif()
  endforeach()
  if(NOT ATTN_LESSONS)
    message(FATAL_ERROR "no lesson folders found under ${CMAKE_CURRENT_SOURCE_DIR}/lessons (lessons/NN-slug/README.md and lesson.cpp)")
  endif()
endmacro()

function(attn_lesson_definitions folder)
  attn_lesson_identifier(${folder} identifier)
  set(number ${ATTN_LESSON_NUMBER_${folder}})
  if(number LESS 10)
    set(number "0${number}")
  endif()
  set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_DEFINITIONS
    ATTN_LESSON_NUMBER=${ATTN_LESSON_NUMBER_${folder}}
    ATTN_LESSON_FOLDER="${folder}"
    ATTN_LESSON_TAG="[lesson${number}]"
    ATTN_LESSON_ENTRY=${identifier}_program
    ATTN_EXERCISE_ENTRY=${identifier}_exercise)
endfunction()

# The lesson's own tests (docs/adding-a-lesson.md): lessons/F/tests.cpp and lessons/F/tests/*.cpp,
# globbed with CONFIGURE_DEPENDS so that a new file is found by the next build.
function(attn_lesson_test_sources folder out)
  file(GLOB sources CONFIGURE_DEPENDS
       ${CMAKE_CURRENT_SOURCE_DIR}/lessons/${folder}/tests.cpp
       ${CMAKE_CURRENT_SOURCE_DIR}/lessons/${folder}/tests/*.cpp)
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

# Writes `content` to `output` only when it differs, so that a configure that finds the same
# lessons rebuilds nothing.
function(attn_write_if_changed output content)
  file(WRITE ${output}.new "${content}")
  configure_file(${output}.new ${output} COPYONLY)
  file(REMOVE ${output}.new)
endfunction()

# The generated tables: a declaration and a row per lesson.
function(attn_write_lesson_programs output)
  set(declarations "")
  set(rows "")
  foreach(folder IN LISTS ATTN_LESSONS)
    attn_lesson_identifier(${folder} identifier)
    string(REGEX REPLACE "^[0-9]+-" "" slug "${folder}")
    string(APPEND declarations "NamedTensors ${identifier}_program(const std::string& example, const LessonInputs& inputs);\n")
    string(APPEND rows "        {${ATTN_LESSON_NUMBER_${folder}}, \"${slug}\", ${identifier}_program},\n")
  endforeach()
  attn_write_if_changed(${output} "\
// Generated by CMake from the folders lessons/NN-slug (cmake/lessons.cmake). Do not edit.
#include \"tutor/lesson/lessons.hpp\"

namespace attn::tutor {

${declarations}
const std::vector<LessonProgram>& lesson_programs() {
    static const std::vector<LessonProgram> programs = {
${rows}    };
    return programs;
}

}  // namespace attn::tutor
")
endfunction()

function(attn_write_exercise_entries output)
  set(declarations "")
  set(rows "")
  foreach(folder IN LISTS ATTN_EXERCISES)
    attn_lesson_identifier(${folder} identifier)
    string(APPEND declarations "Exercise ${identifier}_exercise(const std::string& source);\n")
    string(APPEND rows "        {${ATTN_LESSON_NUMBER_${folder}}, \"${folder}\", ${identifier}_exercise},\n")
  endforeach()
  attn_write_if_changed(${output} "\
// Generated by CMake from the folders lessons/NN-slug/exercise (cmake/lessons.cmake). Do not edit.
#include \"exercises/exercise_case.hpp\"

namespace attn::exercises {

${declarations}
const std::vector<ExerciseEntry>& exercise_entries() {
    static const std::vector<ExerciseEntry> entries = {
${rows}    };
    return entries;
}

}  // namespace attn::exercises
")
endfunction()
