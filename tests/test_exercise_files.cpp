// tutor/exercises.hpp: hints with the steps they are about, which hint a run earns, the progress
// file (also an older one's), and errors that name the failed call's errno, never "Success".
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "support/temp_dir.hpp"
#include "attn/files.hpp"
#include "tutor/exercises.hpp"

namespace {

using attn::testing::TempDir;
using attn::testing::write_file;
namespace tutor = attn::tutor;

const char* hints_file = "# Hints\n\n## Hint 1\n<!-- steps: scores -->\n\nAbout scores.\n\n## Hint 2\n<!-- steps: weights, context -->\n"
                         "About weights.\n\n## Hint 3\n\nAbout anything.\n";

std::vector<tutor::Hint> sample_hints(const TempDir& dir) {
    write_file(dir.path() + "/hints.md", hints_file);
    return tutor::read_hints(dir.path() + "/hints.md");
}

}  // namespace

TEST_CASE("hints - each section's steps are read, and its text keeps no steps line", "[exercises][hints]") {
    TempDir dir;
    const auto hints = sample_hints(dir);
    REQUIRE(hints.size() == 3);
    CHECK(hints[0].steps == std::vector<std::string>{"scores"});
    CHECK(hints[0].text == "About scores.");
    CHECK(hints[1].steps == std::vector<std::string>{"weights", "context"});
    CHECK(hints[2].steps.empty());
    // Every shipped hints.md says which steps its hints are about.
    for (const auto& exercise : tutor::list_exercises(ATTN_SOURCE_DIR)) {
        INFO(exercise.hints_path);
        const auto shipped = tutor::read_hints(exercise.hints_path);
        CHECK(shipped.size() == 3);
        for (const auto& hint : shipped) CHECK_FALSE(hint.steps.empty());
    }
}

TEST_CASE("hints - a hint is used up only when the numbers change, and climbs from the first up to the failing step's",
          "[exercises][hints]") {
    TempDir dir;
    const auto hints = sample_hints(dir);
    tutor::ExerciseProgress entry;
    bool revealed = false;
    CHECK(tutor::hint_after_failure(hints, entry, "weights", "aaaa", revealed) == 1);  // from the first, though it is about scores
    CHECK(revealed);
    CHECK(tutor::hint_after_failure(hints, entry, "weights", "aaaa", revealed) == 1);  // unchanged: repeated
    CHECK_FALSE(revealed);
    CHECK(tutor::hint_after_failure(hints, entry, "weights", "bbbb", revealed) == 2);  // changed: the next, the one about weights
    CHECK(revealed);
    CHECK(tutor::hint_after_failure(hints, entry, "weights", "cccc", revealed) == 2);  // never past it: the last again
    CHECK_FALSE(revealed);
    CHECK(entry.hints_shown == std::set<int>{1, 2});
    CHECK(tutor::next_hint_on_demand(hints, entry) == 3);  // --hint goes on
    CHECK(tutor::next_hint_on_demand(hints, entry) == 3);  // all shown: the last
    CHECK(entry.hints_shown == std::set<int>{1, 2, 3});
}

TEST_CASE("progress - written and read back; an older file's hint count is read as hints 1 to N", "[exercises][progress]") {
    TempDir dir;
    const std::string path = dir.path() + "/state/progress";
    tutor::Progress progress;
    progress[1].passed = true;
    progress[3].hints_shown = {1, 3};
    progress[3].last_numbers = "0123456789abcdef";
    progress[3].last_step = "weights";
    tutor::write_progress(path, progress);
    const tutor::Progress back = tutor::read_progress(path);
    CHECK(back.at(1).passed);
    CHECK(back.at(3).hints_shown == std::set<int>{1, 3});
    CHECK(back.at(3).last_numbers == "0123456789abcdef");
    CHECK(back.at(3).last_step == "weights");
    write_file(path, "exercise 2 failing hints=2\nexercise 4 passed hints=99999999999999999999\n"
                     "exercise 5 failing shown=3,99999999999999999999,0,65\ngarbage line\n");
    const tutor::Progress old = tutor::read_progress(path);
    CHECK(old.at(2).hints_shown == std::set<int>{1, 2});
    CHECK(old.at(4).hints_shown.size() == 64);  // a hostile count is capped, not looped over
    CHECK(old.at(5).hints_shown == std::set<int>{3});
    CHECK(old.size() == 3);
}

TEST_CASE("progress and reset - a failed system call is named with its own errno", "[exercises][progress]") {
    TempDir dir;
    // The progress file's place is taken by a folder: the atomic writer refuses to replace it.
    std::filesystem::create_directories(dir.path() + "/state/progress/inside");
    try {
        tutor::write_progress(dir.path() + "/state/progress", {});
        FAIL("no error");
    } catch (const std::exception& e) {
        CHECK_THAT(e.what(), Catch::Contains("cannot write the progress file") && Catch::Contains("it is a folder") &&
                                 !Catch::Contains("Success"));
    }
    // The student's file's place is taken by a folder with something in it: the restore fails.
    tutor::ExerciseInfo info;
    info.number = 1;
    info.stub_path = ATTN_SOURCE_DIR "/lessons/01-dot-product/exercise/stub.cpp";
    info.student_path = dir.path() + "/lesson/exercise.cpp";
    std::filesystem::create_directories(info.student_path + "/inside");
    try {
        tutor::reset_exercise(info);
        FAIL("no error");
    } catch (const std::exception& e) {
        CHECK_THAT(e.what(), Catch::Contains(info.student_path) && !Catch::Contains("Success"));
    }
}

TEST_CASE("progress - an immutable progress folder names the real error (when chattr works here)", "[exercises][progress]") {
    TempDir dir;
    const std::string folder = dir.path() + "/state";
    std::filesystem::create_directories(folder);
    if (std::system(("chattr +i '" + folder + "' 2>/dev/null").c_str()) != 0) {
        WARN("chattr +i is not supported on this file system: nothing to check");
        return;
    }
    try {
        tutor::write_progress(folder + "/progress", {});
        FAIL("no error");
    } catch (const std::exception& e) {
        CHECK_THAT(e.what(), Catch::Contains("Operation not permitted") && !Catch::Contains("Success"));
    }
    // The same for the student's lesson folder, where reset keeps its backup and restores the stub.
    tutor::ExerciseInfo info;
    info.stub_path = ATTN_SOURCE_DIR "/lessons/01-dot-product/exercise/stub.cpp";
    info.student_path = folder + "/exercise.cpp";
    try {
        tutor::reset_exercise(info);
        FAIL("no error");
    } catch (const std::exception& e) {
        CHECK_THAT(e.what(), Catch::Contains("Operation not permitted") && !Catch::Contains("Success"));
    }
    (void)!std::system(("chattr -i '" + folder + "'").c_str());
}

TEST_CASE("progress and reset - written through the one atomic writer: a planted link at an old temporary name is never followed",
          "[exercises][progress]") {
    TempDir dir;
    const std::string folder = dir.path() + "/state", outside = dir.path() + "/outside.txt";
    std::filesystem::create_directories(folder);
    write_file(outside, "untouched\n");
    auto contents = [](const std::string& path) {
        std::ifstream file(path);
        std::stringstream text;
        text << file.rdbuf();
        return text.str();
    };
    // The names the old writers used: PATH.tmp-PID. A link there must change nothing outside.
    const std::string progress = folder + "/progress";
    std::filesystem::create_symlink(outside, progress + ".tmp-" + std::to_string(::getpid()));
    tutor::Progress written;
    written[2].passed = true;
    tutor::write_progress(progress, written);
    CHECK(tutor::read_progress(progress).at(2).passed);
    CHECK(contents(outside) == "untouched\n");
    CHECK_FALSE(std::filesystem::is_symlink(progress));

    tutor::ExerciseInfo info;
    info.stub_path = ATTN_SOURCE_DIR "/lessons/01-dot-product/exercise/stub.cpp";
    info.student_path = folder + "/exercise.cpp";
    std::filesystem::create_symlink(outside, info.student_path + ".tmp-" + std::to_string(::getpid()));
    CHECK(tutor::ensure_student_file(info));
    CHECK(contents(info.student_path) == contents(info.stub_path));
    write_file(info.student_path, "my work\n");
    const std::string backup = tutor::reset_exercise(info);
    CHECK(contents(backup) == "my work\n");
    CHECK(contents(info.student_path) == contents(info.stub_path));
    CHECK(contents(outside) == "untouched\n");
    // Nothing but the outputs and the planted links is left in the folder: no temporaries.
    std::size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        ++entries;
        CHECK_FALSE(attn::is_staging_name(entry.path().filename().string()));
    }
    CHECK(entries == 5);  // progress, exercise.cpp, its backup and the two planted links
}
