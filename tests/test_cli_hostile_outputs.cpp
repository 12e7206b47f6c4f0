// Hostile outputs, second round (issue 24), through the real `attn`: an output that is one of the
// run's inputs (by device and inode, whatever its name), two runs writing one --out at once, and
// an --out that cannot be created on a read-only mount.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "attn/npy.hpp"
#include "support/hostile_checks.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::attn_program;
using attn::testing::expect_refused;
using attn::testing::read_file;
using attn::testing::run_command;
using attn::testing::snapshot;
using attn::testing::start_command;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string dot_inputs = ATTN_SOURCE_DIR "/tests/data/compute/dot-b1/in";

// Weights of one query over two keys, and the tokens of each.
struct ViewInputs {
    std::string weights, tokens, key_tokens;
};

ViewInputs view_inputs(const TempDir& dir) {
    ViewInputs in{dir.path() + "/w.npy", dir.path() + "/tokens.txt", dir.path() + "/keys.txt"};
    write_file(in.weights, attn::encode_npy({1, 2}, {0.25, 0.75}, attn::NpyDtype::float64));
    write_file(in.tokens, "hola\n");
    write_file(in.key_tokens, "a\nb\n");
    return in;
}

// True once /proc/locks lists `pid` waiting (->) for an flock on the inode of `folder`.
bool waits_for_lock(pid_t pid, const std::string& folder) {
    struct stat status {};
    REQUIRE(::stat(folder.c_str(), &status) == 0);
    const std::string inode = ":" + std::to_string(status.st_ino) + " ";
    for (int attempt = 0; attempt < 6000; ++attempt) {  // at most a minute: a failure, not a hang
        std::ifstream locks("/proc/locks");
        for (std::string line; std::getline(locks, line);) {
            if (line.find("-> FLOCK") != std::string::npos && line.find(" " + std::to_string(pid) + " ") != std::string::npos &&
                line.find(inode) != std::string::npos) {
                return true;
            }
        }
        int status_code = 0;
        if (::waitpid(pid, &status_code, WNOHANG) == pid) return false;  // it ended without waiting
        ::usleep(10000);
    }
    return false;
}

}  // namespace

TEST_CASE("hostile2 - attn view never writes over its own inputs, whatever their names", "[cli][hostile]") {
    TempDir dir;
    const ViewInputs in = view_inputs(dir);
    const auto before = snapshot(dir.path());
    fs::create_hard_link(in.weights, dir.path() + "/same-weights.npy");
    const auto with_link = snapshot(dir.path());
    const std::vector<std::string> base = {"view", "--weights", in.weights, "--tokens", in.tokens, "--key-tokens", in.key_tokens};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> arguments = base;
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return arguments;
    };
    expect_refused(with({"--html", in.weights}), {"cannot write --html " + in.weights, "it is the input --weights " + in.weights});
    expect_refused(with({"--svg", in.tokens}), {"cannot write --svg " + in.tokens, "it is the input --tokens " + in.tokens});
    expect_refused(with({"--svg", in.key_tokens}), {"--svg " + in.key_tokens, "it is the input --key-tokens"});
    // Another name for the same file: a hard link, a path through "..".
    expect_refused(with({"--html", dir.path() + "/same-weights.npy"}), {"same-weights.npy", "it is the input --weights"});
    expect_refused(with({"--html", dir.path() + "/../" + fs::path(dir.path()).filename().string() + "/w.npy"}),
                   {"it is the input --weights"});
    CHECK(snapshot(dir.path()) == with_link);
    CHECK(before.at("w.npy") == with_link.at("w.npy"));
}

TEST_CASE("hostile2 - attn compute never writes over a file it read", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::copy(dot_inputs, in);
    fs::create_directories(out);
    // An output's name in --out that is a hard link to an input.
    fs::create_hard_link(in + "/decoder_output.npy", out + "/context.npy");
    const auto before = snapshot(in);
    expect_refused({"compute", "dot", "--in", in, "--out", out},
                   {"cannot write " + out + "/context.npy", "it is the input " + in + "/decoder_output.npy"});
    CHECK(snapshot(in) == before);
}

TEST_CASE("hostile2 - a run waits while another writes the same --out: the set is one run's", "[cli][hostile]") {
    // The test holds the folder's lock as a run in the middle of its moves would: attn must wait
    // for it before it stages or moves anything, then write its whole set.
    TempDir dir;
    const std::string out = dir.path() + "/out";
    fs::create_directories(out);
    // O_CLOEXEC: attn must not inherit the descriptor, and with it the lock.
    const int folder = ::open(out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(folder >= 0);
    REQUIRE(::flock(folder, LOCK_EX) == 0);
    const pid_t pid = start_command(attn_program(), {"compute", "dot", "--in", dot_inputs, "--out", out}, {{"NO_COLOR", "1"}},
                                    dir.path() + "/stdout", dir.path() + "/stderr");
    const bool waited = waits_for_lock(pid, out);
    CHECK(waited);
    CHECK(snapshot(out).empty());  // nothing staged, nothing moved while the other run holds it
    ::close(folder);                // the other run is done
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    INFO(read_file(dir.path() + "/stderr"));
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    const auto written = snapshot(out);
    CHECK(written.size() == 3);
    for (const char* name : {"scores.npy", "weights.npy", "context.npy"}) CHECK(written.count(name) == 1);
}

TEST_CASE("hostile2 - an --out that cannot be created on a read-only mount reports EROFS", "[cli][hostile]") {
    // A read-only bind mount in a private mount namespace: unshare -m as root, or -r -m (a user
    // namespace) otherwise. Where neither is allowed the case says so and checks nothing else.
    TempDir dir;
    const std::string mount = dir.path() + "/readonly";
    fs::create_directories(mount);
    const std::string script = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && exec \"$2\" compute dot --in \"$3\" --out \"$1/new/out\"";
    const std::string unshare = "/usr/bin/unshare";
    if (!fs::exists(unshare)) {
        WARN("skipped: " << unshare << " is not installed (util-linux)");
        return;
    }
    std::vector<std::string> namespace_flags = ::geteuid() == 0 ? std::vector<std::string>{"-m"} : std::vector<std::string>{"-r", "-m"};
    std::vector<std::string> probe_arguments = namespace_flags;
    probe_arguments.push_back("true");
    const auto probe = run_command(unshare, probe_arguments, {}, 30);
    if (probe.exit_code != 0) {
        WARN("skipped: no mount namespace here (unshare " << namespace_flags.back() << " true: exit " << probe.exit_code << ")");
        return;
    }
    std::vector<std::string> arguments = namespace_flags;
    for (const std::string& a : {std::string("sh"), std::string("-c"), script, std::string("sh"), mount, attn_program(), dot_inputs}) {
        arguments.push_back(a);
    }
    const auto r = run_command(unshare, arguments, {{"NO_COLOR", "1"}}, 60);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("cannot create the output folder " + mount + "/new/out: Read-only file system"));
    CHECK(fs::is_empty(mount));
}
