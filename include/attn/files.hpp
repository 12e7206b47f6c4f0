// attn/files.hpp — reading input files without surprises, and writing output files all or none.
//
// Why: students point the tutor at whatever their class produces. An input path may be a folder,
// a FIFO that never delivers a byte, /dev/zero, a link to any of these or a file of gigabytes; each
// must end in a message naming the file, at once, never in a hang or an exhausted memory.
// InputFile opens a path only when it is a regular file once links are followed (it opens with
// O_NONBLOCK and then looks with fstat, so a FIFO cannot block the open), and reads with a limit.
//
// Outputs are written all or none, even when the run is killed: write_files_atomically stages
// every file as a temporary beside its target (an unpredictable name, opened with O_CREAT | O_EXCL
// | O_NOFOLLOW, mode 0644, so that a planted link is never followed), writes and fsyncs them all,
// and only then renames them into place. When anything fails, what it staged is removed and every
// earlier file is left as it was (a replaced file is swapped back: the rename exchanges the two).
// The temporaries are named ".NAME.attn-tmp.PID.RANDOM": a run killed with SIGKILL leaves them
// behind, and the next run that writes to the same folder removes those whose process is gone.
//
//   std::string tokens = attn::read_input_file("tokens.txt", 4 << 20, "the tokens file");
//   attn::write_files_atomically({{"out/weights.npy", bytes}, {"out/output.npy", more_bytes}});
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// A regular file opened for reading. InputError naming the path (and `what` it should be, such
/// as "the tokens file") when it is missing, unreadable, a folder, a FIFO, a device or a socket.
class InputFile {
public:
    explicit InputFile(const std::string& path, const std::string& what = "");
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    /// The size fstat reported when the file was opened.
    std::uint64_t size() const { return size_; }
    /// "what path", for messages: "the tokens file tokens.txt", or the path alone.
    std::string name() const;
    /// Up to `count` bytes from the current position (fewer only at the end of the file).
    std::string read(std::size_t count);

private:
    int descriptor_ = -1;
    std::string path_, what_;
    std::uint64_t size_ = 0;
};

/// The whole of a regular file, refusing one larger than `max_bytes` before reading it.
std::string read_input_file(const std::string& path, std::size_t max_bytes, const std::string& what = "");

/// One output: where it goes, its bytes, and the option that named it ("--html"), for messages.
struct OutputFile {
    std::string path;
    std::string contents;
    std::string what = "";
};

/// An input of the run as the user named it: the option ("--weights", or "" for a file found in a
/// folder) and the path.
struct InputPath {
    std::string what;
    std::string path;
};

/// Writes every file or none (see the file comment). InputError naming the path and the reason —
/// a missing folder, a target that is a folder, the same file named twice, an output that is one
/// of `inputs` (the same device and inode: a link or another spelling of the path counts), a full
/// disk — with no temporary left behind and every existing file unchanged. Each destination
/// folder is locked (flock) while the set is staged and moved into place, so that two runs
/// writing to one folder at once leave the whole set of one of them, never a mix.
void write_files_atomically(const std::vector<OutputFile>& files, const std::vector<InputPath>& inputs = {});

/// The checks write_files_atomically makes on `files` before it writes anything (the list above,
/// but a full disk), for a program that works long before it writes: a bad output is said before
/// the work, not after it. The contents are not read. write_files_atomically checks again.
void check_output_files(const std::vector<OutputFile>& files, const std::vector<InputPath>& inputs = {});

/// Creates `folder` (and its parents) when missing. InputError when it is a file, a dangling
/// symbolic link (named with its target) or cannot be created.
void prepare_output_folder(const std::string& folder);

/// True for the names write_files_atomically gives its temporaries: ".NAME.attn-tmp.PID.RANDOM".
bool is_staging_name(const std::string& filename);

/// Removes from `folder` the temporaries of runs whose process no longer exists (killed runs);
/// returns how many. Links among them are removed, never followed. write_files_atomically calls it.
std::size_t remove_stale_staging_files(const std::string& folder);

}  // namespace attn
