// src/exercises/student_build.hpp — build the student's program, and refuse the library's answer.
//
// Why through the project's own CMake build: the student's file is compiled with exactly the
// flags, headers and libraries of the tree, including the checks a beginner needs — xtensor's
// bounds checks (XTENSOR_ENABLE_ASSERT: `x(b, 5)` on 5 positions throws "index 5 is out of bounds
// for axis 1 with size 5") and AddressSanitizer where the compiler has it. The target compiles a
// small generated file in the build folder that #includes the student's file, so any file can be
// checked (`--file`) without touching the lesson's. One lock file serialises these builds: two
// `attn exercise` runs (or the test suite's) never run the build tool at once in one folder.
//
// Why the symbol check: the student's program links the library for the helpers an exercise allows
// (lessons/05-multi-head-attention's exercise may call attn::linear), so "you may not call
// attn::dot_attention" is checked on the student's compiled object: every library function it
// refers to must be on the exercise's list. This is exactly what the linker resolves — a direct
// call, a function pointer or an alias all show — and it does not depend on inlining or on how the
// checker computes its expected values.
//
//   StudentBuild build = build_student_program(place, exercise, "lessons/01-dot-product/exercise/exercise.cpp");
//   if (build.status == StudentBuild::Status::built) run(build.program);
#pragma once

#include <string>
#include <vector>

#include "exercise_case.hpp"

namespace attn::exercises {

struct BuildPlace {
    std::string build_directory;   // the configured CMake build ("build")
    std::string source_directory;  // the source tree (paths in messages are shown relative to it)
};

struct StudentBuild {
    enum class Status { built, compile_error, refused };
    Status status = Status::compile_error;
    std::string program;   // built: a private copy of the program, removed with this object
    std::string messages;  // compile_error: the lines about the student's file and the link errors; refused: why
    std::string warnings;  // the compiler's warnings about the student's file, when it was compiled

    StudentBuild() = default;
    StudentBuild(StudentBuild&& other) noexcept;
    StudentBuild& operator=(StudentBuild&&) = delete;
    StudentBuild(const StudentBuild&) = delete;
    ~StudentBuild();

private:
    friend StudentBuild build_student_program(const BuildPlace&, const Exercise&, const std::string&);
    std::string private_directory_;
};

/// Builds exercise `exercise.number`'s program from `student_file`. InputError when the build
/// folder has no such exercise target, when a system call fails (its errno named), or when the
/// build tool cannot run.
StudentBuild build_student_program(const BuildPlace& place, const Exercise& exercise, const std::string& student_file);

/// From a build log: the compiler's lines about `student_file` (with gcc's source excerpt under
/// each), every error and link error — undefined references and multiple definitions, their
/// symbols demangled — with paths under `source_directory` made relative. `warnings` receives the
/// warnings about the student's file.
std::string compiler_messages(const std::string& log, const std::string& student_file, const std::string& source_directory,
                              std::string& warnings);

/// `text` with every mangled C++ symbol (_Z…) replaced by its readable name.
std::string demangle_symbols(const std::string& text);

/// The qualified name a mangled symbol names in namespace attn ("attn::dot_attention" for
/// `attn::Tensor attn::dot_attention<double>(…)` too), read from the mangled form; "" outside attn.
std::string library_name_of_symbol(const std::string& symbol);

/// The library functions (qualified names, "attn::dot_attention") among the undefined symbols
/// nm printed (`nm -P --undefined-only`) that `allowed` does not list.
std::vector<std::string> forbidden_library_calls(const std::string& nm_output, const std::vector<std::string>& allowed);

}  // namespace attn::exercises
