// src/io/file_kinds.hpp — private to src/io: the words both the reader and the writer of files
// (files.cpp, atomic_write.cpp) use in their messages.
#pragma once

#include <cstring>
#include <string>
#include <sys/stat.h>

namespace attn::detail {

inline std::string error_text(int error) { return error == 0 ? "unknown error" : std::strerror(error); }

// "a FIFO (named pipe)": what a non-regular file is, for the message that refuses it.
inline std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace attn::detail
