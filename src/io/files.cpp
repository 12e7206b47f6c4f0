// Reading files from outside the program (attn/files.hpp): regular files only, with a size limit.
// The atomic writer is atomic_write.cpp.
#include "attn/files.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "file_kinds.hpp"

namespace attn {

using detail::error_text;
using detail::kind_of;

namespace {

std::string size_text(std::uint64_t bytes) {
    char text[48];
    if (bytes >= (1u << 20)) {
        std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
    } else {
        std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    }
    return text;
}

}  // namespace

InputFile::InputFile(const std::string& path, const std::string& what) : path_(path), what_(what) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
    descriptor_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (descriptor_ < 0) {
        const int error = errno;
        struct stat status {};
        // A socket cannot be opened at all (ENXIO): name what it is rather than "No such device".
        if (::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
            throw InputError(name() + ": cannot read: it is " + kind_of(status.st_mode) + ", not a file");
        }
        throw InputError(name() + ": cannot open: " + error_text(error));
    }
    struct stat status {};
    if (::fstat(descriptor_, &status) != 0) {
        const int error = errno;
        ::close(descriptor_);
        descriptor_ = -1;
        throw InputError(name() + ": cannot read: " + error_text(error));
    }
    if (!S_ISREG(status.st_mode)) {
        ::close(descriptor_);
        descriptor_ = -1;
        throw InputError(name() + ": cannot read: it is " + kind_of(status.st_mode) + ", not a file");
    }
    size_ = static_cast<std::uint64_t>(status.st_size);
    // A regular file never blocks; clear the flag anyway so that reads behave as usual.
    const int flags = ::fcntl(descriptor_, F_GETFL);
    if (flags >= 0) ::fcntl(descriptor_, F_SETFL, flags & ~O_NONBLOCK);
}

InputFile::~InputFile() {
    if (descriptor_ >= 0) ::close(descriptor_);
}

std::string InputFile::name() const { return printable_text(what_.empty() ? path_ : what_ + " " + path_); }

std::string InputFile::read(std::size_t count) {
    std::string bytes(count, '\0');
    std::size_t done = 0;
    while (done < count) {
        const ssize_t got = ::read(descriptor_, &bytes[done], count - done);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw InputError(name() + ": cannot read: " + error_text(errno));
        }
        if (got == 0) break;  // the end of the file
        done += static_cast<std::size_t>(got);
    }
    bytes.resize(done);
    return bytes;
}

std::string read_input_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
    InputFile file(path, what);
    if (file.size() > max_bytes) {
        throw InputError(file.name() + ": the file holds " + size_text(file.size()) + "; at most " + size_text(max_bytes) +
                         " is read");
    }
    // One byte more than the limit: a file that grew after fstat is still refused.
    std::string bytes = file.read(max_bytes + 1);
    if (bytes.size() > max_bytes) {
        throw InputError(file.name() + ": the file grew past " + size_text(max_bytes) + " while it was read");
    }
    return bytes;
}

}  // namespace attn
