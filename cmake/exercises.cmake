# cmake/exercises.cmake — the exercises: the checker (attn_exercises) and, per exercise, the
# student's program and its CTest entries. Included by CMakeLists.txt when ATTN_BUILD_EXERCISES is on.

# Exercises (docs/architecture.md, "How an exercise flows"). lessons/NN-slug/exercise/ holds the stub, the
# hints, a written-out reference solution, the lesson's classic mistakes, the cases the checker
# runs (cases.cpp) and the student's side of the conversation (serve.cpp).
#
# The checker, linked into `attn` and the tests: it builds the student's program, runs it in a
# sandbox, judges each case from the program's reports and diagnoses across cases.
option(ATTN_EXERCISE_SOLUTIONS "Also check every exercise's reference solution.cpp in CTest (label exercise)" OFF)
set(ATTN_EXERCISE_CHECKER_SOURCES
  src/exercises/case_steps.cpp
  src/exercises/diagnosis.cpp
  src/exercises/child_process.cpp
  src/exercises/isolation.cpp
  src/exercises/sandbox.cpp
  src/exercises/captured_run.cpp
  src/exercises/student_build.cpp
  src/exercises/exercise_run.cpp
  src/exercises/report.cpp
  src/exercises/exercise_definition.cpp)
list(APPEND ATTN_EXERCISE_CHECKER_SOURCES ${ATTN_GENERATED_DIR}/exercise_entries.cpp)
foreach(exercise IN LISTS ATTN_EXERCISES)
  list(APPEND ATTN_EXERCISE_CHECKER_SOURCES lessons/${exercise}/exercise/cases.cpp)
  attn_lesson_definitions(${exercise} lessons/${exercise}/exercise/cases.cpp)
endforeach()
add_library(attn_exercises STATIC ${ATTN_EXERCISE_CHECKER_SOURCES})
target_link_libraries(attn_exercises PUBLIC attn_tutor attn_mistakes)
attn_target_defaults(attn_exercises)

# The student's program: the student's file, the exercise's serve.cpp and student_main.cpp, with
# xtensor's bounds checks and, where the compiler has it, AddressSanitizer (and UBSan), so that an
# off-by-one names the index instead of corrupting memory. Built only on demand by `attn exercise`
# (EXCLUDE_FROM_ALL): unfinished work never breaks `all`. The student's file is compiled through a
# generated file in the build folder that #includes it, so `attn exercise N --file F` can check any
# file; each exercise's <build>/exercises/exercise_NN.build tells the CLI where the program and the
# student's object file (for the library-call check) are.
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=address,undefined)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=address,undefined)
check_cxx_source_compiles("int main() { return 0; }" ATTN_COMPILER_HAS_ASAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
option(ATTN_EXERCISE_ASAN "Build the student's programs with AddressSanitizer and UBSan" ${ATTN_COMPILER_HAS_ASAN})
# With ATTN_SANITIZE the student's programs get the project's sanitizer flags too (float-cast-overflow).
set(ATTN_STUDENT_OPTIONS -O1 -g -fno-omit-frame-pointer -Wall -Wextra ${ATTN_SANITIZE_COMPILE_OPTIONS})
set(ATTN_STUDENT_LINK_OPTIONS ${ATTN_SANITIZE_LINK_OPTIONS})
if(ATTN_EXERCISE_ASAN OR ATTN_SANITIZE)
  list(APPEND ATTN_STUDENT_OPTIONS -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  list(APPEND ATTN_STUDENT_LINK_OPTIONS -fsanitize=address,undefined)
  set(ATTN_STUDENT_ASAN 1)
else()
  set(ATTN_STUDENT_ASAN 0)
endif()
# The student's program isolates itself first: a seccomp filter (libseccomp) installed before any of
# the student's code runs (src/exercises/student/seccomp_first.cpp); the checker starts it under
# bubblewrap when user namespaces work (src/exercises/isolation.cpp, found at run time, CMake's
# find only gives the default path).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(ATTN_SECCOMP QUIET IMPORTED_TARGET libseccomp)
endif()
if(TARGET PkgConfig::ATTN_SECCOMP)
  set(ATTN_SECCOMP_LIBRARY PkgConfig::ATTN_SECCOMP)
else()
  find_library(ATTN_SECCOMP_LIBRARY seccomp)
  find_path(ATTN_SECCOMP_INCLUDE_DIR seccomp.h)
  if(NOT ATTN_SECCOMP_LIBRARY OR NOT ATTN_SECCOMP_INCLUDE_DIR)
    message(FATAL_ERROR "The exercises need libseccomp (Debian: libseccomp-dev), or -DATTN_BUILD_EXERCISES=OFF")
  endif()
endif()
find_program(ATTN_BWRAP_PROGRAM bwrap)
if(NOT ATTN_BWRAP_PROGRAM)
  message(STATUS "bwrap not found (Debian: bubblewrap): the student's programs run with the fallback isolation")
  set(ATTN_BWRAP_PROGRAM "")
endif()
target_compile_definitions(attn_exercises PRIVATE ATTN_BWRAP_PROGRAM="${ATTN_BWRAP_PROGRAM}")
add_library(attn_student_main OBJECT EXCLUDE_FROM_ALL src/exercises/student/student_main.cpp)
target_include_directories(attn_student_main PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/exercises/student)
target_link_libraries(attn_student_main PRIVATE attn)
target_compile_options(attn_student_main PRIVATE ${ATTN_STUDENT_OPTIONS})
target_compile_definitions(attn_student_main PRIVATE XTENSOR_ENABLE_ASSERT)
# One precompiled header for every student's program (the student's file and the exercise's
# serve.cpp): attn/tensor.hpp, which each exercise.hpp includes (xtensor's xarray and xtensor).
# Parsing it is most of compiling a short file: exercise 10's stub took 4.4 s without it and 1.8 s
# with it, its solution 3.3 s and 2.6 s (AMD EPYC Zen 4). Made once, by a target of its own with the
# students' flags (REUSE_FROM one of the exercises would also build that exercise's current student
# file); its folder is on the list of what a student's object may read (`precompiled=` in
# exercise_NN.build). Known limit: a macro the student defines before including xtensor no longer
# reaches xtensor, which the header has already been read without it.
add_library(attn_student_pch OBJECT EXCLUDE_FROM_ALL src/exercises/student/precompiled.cpp)
target_link_libraries(attn_student_pch PRIVATE attn)
target_compile_options(attn_student_pch PRIVATE ${ATTN_STUDENT_OPTIONS})
target_compile_definitions(attn_student_pch PRIVATE XTENSOR_ENABLE_ASSERT)
target_precompile_headers(attn_student_pch PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include/attn/tensor.hpp)
set(ATTN_STUDENT_PCH_DIRECTORY ${CMAKE_BINARY_DIR}/CMakeFiles/attn_student_pch.dir)
foreach(exercise IN LISTS ATTN_EXERCISES)
  # The target's number as attn exercise names it: at least two digits (exercise_07, exercise_12,
  # exercise_100).
  set(number ${ATTN_LESSON_NUMBER_${exercise}})
  if(number LESS 10)
    set(number 0${number})
  endif()
  set(folder ${CMAKE_CURRENT_SOURCE_DIR}/lessons/${exercise}/exercise)
  set(wrapper ${CMAKE_BINARY_DIR}/exercises/exercise_${number}_student.cpp)
  if(NOT EXISTS ${wrapper})
    file(WRITE ${wrapper} "// Generated by `attn exercise`: the student's file. Do not edit.\n#include \"${folder}/stub.cpp\"\n")
  endif()
  # The student's file is compiled as a copy (the wrapper) whose include path holds only what the
  # exercise allows: its exercise.hpp and what the stub throws, copied here, and the library's
  # public headers. Neither the lesson's folder (solution.cpp) nor src/ is on it.
  set(headers ${CMAKE_BINARY_DIR}/exercises/include/${number})
  configure_file(${folder}/exercise.hpp ${headers}/exercise.hpp COPYONLY)
  configure_file(src/exercises/student/not_implemented.hpp ${headers}/not_implemented.hpp COPYONLY)
  configure_file(src/exercises/student/exercise_checker.hpp ${headers}/exercise_checker.hpp COPYONLY)
  add_library(exercise_${number}_student OBJECT EXCLUDE_FROM_ALL ${wrapper})
  # seccomp_first.cpp first: its .preinit_array entry must come before any other of the program.
  add_executable(exercise_${number} EXCLUDE_FROM_ALL src/exercises/student/seccomp_first.cpp ${folder}/serve.cpp)
  target_include_directories(exercise_${number}_student PRIVATE ${headers})
  target_include_directories(exercise_${number} PRIVATE ${folder} ${CMAKE_CURRENT_SOURCE_DIR}/src/exercises/student)
  foreach(target exercise_${number}_student exercise_${number})
    target_compile_options(${target} PRIVATE ${ATTN_STUDENT_OPTIONS})
    target_compile_definitions(${target} PRIVATE XTENSOR_ENABLE_ASSERT)
  endforeach()
  target_link_libraries(exercise_${number}_student PRIVATE attn)
  target_precompile_headers(exercise_${number}_student REUSE_FROM attn_student_pch)
  target_precompile_headers(exercise_${number} REUSE_FROM attn_student_pch)
  # attn_tutor for tutor/compute/named_weights (the weights of exercises 5 and 6 arrive by name); the
  # library for the helpers an exercise allows. Static archives: only what is used is linked.
  target_link_libraries(exercise_${number} PRIVATE exercise_${number}_student attn_student_main attn_tutor)
  if(TARGET PkgConfig::ATTN_SECCOMP)
    target_link_libraries(exercise_${number} PRIVATE PkgConfig::ATTN_SECCOMP)
  else()
    target_include_directories(exercise_${number} PRIVATE ${ATTN_SECCOMP_INCLUDE_DIR})
    target_link_libraries(exercise_${number} PRIVATE ${ATTN_SECCOMP_LIBRARY})
  endif()
  target_link_options(exercise_${number} PRIVATE ${ATTN_STUDENT_LINK_OPTIONS})
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/exercises/exercise_${number}.build
       CONTENT "program=$<TARGET_FILE:exercise_${number}>\nobject=$<TARGET_OBJECTS:exercise_${number}_student>\nwrapper=${wrapper}\nheaders=${headers}\nprecompiled=${ATTN_STUDENT_PCH_DIRECTORY}\n")
  if(ATTN_BUILD_TESTS AND ATTN_BUILD_CLI)
    # The shipped stub fails its exercise, with the not-implemented message; with
    # ATTN_EXERCISE_SOLUTIONS the reference solution passes every case.
    add_test(NAME "exercise ${number} - the shipped stub fails as not implemented"
             COMMAND attn_cli exercise ${number} --file ${folder}/stub.cpp)
    set_tests_properties("exercise ${number} - the shipped stub fails as not implemented" PROPERTIES
      PASS_REGULAR_EXPRESSION "not implemented yet" ENVIRONMENT "ATTN_STATE_DIR=${CMAKE_BINARY_DIR}/exercise-state/stub-${number};NO_COLOR=1;ATTN_LANG=en")
    if(ATTN_EXERCISE_SOLUTIONS)
      add_test(NAME "exercise ${number} - the reference solution passes"
               COMMAND attn_cli exercise ${number} --file ${folder}/solution.cpp)
      set_tests_properties("exercise ${number} - the reference solution passes" PROPERTIES LABELS exercise
        ENVIRONMENT "ATTN_STATE_DIR=${CMAKE_BINARY_DIR}/exercise-state/solution-${number};NO_COLOR=1")
    endif()
  endif()
endforeach()
