#include "student_build.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "sandbox.hpp"

namespace attn::exercises {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void system_error(const std::string& what, int error) { throw InputError(what + ": " + std::strerror(error)); }

// An exclusive lock on a file, held for this object's lifetime.
class BuildLock {
public:
    explicit BuildLock(const std::string& path) {
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) system_error("cannot open the build lock " + path, errno);
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            const int error = errno;
            ::close(fd_);
            system_error("cannot lock " + path, error);
        }
    }
    ~BuildLock() { ::close(fd_); }  // closing releases the lock
    BuildLock(const BuildLock&) = delete;
    BuildLock& operator=(const BuildLock&) = delete;

private:
    int fd_ = -1;
};

// The key=value lines CMake generated for an exercise (program, object, wrapper).
std::map<std::string, std::string> read_build_description(const std::string& path, int number) {
    std::ifstream file(path);
    if (!file) {
        throw InputError("the build folder has no exercise " + std::to_string(number) + " (" + path +
                         " is missing): configure it again, e.g. `./tutor test`");
    }
    std::map<std::string, std::string> values;
    for (std::string line; std::getline(file, line);) {
        const auto equals = line.find('=');
        if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
    }
    return values;
}

std::string read_text(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// Replaces `path` with `contents` (a temporary file renamed into place), unless it already holds them.
void write_if_changed(const std::string& path, const std::string& contents) {
    if (fs::exists(path) && read_text(path) == contents) return;
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        file << contents;
        file.close();
        if (!file) {
            const int error = errno;
            std::error_code ignored;
            fs::remove(temporary, ignored);
            system_error("cannot write " + temporary, error);
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        std::error_code ignored;
        fs::remove(temporary, ignored);
        system_error("cannot replace " + path, error);
    }
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

// gcc's excerpt under a diagnostic: "   12 |     code" and "      |     ^~~~".
bool is_excerpt(const std::string& line) {
    const auto bar = line.find(" | ");
    return bar != std::string::npos && line.find_first_not_of(" 0123456789") == bar + 1;
}

// The files the compiler read to make `object`: its depfile when the generator keeps it
// (Makefiles), else Ninja's record of it (`ninja -t deps`, through cmake --build).
std::vector<std::string> included_files(const BuildPlace& place, const std::string& object) {
    std::string listing;
    if (fs::exists(object + ".d")) {
        listing = read_text(object + ".d");
    } else {
        const std::string relative = fs::path(object).lexically_relative(place.build_directory).string();
        const CapturedRun deps = run_captured({"cmake", "--build", place.build_directory, "--", "-t", "deps", relative}, 60.0);
        if (deps.exit_code != 0) throw InputError("cannot list the files " + object + " was compiled from: " + deps.output);
        listing = deps.output.substr(std::min(deps.output.size(), deps.output.find('\n')));  // after "object: #deps …"
    }
    std::vector<std::string> files;
    std::istringstream words(listing);
    for (std::string word; words >> word;) {
        if (word == "\\" || word.back() == ':') continue;
        fs::path path(word);
        if (path.is_relative()) path = fs::path(place.build_directory) / path;
        files.push_back(fs::absolute(path).lexically_normal().string());
    }
    return files;
}

bool inside(const std::string& path, const std::string& folder) {
    const std::string prefix = fs::absolute(folder).lexically_normal().string();
    return path == prefix || starts_with(path, prefix.back() == '/' ? prefix : prefix + "/");
}

// The first file the student's object was compiled from that lies in the source tree (or the
// build) outside what the exercise allows; "" when there is none.
std::string included_outside(const BuildPlace& place, const std::string& object, const std::vector<std::string>& allowed) {
    if (place.source_directory.empty()) return "";
    for (const auto& file : included_files(place, object)) {
        bool ok = inside(file, place.source_directory + "/include") || !(inside(file, place.source_directory) ||
                                                                          inside(file, place.build_directory));
        for (const auto& folder : allowed) ok = ok || inside(file, folder);
        if (!ok) return fs::path(file).lexically_relative(fs::absolute(place.source_directory).lexically_normal()).string();
    }
    return "";
}

// What CMake wrote about an exercise's target (<build>/exercises/exercise_NN.build).
struct TargetFiles {
    std::string program, object, wrapper, headers;
    std::string precompiled;  // the folder of the students' precompiled header; "" in older builds
};

TargetFiles target_files(const fs::path& folder, const std::string& target, int number) {
    const auto description = read_build_description((folder / (target + ".build")).string(), number);
    auto value = [&description](const char* key) { return description.count(key) ? description.at(key) : std::string(); };
    const TargetFiles files{value("program"), value("object"), value("wrapper"), value("headers"), value("precompiled")};
    if (files.program.empty() || files.object.empty() || files.wrapper.empty() || files.headers.empty()) {
        throw InputError((folder / (target + ".build")).string() + " is incomplete: configure the build folder again");
    }
    return files;
}

// The refusal when the student's object calls a library function the exercise does not allow; "" if none.
std::string forbidden_calls_message(const Exercise& exercise, const std::string& object) {
    const CapturedRun symbols = run_captured({"nm", "-P", "--undefined-only", object}, 60.0);
    if (symbols.exit_code != 0) throw InputError("cannot list the symbols of " + object + " (nm): " + symbols.output);
    const auto forbidden = forbidden_library_calls(symbols.output, exercise.library_allowed);
    if (forbidden.empty()) return "";
    std::string names, allowed;
    for (const auto& name : forbidden) names += (names.empty() ? "" : ", ") + name;
    for (const auto& name : exercise.library_allowed) allowed += (allowed.empty() ? "" : ", ") + name;
    return "Exercise " + std::to_string(exercise.number) + " asks you to write " + exercise.practised +
           " yourself, and your code calls the library's " + names + ". From the library, this exercise lets you use " +
           (allowed.empty() ? std::string("only its types and errors") : allowed + ", its types and errors") + ".";
}

// A new private folder under <build>/exercises/runs/.
std::string new_run_folder(const fs::path& folder) {
    std::error_code error;
    fs::create_directories(folder / "runs", error);
    std::string directory = (folder / "runs" / "run-XXXXXX").string();
    if (::mkdtemp(directory.data()) == nullptr) system_error("cannot create a folder in " + (folder / "runs").string(), errno);
    return directory;
}

}  // namespace

std::string demangle_symbols(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const bool at_symbol = text.compare(i, 2, "_Z") == 0 &&
                               (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'));
        if (!at_symbol) {
            out += text[i++];
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '.')) ++end;
        const std::string symbol = text.substr(i, end - i);
        int status = 0;
        std::unique_ptr<char, void (*)(void*)> readable(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
        out += status == 0 && readable ? readable.get() : symbol;
        i = end;
    }
    return out;
}

std::string compiler_messages(const std::string& log, const std::string& student_file, const std::string& source_directory,
                              std::string& warnings) {
    const std::string source_prefix = source_directory.empty() ? "" : fs::path(source_directory).lexically_normal().string() + "/";
    auto relative = [&](std::string line) {
        for (std::size_t at; !source_prefix.empty() && (at = line.find(source_prefix)) != std::string::npos;) {
            line.erase(at, source_prefix.size());
        }
        return line;
    };
    std::istringstream lines(log);
    std::string out, line;
    std::string* excerpt_target = nullptr;  // where gcc's excerpt lines after a kept diagnostic go
    std::size_t kept = 0, left_out = 0;
    while (std::getline(lines, line)) {
        if (excerpt_target != nullptr && is_excerpt(line)) {
            *excerpt_target += relative(line) + "\n";
            continue;
        }
        excerpt_target = nullptr;
        const bool about_student = line.find(student_file) != std::string::npos;
        const bool warning = line.find(": warning: ") != std::string::npos;
        const bool error = line.find(": error: ") != std::string::npos || line.find(": fatal error: ") != std::string::npos;
        const bool link = line.find("undefined reference to") != std::string::npos ||
                          line.find("multiple definition of") != std::string::npos ||
                          line.find("ld returned") != std::string::npos ||
                          (line.find(": in function ") != std::string::npos && line.find(".o:") != std::string::npos);
        if (about_student && warning) {
            warnings += relative(demangle_symbols(line)) + "\n";
            excerpt_target = &warnings;
            continue;
        }
        const bool note_about_student = about_student && (line.find(": note: ") != std::string::npos ||
                                                          line.find("required from") != std::string::npos ||
                                                          line.find("In function") != std::string::npos ||
                                                          line.find("In member function") != std::string::npos);
        if (!(error || link || note_about_student || (about_student && !warning))) continue;
        if (starts_with(line, "FAILED: ") || starts_with(line, "ninja: ") || starts_with(line, "gmake")) continue;
        if (++kept > 60) {
            ++left_out;
            continue;
        }
        out += relative(demangle_symbols(line)) + "\n";
        excerpt_target = &out;
    }
    if (left_out > 0) out += "… and " + std::to_string(left_out) + " more lines\n";
    if (out.empty()) {
        // Nothing recognisable: the end of the log says most.
        std::vector<std::string> all;
        std::istringstream again(log);
        while (std::getline(again, line)) all.push_back(line);
        for (std::size_t i = all.size() > 30 ? all.size() - 30 : 0; i < all.size(); ++i) out += relative(demangle_symbols(all[i])) + "\n";
    }
    return out;
}

std::string library_name_of_symbol(const std::string& symbol) {
    // Itanium C++ ABI: _Z [T{I,S,V}|GV] [Z] N [r][V][K][R|O] {<length><identifier> [B<length><tag>]} …
    // The names before the first template arguments (I…E) or the end of the nested name (E) are
    // the qualified name; a template's return type, which the demangled text puts first, is
    // mangled after them and never read here.
    std::size_t at = 0;
    auto next_is = [&](const char* text) { return symbol.compare(at, std::strlen(text), text) == 0; };
    if (!next_is("_Z")) return "";
    at += 2;
    if (next_is("TI") || next_is("TS") || next_is("TV") || next_is("GV")) at += 2;  // typeinfo, its name, vtable; a guard
    if (next_is("Z")) ++at;                                                        // a local entity: its function's name
    if (!next_is("N")) return "";
    ++at;
    while (at < symbol.size() && std::strchr("rVKRO", symbol[at]) != nullptr) ++at;
    std::string name;
    while (at < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[at]))) {
        std::size_t length = 0;
        while (at < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[at]))) length = length * 10 + (symbol[at++] - '0');
        if (length == 0 || at + length > symbol.size()) return "";
        name += (name.empty() ? "" : "::") + symbol.substr(at, length);
        at += length;
        while (next_is("B") && at + 1 < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[at + 1]))) {  // abi tag
            ++at;
            std::size_t tag = 0;
            while (at < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[at]))) tag = tag * 10 + (symbol[at++] - '0');
            at += tag;
        }
    }
    return starts_with(name, "attn::") ? name : "";
}

std::vector<std::string> forbidden_library_calls(const std::string& nm_output, const std::vector<std::string>& allowed) {
    // Always allowed: the types' error classes and the shape helpers a student may use in a message.
    std::vector<std::string> permitted = {"attn::InputError", "attn::ShapeError", "attn::shape_string",
                                          "attn::require_nonempty", "attn::exercises::"};
    permitted.insert(permitted.end(), allowed.begin(), allowed.end());
    std::vector<std::string> forbidden;
    std::istringstream lines(nm_output);
    for (std::string line; std::getline(lines, line);) {
        const std::string name = library_name_of_symbol(line.substr(0, line.find(' ')));
        if (name.empty()) continue;
        bool ok = false;
        for (const auto& prefix : permitted) {
            ok = ok || name == prefix || starts_with(name, prefix + "::") || (prefix.back() == ':' && starts_with(name, prefix));
        }
        if (!ok && std::find(forbidden.begin(), forbidden.end(), name) == forbidden.end()) forbidden.push_back(name);
    }
    return forbidden;
}

StudentBuild::StudentBuild(StudentBuild&& other) noexcept
    : status(other.status),
      program(std::move(other.program)),
      messages(std::move(other.messages)),
      warnings(std::move(other.warnings)),
      private_directory_(std::move(other.private_directory_)) {
    other.private_directory_.clear();
}

StudentBuild::~StudentBuild() {
    if (private_directory_.empty()) return;
    std::error_code ignored;
    fs::remove_all(private_directory_, ignored);
}

StudentBuild build_student_program(const BuildPlace& place, const Exercise& exercise, const std::string& student_file) {
    char number_text[8];
    std::snprintf(number_text, sizeof number_text, "%02d", exercise.number);
    const fs::path folder = fs::path(place.build_directory) / "exercises";
    const std::string target = std::string("exercise_") + number_text;
    const TargetFiles files = target_files(folder, target, exercise.number);
    if (student_file.find_first_of("\"\n\\") != std::string::npos) {
        throw InputError("the path " + student_file + " holds a quote, a backslash or a newline: copy the file to a plainer path");
    }

    StudentBuild build;
    BuildLock lock((folder / ".lock").string());
    // A copy, not an #include of the student's file: quoted includes are looked up beside the copy
    // and on the exercise's own include path, never beside the student's file (where solution.cpp
    // is). #line keeps the compiler's messages about the student's file and lines.
    const std::string source = read_input_file(student_file, 16u << 20, "the student's file");
    write_if_changed(files.wrapper, "#line 1 \"" + student_file + "\"\n" + source + "\n");
    const CapturedRun built = run_captured({"cmake", "--build", place.build_directory, "--target", target}, 600.0);
    {
        std::ofstream log((folder / (target + ".log")).string(), std::ios::trunc);
        log << built.output;
    }
    const std::string messages = compiler_messages(built.output, student_file, place.source_directory, build.warnings);
    if (built.timed_out || built.exit_code != 0) {
        build.status = StudentBuild::Status::compile_error;
        build.messages = built.timed_out ? "the build did not finish within 10 minutes\n" : messages;
        return build;
    }
    std::vector<std::string> allowed{files.wrapper, files.headers};
    if (!files.precompiled.empty()) allowed.push_back(files.precompiled);
    const std::string outside = included_outside(place, files.object, allowed);
    if (!outside.empty()) {
        build.status = StudentBuild::Status::refused;
        build.messages = "Your file includes " + outside + ", which exercise " + std::to_string(exercise.number) +
                         " does not allow: only the standard library, xtensor, the library's public headers (attn/…) and "
                         "the exercise's exercise.hpp.";
        return build;
    }
    if (std::string refusal = forbidden_calls_message(exercise, files.object); !refusal.empty()) {
        build.status = StudentBuild::Status::refused;
        build.messages = std::move(refusal);
        return build;
    }
    // A private copy: the next build (another run, another test) may replace the program meanwhile.
    build.private_directory_ = new_run_folder(folder);
    build.program = (fs::path(build.private_directory_) / target).string();
    std::error_code error;
    fs::copy_file(files.program, build.program, error);
    if (error) throw InputError("cannot copy " + files.program + " to " + build.program + ": " + error.message());
    build.status = StudentBuild::Status::built;
    return build;
}

}  // namespace attn::exercises
