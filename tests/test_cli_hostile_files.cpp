// Hostile files through the real `attn` program: inputs that are not regular files (a FIFO,
// /dev/zero) refused at once, and outputs written all or none — a file that cannot be replaced,
// one file named twice, a run killed halfway, a planted link, a dangling --out. The other classes
// of the reliability issue are in test_cli_hostile.cpp; the same checks (exit code, message, no
// control byte, the output folder before and after) and the same time limit on every run.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "attn/files.hpp"
#include "attn/npy.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::expect_refused;
using attn::testing::finished_pid;
using attn::testing::read_file;
using attn::testing::run_attn;
using attn::testing::save_identity_attention;
using attn::testing::save_npy;
using attn::testing::snapshot;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

constexpr int time_limit = attn::testing::hostile_time_limit;

}  // namespace

// --- Inputs that are not regular files ------------------------------------------------------

TEST_CASE("hostile - a FIFO as an input is refused at once", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directory(in);
    save_npy(in + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
    REQUIRE(mkfifo((in + "/encoder_outputs.npy").c_str(), 0600) == 0);  // nobody ever writes to it
    expect_refused({"compute", "dot", "--in", in, "--out", out}, {"encoder_outputs.npy", "FIFO"});
    CHECK_FALSE(fs::exists(out));
    REQUIRE(mkfifo((dir.path() + "/weights.npy").c_str(), 0600) == 0);
    expect_refused({"heatmap", "--weights", dir.path() + "/weights.npy"}, {"weights.npy", "FIFO"});
    save_npy(dir.path() + "/w.npy", {2, 2}, {1, 0, 0, 1});
    REQUIRE(mkfifo((dir.path() + "/tokens.txt").c_str(), 0600) == 0);
    expect_refused({"heatmap", "--weights", dir.path() + "/w.npy", "--tokens", dir.path() + "/tokens.txt"},
                   {"the tokens file", "tokens.txt", "FIFO"});
}

TEST_CASE("hostile - /dev/zero as an input or tokens file is refused, naming it", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directory(in);
    save_npy(in + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
    fs::create_symlink("/dev/zero", in + "/encoder_outputs.npy");
    expect_refused({"compute", "dot", "--in", in, "--out", out}, {"encoder_outputs.npy", "character device"});
    save_npy(dir.path() + "/w.npy", {2, 2}, {1, 0, 0, 1});
    expect_refused({"view", "--weights", dir.path() + "/w.npy", "--tokens", "/dev/zero", "--html", dir.path() + "/x.html"},
                   {"the tokens file /dev/zero", "character device"});
    CHECK_FALSE(fs::exists(dir.path() + "/x.html"));
}

// --- All or none ---------------------------------------------------------------------------

TEST_CASE("hostile - when one output cannot be replaced no output is", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directory(in);
    save_npy(in + "/encoder_outputs.npy", {2, 2, 3}, {1, 2, 3, 2, 2, 3, 4, 5, 6, 4, 5, 6});
    save_npy(in + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
    fs::create_directories(out + "/weights.npy");  // a folder where a file must go
    write_file(out + "/scores.npy", "old scores");
    write_file(out + "/context.npy", "old context");
    const auto before = snapshot(out);
    expect_refused({"compute", "dot", "--in", in, "--out", out}, {"weights.npy: it is a folder"});
    CHECK(snapshot(out) == before);
}

TEST_CASE("hostile - view with one file for --html and --svg is refused before writing", "[cli][hostile]") {
    TempDir dir;
    const std::string target = dir.path() + "/same";
    expect_refused({"view", "--sentence", "El perro va", "--html", target, "--svg", dir.path() + "/./same"},
                   {"--html", "--svg", "name the same file"});
    CHECK(snapshot(dir.path()).empty());
    // Nor is a device replaced (as root, renaming over /dev/null would swap the device out). Through
    // a link in the test's folder, so that even a regression only replaces the link.
    fs::create_symlink("/dev/null", dir.path() + "/null.svg");
    expect_refused({"view", "--sentence", "El perro va", "--svg", dir.path() + "/null.svg"}, {"null.svg: it is a character device"});
    CHECK(fs::is_symlink(dir.path() + "/null.svg"));
    CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("hostile - a run killed with SIGKILL leaves the old outputs, and its leftovers go next time", "[cli][hostile][slow]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directories(in);
    fs::create_directories(out);
    // Weights of (1, 1, 3000, 3000): 36 MB of float32 to stage and fsync, time to be killed in.
    const std::size_t T = 3000;
    std::vector<double> x(T * 2);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i % 7) / 7.0;
    save_npy(in + "/query.npy", {1, T, 2}, x, attn::NpyDtype::float32);
    save_npy(in + "/key.npy", {1, T, 2}, x, attn::NpyDtype::float32);
    save_npy(in + "/value.npy", {1, T, 2}, x, attn::NpyDtype::float32);
    save_identity_attention(in, 2);
    for (const char* name : {"w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"}) {
        const auto array = attn::read_npy(in + "/" + name + ".npy");
        save_npy(in + "/" + name + ".npy", array.shape, array.values, attn::NpyDtype::float32);
    }
    write_file(out + "/output.npy", "old output");
    write_file(out + "/weights.npy", "old weights");

    const pid_t run = attn::testing::start_command(attn::testing::attn_program(),
                                                   {"compute", "mha", "--heads", "1", "--in", in, "--out", out});
    // Kill it as soon as it starts staging (or when it finishes first, which the checks allow).
    bool staging = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(time_limit);
    int status = 0;
    while (!staging && std::chrono::steady_clock::now() < deadline && waitpid(run, &status, WNOHANG) == 0) {
        for (const auto& entry : fs::directory_iterator(out)) staging = staging || attn::is_staging_name(entry.path().filename().string());
        if (!staging) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    kill(run, SIGKILL);
    waitpid(run, &status, 0);
    INFO("killed while staging: " << staging);

    // All or none: both outputs old, or both complete .npy files.
    const auto after = snapshot(out);
    const bool old = after.at("output.npy") == "old output" && after.at("weights.npy") == "old weights";
    const bool complete = !old && attn::read_npy(out + "/weights.npy").shape == std::vector<std::size_t>{1, 1, T, T} &&
                          attn::read_npy(out + "/output.npy").shape == std::vector<std::size_t>{1, T, 2};
    CHECK((old || complete));
    if (staging) CHECK(old);
    // The next run that writes there removes whatever the killed one left behind.
    const std::size_t small = 3;
    save_npy(in + "/query.npy", {1, small, 2}, std::vector<double>(small * 2, 0.5), attn::NpyDtype::float32);
    save_npy(in + "/key.npy", {1, small, 2}, std::vector<double>(small * 2, 0.5), attn::NpyDtype::float32);
    save_npy(in + "/value.npy", {1, small, 2}, std::vector<double>(small * 2, 0.5), attn::NpyDtype::float32);
    const auto again = run_attn({"compute", "mha", "--heads", "1", "--in", in, "--out", out}, {}, time_limit);
    INFO(again.err);
    CHECK(again.exit_code == 0);
    std::vector<std::string> names;
    for (const auto& [name, bytes] : snapshot(out)) names.push_back(name);
    CHECK(names == std::vector<std::string>{"output.npy", "weights.npy"});
}

TEST_CASE("hostile - a link planted at a temporary name is not followed", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directories(in);
    fs::create_directories(out);
    save_npy(in + "/encoder_outputs.npy", {2, 2, 3}, {1, 2, 3, 2, 2, 3, 4, 5, 6, 4, 5, 6});
    save_npy(in + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
    const std::string victim = dir.path() + "/victim.txt";
    write_file(victim, "precious");
    // The old predictable name, and a name of the new form left by a dead process.
    fs::create_symlink(victim, out + "/.context.npy.tmp-1234");
    const std::string planted = out + "/.weights.npy.attn-tmp." + std::to_string(finished_pid()) + ".0123456789ab";
    fs::create_symlink(victim, planted);
    const auto r = run_attn({"compute", "dot", "--in", in, "--out", out}, {}, time_limit);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(read_file(victim) == "precious");
    CHECK_FALSE(fs::exists(fs::symlink_status(planted)));
    CHECK(attn::read_npy(out + "/weights.npy").shape == std::vector<std::size_t>{2, 2});
}

TEST_CASE("hostile - a dangling --out link is named with its target", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directories(in);
    save_npy(in + "/encoder_outputs.npy", {2, 2, 3}, {1, 2, 3, 2, 2, 3, 4, 5, 6, 4, 5, 6});
    save_npy(in + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
    fs::create_symlink(dir.path() + "/gone", out);
    expect_refused({"compute", "dot", "--in", in, "--out", out}, {"output folder", "symbolic link to", "gone, which does not exist"});
    CHECK_FALSE(fs::exists(dir.path() + "/gone"));
}
