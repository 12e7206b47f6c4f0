// tutor/exercises.hpp — the exercises' files: where the student's file is, the hints, the stub to
// reset from, and the progress file; and which hint a run earns.
//
// Why these rules: a student's work is never destroyed. The shipped stub of exercise N lives in
// lessons/NN-slug/exercise/stub.cpp; the student's copy is exercise.cpp beside it, created from
// the stub when missing and not tracked by git. A reset first copies the student's file to a
// timestamped backup beside it. Progress (which exercises pass, which hints were shown, a
// fingerprint of the last wrong numbers) is a small text file replaced atomically.
//
// Hints climb, and follow the failure: each "## Hint N" section of hints.md says which steps it is
// about (a `<!-- steps: weights, context -->` line; none: any step). A hint is used up only when
// the student's numbers change and still fail — never by a compile error, a crash, the untouched
// stub or an unchanged file — and it is the next one about the step that failed.
//
//   auto exercises = list_exercises(source_directory());
//   const ExerciseInfo& e = find_exercise(exercises, "1");
//   ensure_student_file(e);                  // copies the stub on first use
//   std::string backup = reset_exercise(e);  // "lessons/01-dot-product/exercise/exercise.cpp.2026-11-21T07-30-00.bak"
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace attn::tutor {

struct ExerciseInfo {
    int number = 0;
    std::string folder;        // "01-dot-product"
    std::string stub_path;     // lessons/01-dot-product/exercise/stub.cpp
    std::string hints_path;    // lessons/01-dot-product/exercise/hints.md
    std::string student_path;  // lessons/01-dot-product/exercise/exercise.cpp (the student's, gitignored)
};

/// The source tree: $ATTN_SOURCE_DIR, else the folder this build was configured from.
std::string source_directory();

/// Every lessons/NN-slug/exercise/stub.cpp under `source`, sorted by number.
std::vector<ExerciseInfo> list_exercises(const std::string& source);

/// By number ("1", "01") or slug; InputError listing the exercises otherwise.
const ExerciseInfo& find_exercise(const std::vector<ExerciseInfo>& exercises, const std::string& number_or_slug);

struct Hint {
    std::string text;                // Markdown
    std::vector<std::string> steps;  // the steps it is about; empty: any step
};

/// The hints of a hints.md: each "## Hint N" section, in order, with its `<!-- steps: … -->` line.
/// The Spanish edition beside it, hints.es.md, heads its sections "## Pista N".
std::vector<Hint> read_hints(const std::string& path);

/// Copies the stub to the student's path when the student has no file yet; true when it did.
/// Written with attn::write_files_atomically (attn/files.hpp), as every file below.
bool ensure_student_file(const ExerciseInfo& exercise);

/// Backs up the student's file beside it (…/exercise.cpp.YYYY-MM-DDTHH-MM-SS.bak) and restores
/// the stub, both in one all-or-none write: the work is never replaced without its backup. Returns the backup's path ("" when there was no student file to keep). InputError
/// naming the file and the failed call's errno when it cannot.
std::string reset_exercise(const ExerciseInfo& exercise);

struct ExerciseProgress {
    bool passed = false;
    std::set<int> hints_shown;  // hint numbers (1-based) revealed so far
    std::string last_numbers;   // fingerprint of the last failing run's numbers ("" when none)
    std::string last_step;      // the step that failed last
};

/// exercise number → progress.
using Progress = std::map<int, ExerciseProgress>;

/// $ATTN_STATE_DIR/progress, else <source>/.attn/progress.
std::string progress_path();

/// Reads the progress file; a missing file is no progress, a malformed line is ignored.
Progress read_progress(const std::string& path);

/// Writes the progress file atomically; InputError naming the path and the failed call's errno.
void write_progress(const std::string& path, const Progress& progress);

/// The hint to show after a failed run that produced numbers (`numbers`: their fingerprint;
/// `failing_step`: the earliest step that differs). The hints climb from the first: reveals the
/// first hint not shown yet, but never one past the last hint about that step, and only when the
/// numbers changed; otherwise repeats the last one shown up to there. Updates `entry`. Returns
/// the hint's number (1-based), 0 for none; `revealed` says whether it is new.
int hint_after_failure(const std::vector<Hint>& hints, ExerciseProgress& entry, const std::string& failing_step,
                       const std::string& numbers, bool& revealed);

/// `attn exercise N --hint`: reveals the next hint about the step that failed last (or the next
/// one in order), or repeats the last when every one is shown. Returns its number, 0 when there are none.
int next_hint_on_demand(const std::vector<Hint>& hints, ExerciseProgress& entry);

}  // namespace attn::tutor
