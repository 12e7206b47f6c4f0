// tutor/exercises.hpp — the exercises: where the student's files are, their hints, the stubs to
// reset from, and the progress file.
//
// Why these rules: a student's work is never destroyed. The shipped stub of exercise N lives in
// exercises/NN-slug/stub.cpp; the student's copy is lessons/NN-slug/exercise.cpp, created from
// the stub when missing and not tracked by git. A reset first copies the student's file to a
// timestamped backup beside it. Progress (which exercises pass, how many hints were shown) is a
// small text file replaced atomically (written to a temporary file, then renamed).
//
//   auto exercises = list_exercises(source_directory());
//   const ExerciseInfo& e = find_exercise(exercises, "1");
//   ensure_student_file(e);                  // copies the stub on first use
//   std::string backup = reset_exercise(e);  // "lessons/01-dot-product/exercise.cpp.2026-11-21T07-30-00.bak"
#pragma once

#include <map>
#include <string>
#include <vector>

namespace attn::tutor {

struct ExerciseInfo {
    int number = 0;
    std::string folder;        // "01-dot-product"
    std::string stub_path;     // exercises/01-dot-product/stub.cpp
    std::string hints_path;    // exercises/01-dot-product/hints.md
    std::string student_path;  // lessons/01-dot-product/exercise.cpp
    std::string target;        // the CMake target that builds the student's checks: "exercise_01"
};

/// The source tree: $ATTN_SOURCE_DIR, else the folder this build was configured from.
std::string source_directory();

/// Every exercises/NN-slug/stub.cpp under `source`, sorted by number.
std::vector<ExerciseInfo> list_exercises(const std::string& source);

/// By number ("1", "01") or slug; InputError listing the exercises otherwise.
const ExerciseInfo& find_exercise(const std::vector<ExerciseInfo>& exercises, const std::string& number_or_slug);

/// The hints of a hints.md: the text of each "## Hint N" section, in order.
std::vector<std::string> read_hints(const std::string& path);

/// Copies the stub to the student's path when the student has no file yet; true when it did.
bool ensure_student_file(const ExerciseInfo& exercise);

/// Backs up the student's file beside it (…/exercise.cpp.YYYY-MM-DDTHH-MM-SS.bak), then restores
/// the stub. Returns the backup's path ("" when there was no student file to keep).
std::string reset_exercise(const ExerciseInfo& exercise);

struct ExerciseProgress {
    bool passed = false;
    int hints_shown = 0;
};

/// exercise number → progress.
using Progress = std::map<int, ExerciseProgress>;

/// $ATTN_STATE_DIR/progress, else <source>/.attn/progress.
std::string progress_path();

/// Reads the progress file; a missing file is no progress, a malformed line is ignored.
Progress read_progress(const std::string& path);

/// Writes the progress file atomically; InputError naming the path when it cannot.
void write_progress(const std::string& path, const Progress& progress);

}  // namespace attn::tutor
