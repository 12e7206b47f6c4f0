// Writing a set of files all or none (attn/files.hpp): every target checked, every file staged
// beside its target, then moved into place, every move undone when one fails.
#include "attn/files.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <limits.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "file_kinds.hpp"

namespace attn {

namespace fs = std::filesystem;
using detail::error_text;
using detail::kind_of;

namespace {

const std::string staging_marker = ".attn-tmp.";

// Closes a descriptor at scope exit.
struct Descriptor {
    int value = -1;
    ~Descriptor() {
        if (value >= 0) ::close(value);
    }
};

// 12 hexadecimal digits from the kernel's random source: a name nobody can plant a link at in
// advance. (O_EXCL | O_NOFOLLOW makes the open fail even if somebody guessed it.)
std::string random_suffix() {
    unsigned char bytes[6] = {};
    std::size_t filled = 0;
    while (filled < sizeof bytes) {
        const ssize_t got = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            break;
        }
        filled += static_cast<std::size_t>(got);
    }
    if (filled < sizeof bytes) {
        // No getrandom (a very old kernel): mix the clock in; O_EXCL still refuses a planted name.
        const auto ticks = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
        for (std::size_t i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<unsigned char>(ticks >> (8 * i));
    }
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (unsigned char byte : bytes) {
        text += digits[byte >> 4];
        text += digits[byte & 15];
    }
    return text;
}

// The staging name of `filename`: ".NAME.attn-tmp.PID.RANDOM", with NAME shortened so that the
// whole stays within the 255 bytes a file name may have.
std::string staging_name(const std::string& filename) {
    std::size_t keep = std::min<std::size_t>(filename.size(), 160);
    while (keep > 0 && keep < filename.size() && (static_cast<unsigned char>(filename[keep]) & 0xC0) == 0x80) --keep;
    return "." + filename.substr(0, keep) + staging_marker + std::to_string(::getpid()) + "." + random_suffix();
}

// The PID in a staging name, or -1 when the name is not one.
long staging_pid(const std::string& filename) {
    if (filename.size() < 2 || filename[0] != '.') return -1;
    const std::size_t marker = filename.rfind(staging_marker);
    if (marker == std::string::npos || marker == 0) return -1;
    const std::string rest = filename.substr(marker + staging_marker.size());  // "PID.RANDOM"
    const std::size_t dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || dot > 10) return -1;
    const std::string pid = rest.substr(0, dot), random = rest.substr(dot + 1);
    if (pid.find_first_not_of("0123456789") != std::string::npos) return -1;
    if (random.size() != 12 || random.find_first_not_of("0123456789abcdef") != std::string::npos) return -1;
    return std::stol(pid);
}

bool process_exists(long pid) {
    if (pid <= 0 || pid > INT_MAX) return false;
    // EPERM: it exists but belongs to somebody else.
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

std::string folder_of(const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

// Writes all of `contents` to a new file at `temporary`; returns 0 or the errno that stopped it.
int stage(const std::string& temporary, const std::string& contents) {
    Descriptor file;
    file.value = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (file.value < 0) return errno;
    std::size_t done = 0;
    while (done < contents.size()) {
        const ssize_t wrote = ::write(file.value, contents.data() + done, contents.size() - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        done += static_cast<std::size_t>(wrote);
    }
    if (::fsync(file.value) != 0) return errno;
    const int descriptor = file.value;
    file.value = -1;
    if (::close(descriptor) != 0) return errno;
    return 0;
}

// How one staged file was moved into place, so that it can be undone.
enum class Placed { not_yet, created, exchanged, replaced };

// Moves `temporary` onto `target`. When the target exists the two are exchanged (the old file
// keeps living under the temporary name until the end, so that a later failure can put it back);
// file systems without RENAME_EXCHANGE get a plain rename, which cannot be undone.
Placed place(const std::string& temporary, const std::string& target, int& error) {
    struct stat status {};
    const bool exists = ::lstat(target.c_str(), &status) == 0;
    const unsigned flags = exists ? RENAME_EXCHANGE : RENAME_NOREPLACE;
    if (::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, target.c_str(), flags) == 0) {
        return exists ? Placed::exchanged : Placed::created;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EEXIST && errno != ENOENT) {
        error = errno;
        return Placed::not_yet;
    }
    if (::rename(temporary.c_str(), target.c_str()) == 0) return exists ? Placed::replaced : Placed::created;
    error = errno;
    return Placed::not_yet;
}

// An exclusive lock on each folder for as long as the object lives; the folders are locked in
// one order (their real paths, sorted), so two runs cannot each hold one and wait for the other.
class FolderLocks {
public:
    explicit FolderLocks(std::vector<std::string> folders) {
        for (auto& folder : folders) {
            char* real = ::realpath(folder.c_str(), nullptr);
            if (real != nullptr) folder = real;
            std::free(real);
        }
        std::sort(folders.begin(), folders.end());
        folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
        for (const auto& folder : folders) lock(folder);
    }
    ~FolderLocks() {
        for (const int descriptor : held_) ::close(descriptor);  // closing releases the lock
    }
    FolderLocks(const FolderLocks&) = delete;
    FolderLocks& operator=(const FolderLocks&) = delete;

private:
    // Waits while another run holds the folder: it holds it only for the time it takes to
    // stage and move its own set.
    void lock(const std::string& folder) {
        const int descriptor = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (descriptor < 0) return;  // staging there fails next, with its own message
        held_.push_back(descriptor);
        while (::flock(descriptor, LOCK_EX) != 0 && errno == EINTR) {
        }
        // Any other failure: a file system without locks; the set is still written all or none.
    }

    std::vector<int> held_;
};

// The same file: one device, one inode (links and other spellings of a path count).
bool same_file(const std::string& a, const std::string& b) {
    struct stat first {}, second {};
    return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 && first.st_dev == second.st_dev &&
           first.st_ino == second.st_ino;
}

void sync_folder(const std::string& folder) {
    Descriptor directory;
    directory.value = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory.value >= 0) ::fsync(directory.value);
}

}  // namespace

bool is_staging_name(const std::string& filename) { return staging_pid(filename) >= 0; }

std::size_t remove_stale_staging_files(const std::string& folder) {
    DIR* directory = ::opendir(folder.c_str());
    if (directory == nullptr) return 0;
    std::vector<std::string> stale;
    const long own = ::getpid();
    while (const dirent* entry = ::readdir(directory)) {
        const std::string name = entry->d_name;
        const long pid = staging_pid(name);
        if (pid < 0 || pid == own || process_exists(pid)) continue;
        stale.push_back(name);
    }
    ::closedir(directory);
    std::size_t removed = 0;
    // unlink removes a link itself, never what it points to; a folder of that name stays.
    for (const auto& name : stale) removed += ::unlink((fs::path(folder) / name).c_str()) == 0;
    return removed;
}

void prepare_output_folder(const std::string& folder) {
    const std::string shown = printable_text(folder);
    struct stat status {};
    if (::lstat(folder.c_str(), &status) == 0 && S_ISLNK(status.st_mode) && ::stat(folder.c_str(), &status) != 0) {
        std::error_code ignored;
        const std::string target = printable_text(fs::read_symlink(folder, ignored).string());
        throw InputError("cannot use the output folder " + shown + ": it is a symbolic link to " + target +
                         ", which does not exist; create " + target + " or remove the link");
    }
    std::error_code error;
    if (fs::exists(folder, error) && !fs::is_directory(folder, error)) {
        throw InputError("cannot use the output folder " + shown + ": a file of that name is in the way");
    }
    // The error of the call that failed (EROFS from mkdir on a read-only mount), never the
    // "No such file or directory" of a later look.
    std::error_code created;
    fs::create_directories(folder, created);
    if (!fs::is_directory(folder, error)) {
        throw InputError("cannot create the output folder " + shown + ": " +
                         (created ? created.message() : "a file of that name is in the way"));
    }
}

namespace {

// What a message calls an output or an input: "what path", or the path alone.
std::string described(const std::string& what, const std::string& path) {
    return printable_text(what.empty() ? path : what + " " + path);
}

// One target checked before anything is written: not an input, its folder a folder, itself a
// regular file or nothing, a file name. Returns its identity (the real folder and the name).
std::string checked_target(const OutputFile& file, const std::vector<InputPath>& inputs) {
    const std::string shown = printable_text(file.path);
    for (const auto& input : inputs) {
        if (!same_file(file.path, input.path)) continue;
        throw InputError("cannot write " + described(file.what, file.path) + ": it is the input " +
                         described(input.what, input.path) +
                         " (the same file); writing it would destroy the input, so nothing was written: give the output another name");
    }
    const std::string folder = folder_of(file.path);
    struct stat status {};
    if (::stat(folder.c_str(), &status) != 0) {
        throw InputError("cannot write " + described(file.what, file.path) + ": the folder " + printable_text(folder) +
                         " does not exist");
    }
    if (!S_ISDIR(status.st_mode)) {
        throw InputError("cannot write " + shown + ": " + printable_text(folder) + " is not a folder");
    }
    // Only a regular file (or a link to one, or nothing) may be replaced: renaming over
    // /dev/null or a FIFO would swap the device or pipe itself out of its folder.
    if (::stat(file.path.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
        throw InputError("cannot write " + shown + ": it is " + kind_of(status.st_mode) +
                         (S_ISDIR(status.st_mode) ? "" : ", not a file"));
    }
    const std::string name = fs::path(file.path).filename().string();
    if (name.empty() || name == "." || name == "..") throw InputError("cannot write " + shown + ": it names a folder, not a file");
    char* real = ::realpath(folder.c_str(), nullptr);
    const std::string identity = std::string(real != nullptr ? real : folder.c_str()) + "/" + name;
    std::free(real);
    return identity;
}

// Every target checked, and no file named twice (by two spellings of one path either).
void check_targets(const std::vector<OutputFile>& files, const std::vector<InputPath>& inputs) {
    std::vector<std::string> identities;
    for (const auto& file : files) {
        const std::string identity = checked_target(file, inputs);
        for (std::size_t i = 0; i < identities.size(); ++i) {
            if (identities[i] == identity) {
                throw InputError("cannot write " + printable_text(file.path) + " and " + printable_text(files[i].path) +
                                 ": they are the same file; give each output its own name");
            }
        }
        identities.push_back(identity);
    }
}

std::vector<std::string> folders_of(const std::vector<OutputFile>& files) {
    std::vector<std::string> folders;
    for (const auto& file : files) {
        const std::string folder = folder_of(file.path);
        if (std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
    }
    return folders;
}

void remove_files(const std::vector<std::string>& paths) {
    for (const auto& path : paths) ::unlink(path.c_str());
}

// Every file written completely under a staging name beside its target; the staged names, in
// the order of `files`. On a failure, what was staged is removed and nothing else was touched.
std::vector<std::string> stage_all(const std::vector<OutputFile>& files) {
    std::vector<std::string> temporaries;
    for (const auto& file : files) {
        int error = EEXIST;
        std::string temporary;
        for (int attempt = 0; attempt < 8 && error == EEXIST; ++attempt) {
            temporary = (fs::path(folder_of(file.path)) / staging_name(fs::path(file.path).filename().string())).string();
            error = stage(temporary, file.contents);
        }
        if (error != 0) {
            ::unlink(temporary.c_str());  // a partial file of ours (never a planted one: O_EXCL refused those)
            remove_files(temporaries);
            throw InputError("cannot write " + printable_text(file.path) + ": " + error_text(error) +
                             " (nothing was written)");
        }
        temporaries.push_back(temporary);
    }
    return temporaries;
}

// The moves of files [0, failed) undone; the targets that could not be restored (replaced by a
// plain rename, where the file system cannot swap), for the message.
std::string undo_moves(const std::vector<OutputFile>& files, const std::vector<std::string>& temporaries,
                       const std::vector<Placed>& placed, std::size_t failed) {
    std::string lost;
    for (std::size_t j = failed; j-- > 0;) {
        if (placed[j] == Placed::exchanged) {
            ::renameat2(AT_FDCWD, temporaries[j].c_str(), AT_FDCWD, files[j].path.c_str(), RENAME_EXCHANGE);
        } else if (placed[j] == Placed::created) {
            ::rename(files[j].path.c_str(), temporaries[j].c_str());
        } else if (placed[j] == Placed::replaced) {
            lost += (lost.empty() ? "" : ", ") + printable_text(files[j].path);
        }
    }
    return lost;
}

// The staged files moved into place; when one move fails, every earlier one is undone.
void place_all(const std::vector<OutputFile>& files, const std::vector<std::string>& temporaries) {
    std::vector<Placed> placed(files.size(), Placed::not_yet);
    for (std::size_t i = 0; i < files.size(); ++i) {
        int error = 0;
        placed[i] = place(temporaries[i], files[i].path, error);
        if (placed[i] != Placed::not_yet) continue;
        const std::string lost = undo_moves(files, temporaries, placed, i);
        remove_files(temporaries);
        throw InputError("cannot write " + printable_text(files[i].path) + ": " + error_text(error) +
                         (lost.empty() ? " (nothing was written)"
                                       : " (this file system cannot swap files: " + lost + " already replaced)"));
    }
}

}  // namespace

void check_output_files(const std::vector<OutputFile>& files, const std::vector<InputPath>& inputs) {
    check_targets(files, inputs);
}

void write_files_atomically(const std::vector<OutputFile>& files, const std::vector<InputPath>& inputs) {
    check_targets(files, inputs);  // every target, before anything is written
    const std::vector<std::string> folders = folders_of(files);
    // Held until the set is in place: another run's set is staged and moved before or after.
    const FolderLocks locks(folders);
    for (const auto& folder : folders) remove_stale_staging_files(folder);
    const std::vector<std::string> temporaries = stage_all(files);
    place_all(files, temporaries);
    // The replaced files now live under the staging names: remove them, then make it durable.
    remove_files(temporaries);
    for (const auto& folder : folders) sync_folder(folder);
}

}  // namespace attn
