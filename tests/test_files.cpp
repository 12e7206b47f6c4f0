// Tests for attn/files.hpp: inputs that are not regular files are refused at once (never a hang on
// a FIFO, never /dev/zero read until memory runs out), and outputs are written all or none: a
// failure leaves every earlier file as it was and no temporary behind; a planted link is never
// followed; the leftovers of a killed run are removed by the next write to the folder.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using attn::testing::finished_pid;
using attn::testing::read_file;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> entries(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

template <class Action>
std::string input_error(Action&& action) {
    try {
        action();
    } catch (const attn::InputError& error) {
        return error.what();
    }
    return "(no attn::InputError was thrown)";
}

}  // namespace

TEST_CASE("an input must be a regular file, refused at once otherwise", "[files][errors]") {
    TempDir dir;
    const std::string fifo = dir.path() + "/pipe.npy";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    // No writer ever opens the FIFO: a blocking open would wait for ever.
    CHECK_THAT(input_error([&] { attn::InputFile file(fifo); }), Catch::Contains("pipe.npy") && Catch::Contains("FIFO"));
    CHECK_THAT(input_error([&] { attn::read_input_file("/dev/zero", 1000, "the tokens file"); }),
               Catch::Contains("the tokens file /dev/zero") && Catch::Contains("character device"));
    CHECK_THAT(input_error([&] { attn::read_input_file(dir.path(), 1000); }), Catch::Contains("is a folder"));
    CHECK_THAT(input_error([&] { attn::read_input_file(dir.path() + "/missing", 1000); }),
               Catch::Contains("missing: cannot open: No such file"));
    // Links are followed: a link to a FIFO is a FIFO.
    fs::create_symlink(fifo, dir.path() + "/link.npy");
    CHECK_THAT(input_error([&] { attn::InputFile file(dir.path() + "/link.npy"); }), Catch::Contains("FIFO"));
}

TEST_CASE("an input larger than its limit is refused before it is read", "[files][errors]") {
    TempDir dir;
    write_file(dir.path() + "/big.txt", std::string(2000, 'x'));
    CHECK_THAT(input_error([&] { attn::read_input_file(dir.path() + "/big.txt", 1000, "the tokens file"); }),
               Catch::Contains("the tokens file") && Catch::Contains("2000 bytes") && Catch::Contains("at most 1000 bytes"));
    CHECK(attn::read_input_file(dir.path() + "/big.txt", 2000) == std::string(2000, 'x'));
}

TEST_CASE("files are written all or none", "[files]") {
    TempDir dir;
    const std::string page = dir.path() + "/out.html", picture = dir.path() + "/out.svg";
    attn::write_files_atomically({{page, "<html>"}, {picture, "<svg>"}});
    CHECK(read_file(page) == "<html>");
    CHECK(read_file(picture) == "<svg>");
    struct stat status {};
    REQUIRE(stat(page.c_str(), &status) == 0);
    const mode_t mask = umask(0);
    umask(mask);
    CHECK((status.st_mode & 0777) == (0644 & ~mask));

    // A later target that cannot be written: nothing changes, not even the files before it.
    const std::string second = dir.path() + "/second.html";
    CHECK_THAT(input_error([&] { attn::write_files_atomically({{second, "x"}, {dir.path() + "/missing/out.svg", "y"}}); }),
               Catch::Contains("missing/out.svg: the folder") && Catch::Contains("does not exist"));
    CHECK_FALSE(fs::exists(second));
    fs::create_directory(dir.path() + "/weights.npy");
    CHECK_THAT(input_error([&] {
                   attn::write_files_atomically({{page, "new"}, {picture, "new"}, {dir.path() + "/weights.npy", "w"}});
               }),
               Catch::Contains("weights.npy: it is a folder"));
    CHECK(read_file(page) == "<html>");
    CHECK(read_file(picture) == "<svg>");
    CHECK(entries(dir.path()) == std::vector<std::string>{"out.html", "out.svg", "weights.npy"});  // no temporary
}

TEST_CASE("only a regular file is replaced, never a device or a FIFO", "[files][errors]") {
    TempDir dir;
    const std::string fifo = dir.path() + "/pipe";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(input_error([&] { attn::write_files_atomically({{dir.path() + "/a.txt", "a"}, {fifo, "x"}}); }),
               Catch::Contains("pipe: it is a FIFO (named pipe), not a file"));
    CHECK(fs::is_fifo(fifo));
    CHECK(entries(dir.path()) == std::vector<std::string>{"pipe"});
    // As root, renaming over /dev/null would replace the device for the whole machine. The test
    // goes through a link in its own folder, so that even a regression only replaces the link.
    const std::string null_link = dir.path() + "/null";
    fs::create_symlink("/dev/null", null_link);
    CHECK_THAT(input_error([&] { attn::write_files_atomically({{null_link, "x"}}); }),
               Catch::Contains("null: it is a character device, not a file"));
    CHECK(fs::is_symlink(null_link));
    CHECK(fs::is_character_file("/dev/null"));
    // A link to a regular file is replaced by the file itself (the link, not its target).
    write_file(dir.path() + "/target.txt", "target");
    fs::create_symlink(dir.path() + "/target.txt", dir.path() + "/link.txt");
    attn::write_files_atomically({{dir.path() + "/link.txt", "new"}});
    CHECK(read_file(dir.path() + "/target.txt") == "target");
    CHECK(read_file(dir.path() + "/link.txt") == "new");
    CHECK_FALSE(fs::is_symlink(dir.path() + "/link.txt"));
}

TEST_CASE("the same file named twice is refused before anything is written", "[files][errors]") {
    TempDir dir;
    fs::create_directory(dir.path() + "/sub");
    const std::string same = dir.path() + "/sub/../page.html";
    CHECK_THAT(input_error([&] { attn::write_files_atomically({{dir.path() + "/page.html", "a"}, {same, "b"}}); }),
               Catch::Contains("the same file"));
    CHECK(entries(dir.path()) == std::vector<std::string>{"sub"});
}

TEST_CASE("a failing rename puts every replaced file back", "[files]") {
    TempDir dir;
    const std::string first = dir.path() + "/first.npy", second = dir.path() + "/second.npy";
    write_file(first, "old first");
    attn::write_files_atomically({{first, "new first"}, {second, "new second"}});
    CHECK(read_file(first) == "new first");
    // A read-only folder: staging fails, and nothing is touched.
    write_file(second, "old second");
    fs::permissions(dir.path(), fs::perms::owner_write, fs::perm_options::remove);
    if (access(dir.path().c_str(), W_OK) == 0) {
        WARN("running as root: a read-only folder is still writable, the case is skipped");
    } else {
        CHECK_THAT(input_error([&] { attn::write_files_atomically({{first, "newer"}, {second, "newer"}}); }),
                   Catch::Contains("first.npy") && Catch::Contains("Permission denied") && Catch::Contains("nothing was written"));
        CHECK(read_file(first) == "new first");
        CHECK(read_file(second) == "old second");
    }
    fs::permissions(dir.path(), fs::perms::owner_write, fs::perm_options::add);
}

TEST_CASE("temporaries have unpredictable names and a planted link is never followed", "[files]") {
    TempDir dir;
    const std::string victim = dir.path() + "/victim.txt";
    write_file(victim, "precious");
    fs::create_directory(dir.path() + "/out");
    // Links planted at the names a killed run would have left, and at the old predictable name.
    const long dead = finished_pid();
    const std::string planted = dir.path() + "/out/.weights.npy.attn-tmp." + std::to_string(dead) + ".0123456789ab";
    fs::create_symlink(victim, planted);
    fs::create_symlink(victim, dir.path() + "/out/.weights.npy.tmp-" + std::to_string(getpid()));
    attn::write_files_atomically({{dir.path() + "/out/weights.npy", "weights"}});
    CHECK(read_file(victim) == "precious");
    CHECK(read_file(dir.path() + "/out/weights.npy") == "weights");
    CHECK_FALSE(fs::exists(fs::symlink_status(planted)));  // a leftover of a dead run: removed, not followed
}

TEST_CASE("the leftovers of a killed run are recognised and removed by the next write", "[files]") {
    TempDir dir;
    const long dead = finished_pid();
    const std::string leftover = ".context.npy.attn-tmp." + std::to_string(dead) + ".a1b2c3d4e5f6";
    const std::string alive = ".context.npy.attn-tmp." + std::to_string(getppid()) + ".a1b2c3d4e5f6";
    write_file(dir.path() + "/" + leftover, "half");
    write_file(dir.path() + "/" + alive, "another run, still going");
    write_file(dir.path() + "/.context.npy.attn-tmp.x.a1b2c3d4e5f6", "not ours");
    CHECK(attn::is_staging_name(leftover));
    CHECK_FALSE(attn::is_staging_name("context.npy"));
    CHECK_FALSE(attn::is_staging_name(".context.npy.attn-tmp.x.a1b2c3d4e5f6"));
    attn::write_files_atomically({{dir.path() + "/context.npy", "c"}});
    std::vector<std::string> expected{".context.npy.attn-tmp.x.a1b2c3d4e5f6", alive, "context.npy"};
    std::sort(expected.begin(), expected.end());
    CHECK(entries(dir.path()) == expected);
}

TEST_CASE("an output folder that is a dangling link is named with its target", "[files][errors]") {
    TempDir dir;
    fs::create_symlink(dir.path() + "/nowhere", dir.path() + "/out");
    CHECK_THAT(input_error([&] { attn::prepare_output_folder(dir.path() + "/out"); }),
               Catch::Contains("symbolic link to") && Catch::Contains("nowhere, which does not exist"));
    write_file(dir.path() + "/file", "");
    CHECK_THAT(input_error([&] { attn::prepare_output_folder(dir.path() + "/file"); }), Catch::Contains("in the way"));
    attn::prepare_output_folder(dir.path() + "/new/deeper");
    CHECK(fs::is_directory(dir.path() + "/new/deeper"));
}
