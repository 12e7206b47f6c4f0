#include "tutor/exercises.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "attn/error.hpp"

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
    for (const auto& entry : fs::directory_iterator(fs::path(source) / "exercises", error)) {
        const std::string folder = entry.path().filename().string();
        if (folder.size() < 4 || !std::isdigit(static_cast<unsigned char>(folder[0])) ||
            !std::isdigit(static_cast<unsigned char>(folder[1])) || folder[2] != '-') {
            continue;
        }
        if (!fs::is_regular_file(entry.path() / "stub.cpp", error)) continue;
        ExerciseInfo info;
        info.number = std::stoi(folder.substr(0, 2));
        info.folder = folder;
        info.stub_path = (entry.path() / "stub.cpp").string();
        info.hints_path = (entry.path() / "hints.md").string();
        info.student_path = (fs::path(source) / "lessons" / folder / "exercise.cpp").string();
        info.target = "exercise_" + folder.substr(0, 2);
        exercises.push_back(std::move(info));
    }
    if (exercises.empty()) throw InputError(source + "/exercises: no exercises found");
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
    throw InputError("unknown exercise '" + number_or_slug + "'; the exercises are: " + known);
}

std::vector<std::string> read_hints(const std::string& path) {
    std::ifstream file(path);
    std::vector<std::string> hints;
    for (std::string line; std::getline(file, line);) {
        if (line.rfind("## Hint", 0) == 0) {
            hints.emplace_back();
            continue;
        }
        if (!hints.empty()) hints.back() += line + "\n";
    }
    for (auto& hint : hints) {
        while (!hint.empty() && (hint.back() == '\n' || hint.back() == ' ')) hint.pop_back();
        while (!hint.empty() && hint.front() == '\n') hint.erase(hint.begin());
    }
    return hints;
}

namespace {

void copy_file(const std::string& from, const std::string& to) {
    std::error_code error;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, error);
    if (error) throw InputError("cannot copy " + from + " to " + to + ": " + error.message());
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
    copy_file(exercise.stub_path, exercise.student_path);
    return true;
}

std::string reset_exercise(const ExerciseInfo& exercise) {
    std::string backup;
    if (fs::exists(exercise.student_path)) {
        backup = exercise.student_path + "." + timestamp() + ".bak";
        for (int n = 2; fs::exists(backup); ++n) backup = exercise.student_path + "." + timestamp() + "-" + std::to_string(n) + ".bak";
        copy_file(exercise.student_path, backup);
    }
    // The backup is complete before the student's file is touched.
    const std::string temporary = exercise.student_path + ".tmp-" + std::to_string(::getpid());
    copy_file(exercise.stub_path, temporary);
    std::error_code error;
    fs::rename(temporary, exercise.student_path, error);
    if (error) {
        fs::remove(temporary, error);
        throw InputError("cannot restore " + exercise.student_path + ": " + error.message());
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
    // One line per exercise: "exercise 1 passed hints=2" or "exercise 3 failing hints=1".
    Progress progress;
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) {
        std::istringstream words(line);
        std::string keyword, status, hints;
        int number = 0;
        if (!(words >> keyword >> number >> status >> hints) || keyword != "exercise" || hints.rfind("hints=", 0) != 0) continue;
        ExerciseProgress entry;
        entry.passed = status == "passed";
        entry.hints_shown = std::atoi(hints.c_str() + 6);
        progress[number] = entry;
    }
    return progress;
}

void write_progress(const std::string& path, const Progress& progress) {
    std::error_code error;
    fs::create_directories(fs::path(path).parent_path(), error);
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream file(temporary, std::ios::trunc);
        for (const auto& [number, entry] : progress) {
            file << "exercise " << number << " " << (entry.passed ? "passed" : "failing") << " hints=" << entry.hints_shown << "\n";
        }
        file.close();
        if (!file) {
            fs::remove(temporary, error);
            throw InputError("cannot write the progress file " + path);
        }
    }
    fs::rename(temporary, path, error);
    if (error) {
        fs::remove(temporary, error);
        throw InputError("cannot write the progress file " + path + ": " + error.message());
    }
}

}  // namespace attn::tutor
