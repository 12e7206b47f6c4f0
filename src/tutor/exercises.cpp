#include "tutor/exercises.hpp"

#include "tutor/lesson/lessons.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "tutor/language.hpp"
#include "tutor/lesson/lessons.hpp"

#ifndef ATTN_DEFAULT_SOURCE_DIR
#define ATTN_DEFAULT_SOURCE_DIR "."
#endif

namespace attn::tutor {

namespace fs = std::filesystem;

std::string source_directory() {
    if (const char* environment = std::getenv("ATTN_SOURCE_DIR"); environment && *environment) return environment;
    return ATTN_DEFAULT_SOURCE_DIR;
}

std::vector<ExerciseInfo> list_exercises(const std::string& source) {
    std::vector<ExerciseInfo> exercises;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(fs::path(source) / "lessons", error)) {
        const std::string folder = entry.path().filename().string();
        const auto name = parse_lesson_folder(folder);
        if (!name) continue;
        // A lesson has an exercise when its folder holds exercise/stub.cpp.
        const fs::path exercise = entry.path() / "exercise";
        if (!fs::is_regular_file(exercise / "stub.cpp", error)) continue;
        ExerciseInfo info;
        info.number = name->number;
        info.folder = folder;
        info.stub_path = (exercise / "stub.cpp").string();
        info.hints_path = (exercise / "hints.md").string();
        info.student_path = (exercise / "exercise.cpp").string();
        exercises.push_back(std::move(info));
    }
    if (exercises.empty()) throw InputError(trf("{1}/lessons: no exercises found (no lessons/NN-slug/exercise/stub.cpp)", {source}));
    std::sort(exercises.begin(), exercises.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    return exercises;
}

const ExerciseInfo& find_exercise(const std::vector<ExerciseInfo>& exercises, const std::string& number_or_slug) {
    const bool numeric = !number_or_slug.empty() && number_or_slug.size() <= 3 &&
                         std::all_of(number_or_slug.begin(), number_or_slug.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    for (const auto& exercise : exercises) {
        if (numeric ? exercise.number == std::stoi(number_or_slug) : exercise.folder.substr(3) == number_or_slug) return exercise;
    }
    std::string known;
    for (const auto& exercise : exercises) known += (known.empty() ? "" : ", ") + std::to_string(exercise.number) + " " + exercise.folder.substr(3);
    throw InputError(trf("unknown exercise '{1}'; the exercises are: {2}", {number_or_slug, known}));
}

namespace {

// An exercise's own file (hints, progress) through the one checked reader: a FIFO or a link to
// /dev/urandom is refused naming the file, never read for ever; a missing file is empty.
std::string read_own_file(const std::string& path, const std::string& what) {
    std::error_code error;
    if (!fs::exists(fs::symlink_status(path, error))) return {};
    // Control characters and escape sequences never reach the terminal (attn/printable.hpp).
    return printable_text(read_input_file(path, 1 << 20, what), LineBreaks::keep);
}

}  // namespace

std::vector<Hint> read_hints(const std::string& path) {
    std::istringstream file(read_own_file(path, "the hints file"));
    std::vector<Hint> hints;
    const std::string steps_marker = "<!-- steps:";
    for (std::string line; std::getline(file, line);) {
        if (line.rfind("## Hint", 0) == 0 || line.rfind("## Pista", 0) == 0) {
            hints.emplace_back();
            continue;
        }
        if (hints.empty()) continue;
        if (line.rfind(steps_marker, 0) == 0 && hints.back().text.empty()) {
            std::istringstream names(line.substr(steps_marker.size(), line.find("-->") - steps_marker.size()));
            for (std::string name; std::getline(names, name, ',');) {
                name.erase(0, name.find_first_not_of(' '));
                name.erase(name.find_last_not_of(' ') + 1);
                if (!name.empty()) hints.back().steps.push_back(name);
            }
            continue;
        }
        hints.back().text += line + "\n";
    }
    for (auto& hint : hints) {
        std::string& text = hint.text;
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
        while (!text.empty() && text.front() == '\n') text.erase(text.begin());
    }
    return hints;
}

namespace {

// The stub's text, read with the same limits as any input (a stub is a few kilobytes).
std::string stub_text(const ExerciseInfo& exercise) {
    return read_input_file(exercise.stub_path, 1 << 20, "the exercise's stub");
}

// The error of write_files_atomically, prefixed with what was being written.
[[noreturn]] void rethrow_as(const std::string& what, const InputError& error) {
    throw InputError(what + ": " + error.what());
}

std::string timestamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm local{};
    localtime_r(&now, &local);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H-%M-%S", &local);
    return buffer;
}

}  // namespace

bool ensure_student_file(const ExerciseInfo& exercise) {
    if (fs::exists(exercise.student_path)) return false;
    write_files_atomically({{exercise.student_path, stub_text(exercise)}});
    return true;
}

std::string reset_exercise(const ExerciseInfo& exercise) {
    std::vector<OutputFile> files;
    std::string backup;
    if (fs::exists(exercise.student_path)) {
        backup = exercise.student_path + "." + timestamp() + ".bak";
        for (int n = 2; fs::exists(backup); ++n) backup = exercise.student_path + "." + timestamp() + "-" + std::to_string(n) + ".bak";
        files.push_back({backup, read_input_file(exercise.student_path, 16 << 20, "the student's file")});
    }
    // The backup and the restored stub are written together, all or none: the student's work is
    // never replaced unless its backup is in place.
    files.push_back({exercise.student_path, stub_text(exercise)});
    try {
        write_files_atomically(files);
    } catch (const InputError& error) {
        rethrow_as(trf("cannot restore {1}", {exercise.student_path}), error);
    }
    return backup;
}

std::string progress_path() {
    if (const char* environment = std::getenv("ATTN_STATE_DIR"); environment && *environment) {
        return (fs::path(environment) / "progress").string();
    }
    return (fs::path(source_directory()) / ".attn" / "progress").string();
}

Progress read_progress(const std::string& path) {
    // One line per exercise: "exercise 1 passed shown=1,2" or "exercise 3 failing shown=1,3 numbers=… step=weights".
    // An older file's "hints=2" (a count) means hints 1 and 2.
    Progress progress;
    std::istringstream file(read_own_file(path, "the progress file"));
    for (std::string line; std::getline(file, line);) {
        std::istringstream words(line);
        std::string keyword, status, field;
        int number = 0;
        if (!(words >> keyword >> number >> status) || keyword != "exercise") continue;
        ExerciseProgress entry;
        entry.passed = status == "passed";
        while (words >> field) {
            const auto equals = field.find('=');
            const std::string name = field.substr(0, equals), value = equals == std::string::npos ? "" : field.substr(equals + 1);
            const bool digits = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c)) || c == ',';
            });
            // A hint number is 1 … 64; anything else in a (hand-edited, hostile) file is ignored.
            auto hint_number = [](const std::string& text) {
                const long n = text.size() > 3 ? 0 : std::strtol(text.c_str(), nullptr, 10);
                return n >= 1 && n <= 64 ? int(n) : 0;
            };
            if (name == "hints" && digits) {
                const int count = value.size() > 3 ? 64 : std::max(hint_number(value), 0);
                for (int hint = 1; hint <= count; ++hint) entry.hints_shown.insert(hint);
            } else if (name == "shown" && digits) {
                std::istringstream numbers(value);
                for (std::string hint; std::getline(numbers, hint, ',');) {
                    if (hint_number(hint) > 0) entry.hints_shown.insert(hint_number(hint));
                }
            } else if (name == "numbers") {
                entry.last_numbers = value;
            } else if (name == "step") {
                entry.last_step = value;
            }
        }
        progress[number] = entry;
    }
    return progress;
}

void write_progress(const std::string& path, const Progress& progress) {
    std::error_code created;
    fs::create_directories(fs::path(path).parent_path(), created);
    if (created) throw InputError(trf("cannot write the progress file {1}: {2}", {path, created.message()}));
    std::ostringstream text;
    for (const auto& [number, entry] : progress) {
        std::string shown;
        for (int hint : entry.hints_shown) shown += (shown.empty() ? "" : ",") + std::to_string(hint);
        text << "exercise " << number << " " << (entry.passed ? "passed" : "failing") << " shown=" << shown;
        if (!entry.last_numbers.empty()) text << " numbers=" << entry.last_numbers;
        if (!entry.last_step.empty()) text << " step=" << entry.last_step;
        text << "\n";
    }
    try {
        write_files_atomically({{path, text.str()}});
    } catch (const InputError& error) {
        rethrow_as("cannot write the progress file " + path, error);
    }
}

namespace {

bool about(const Hint& hint, const std::string& step) {
    return hint.steps.empty() || step.empty() || std::find(hint.steps.begin(), hint.steps.end(), step) != hint.steps.end();
}

// The first hint about `step` not shown yet (1-based), or 0.
int next_unshown(const std::vector<Hint>& hints, const ExerciseProgress& entry, const std::string& step) {
    for (std::size_t i = 0; i < hints.size(); ++i) {
        if (about(hints[i], step) && !entry.hints_shown.count(int(i) + 1)) return int(i) + 1;
    }
    return 0;
}

}  // namespace

int hint_after_failure(const std::vector<Hint>& hints, ExerciseProgress& entry, const std::string& failing_step,
                       const std::string& numbers, bool& revealed) {
    revealed = false;
    const bool changed = numbers != entry.last_numbers;
    entry.last_numbers = numbers;
    entry.last_step = failing_step;
    // The hints climb from the first, never past the last one about the failing step: a late
    // step's mistake does not open with the near-answer.
    int ceiling = 0;
    for (std::size_t i = 0; i < hints.size(); ++i) {
        if (!hints[i].steps.empty() && about(hints[i], failing_step)) ceiling = int(i) + 1;
    }
    if (ceiling == 0) ceiling = int(hints.size());
    int next = next_unshown(hints, entry, "");
    if (next > ceiling) next = 0;
    if (changed && next > 0) {
        entry.hints_shown.insert(next);
        revealed = true;
        return next;
    }
    for (int i = ceiling; i > 0; --i) {
        if (entry.hints_shown.count(i)) return i;
    }
    return 0;
}

int next_hint_on_demand(const std::vector<Hint>& hints, ExerciseProgress& entry) {
    int next = next_unshown(hints, entry, entry.last_step);
    if (next == 0) next = next_unshown(hints, entry, "");
    if (next == 0) return hints.empty() ? 0 : int(hints.size());
    entry.hints_shown.insert(next);
    return next;
}

}  // namespace attn::tutor
