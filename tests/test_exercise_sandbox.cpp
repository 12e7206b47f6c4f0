// `attn exercise` on planted student files (tests/data/exercises), through the real binary: the
// student's program can hang, crash, abort, throw anything, exit early, fail to link, call the
// library's own answer, read past a tensor, print megabytes, eat memory or scribble on its report
// channel, and the run still ends in time with exit 1 and a sentence that says what happened in
// which case; the lessons' own traps are named; independent correct implementations pass; hints
// follow the failure and are used up only by changed numbers.
#include <catch2/catch.hpp>
#include <filesystem>

#include "support/per_lesson.hpp"
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sys/wait.h>
#include <unistd.h>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/unwrapped.hpp"

namespace {

using attn::testing::CommandResult;
using attn::testing::TempDir;

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/exercises/";

// Is process `pid` gone (or a zombie waiting for its parent, which runs no code)?
bool not_running(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return true;
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

// `attn exercise N --file F ARGS…` with its own progress folder (and `environment`).
CommandResult check(int number, const std::string& file, const TempDir& state, std::vector<std::string> extra = {},
                    std::map<std::string, std::string> environment = {}) {
    std::vector<std::string> arguments = {"exercise", std::to_string(number), "--file", attn::testing::as_handed_in(file)};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    environment["ATTN_STATE_DIR"] = state.path();
    return attn::testing::run_attn(arguments, environment, 300);
}

// Is a process named `name` (its comm) running, other than as a zombie?
bool process_named(const std::string& name) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string pid = entry.path().filename().string();
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream comm(entry.path() / "comm");
        std::string text;
        if (!std::getline(comm, text) || text != name) continue;
        if (!not_running(std::stoi(pid))) return true;
    }
    return false;
}

// `text` with every run of white space (a wrapped line's break and indent) as one space.
std::string one_line(const std::string& text) {
    std::string out;
    for (const char c : text) {
        const bool space = c == ' ' || c == '\n' || c == '\t';
        if (!(space && !out.empty() && out.back() == ' ')) out += space ? ' ' : c;
    }
    return out;
}

// Did attn say that it runs the student's program with the fallback's isolation?
bool fallback_said(const CommandResult& r) { return r.err.find("without its sandbox's namespaces") != std::string::npos; }

// Checks tests/data/exercises/`file` as exercise `number`: the exit code and every fragment of the output.
CommandResult expect_run(int number, const std::string& file, int exit_code, const std::vector<std::string>& fragments,
                         const TempDir& state = TempDir()) {
    const CommandResult r = check(number, fixtures + file, state);
    INFO(file << "\n" << r.out << r.err);
    CHECK(r.exit_code == exit_code);
    for (const auto& fragment : fragments) CHECK_THAT(attn::testing::unwrapped(r.out), Catch::Contains(fragment));
    return r;
}

std::string progress_of(const TempDir& state) { return attn::testing::read_file(state.path() + "/progress"); }

// Runs `attn` and measures the time from the exercise heading (the student's program starts right
// after it: the build before it may take long on a busy machine) to the end.
struct TimedRun {
    CommandResult result;
    double seconds_after_heading = -1.0;
};

TimedRun run_timed(const std::vector<std::string>& arguments, const std::string& state) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::dup2(fds[1], 1);
        ::dup2(fds[1], 2);
        ::close(fds[0]);
        ::setenv("ATTN_STATE_DIR", state.c_str(), 1);
        ::setenv("NO_COLOR", "1", 1);
        ::setenv("ATTN_LANG", "en", 1);  // the heading below is looked for in English
        std::vector<char*> argv = {const_cast<char*>(ATTN_CLI_PATH)};
        for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(ATTN_CLI_PATH, argv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    TimedRun run;
    std::chrono::steady_clock::time_point heading;
    bool seen = false;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0) continue;
        run.result.out.append(buffer, static_cast<std::size_t>(n));
        if (!seen && run.result.out.find("Exercise 1 · ") != std::string::npos) {
            seen = true;
            heading = std::chrono::steady_clock::now();
        }
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    run.result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (seen) run.seconds_after_heading = std::chrono::duration<double>(std::chrono::steady_clock::now() - heading).count();
    return run;
}


// A correct implementation passes the lesson's exercise: the one written from the lesson document
// alone (tests/data/exercises/independent/slug.cpp, named by the lesson folder's slug so that a
// renumbered lesson keeps it) where there is one, else the lesson's own written-out solution.
void correct_implementation_passes(const attn::testing::LessonFolder& lesson) {
    const std::string number = std::to_string(lesson.number);
    std::string independent = fixtures + "independent/" + lesson.slug + ".cpp";
    if (!std::filesystem::exists(independent)) independent = lesson.path + "/exercise/solution.cpp";
    TempDir state;
    const auto r = check(lesson.number, independent, state);
    INFO(independent << "\n" << r.out);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Exercise " + number + " passes.") && Catch::Contains(" passed, 0 failed"));
    CHECK_THAT(progress_of(state), Catch::Contains("exercise " + number + " passed"));
}

}  // namespace

TEST_CASE("sandbox - an endless loop is stopped at the time limit, with every process of its group", "[exercises][sandbox][slow]") {
    TempDir state;
    const TimedRun run = run_timed({"exercise", "1", "--file", fixtures + "hostile/endless_loop.cpp", "--time-limit", "1"},
                                   state.path());
    INFO(run.result.out);
    CHECK(run.result.exit_code == 1);
    REQUIRE(run.seconds_after_heading >= 0.0);
    CHECK(run.seconds_after_heading < 1.0 + 5.0);
    CHECK_THAT(attn::testing::unwrapped(run.result.out), Catch::Contains("your code did not finish within 1 s in case \"the lesson's worked example") &&
                                   Catch::Contains("inside exercise::dot_attention (an endless loop?)"));
    // The compiler's warning about the loop is shown too.
    CHECK_THAT(run.result.out, Catch::Contains("is always true"));
    CHECK_THAT(run.result.out, Catch::Contains("grandchild "));
    CHECK_FALSE(process_named("attn-pauser"));
    CHECK_THAT(progress_of(state), Catch::Contains("exercise 1 failing"));
}

TEST_CASE("sandbox - a segmentation fault is reported with its case, and the cases before it keep their results",
          "[exercises][sandbox][slow]") {
    TempDir state;
    const auto first = check(1, fixtures + "hostile/segfault.cpp", state);
    INFO(first.out);
    CHECK(first.exit_code == 1);
    CHECK_THAT(first.out, Catch::Contains("your code crashed (segmentation fault") &&
                              Catch::Contains("in case \"the lesson's worked example") && Catch::Contains("0 passed, 1 failed, 6 not run"));
    const auto late = check(1, fixtures + "hostile/crash_late.cpp", state);
    INFO(late.out);
    CHECK(late.exit_code == 1);
    CHECK_THAT(late.out, Catch::Contains("crashed (segmentation fault") &&
                             Catch::Contains("in case \"a single source position, B = 2, S = 1, H = 5\"") &&
                             Catch::Contains("4 passed, 1 failed, 2 not run") &&
                             Catch::Contains("✓ the lesson's worked example"));
}

TEST_CASE("sandbox - an abort is a crash", "[exercises][sandbox][slow]") {
    expect_run(1, "hostile/abort.cpp", 1, {"your code crashed (", "abort", "inside exercise::dot_attention"});
}

TEST_CASE("sandbox - throw 42 is reported like an exception, case by case", "[exercises][sandbox][slow]") {
    const auto r = expect_run(1, "hostile/throw_42.cpp", 1,
                              {"your code threw a value of type int, which is not a std::exception", "0 passed, 7 failed"});
    CHECK_THAT(r.out, !Catch::Contains("terminate called"));
}

TEST_CASE("sandbox - exit(0) in the student's code is a failure, not a pass", "[exercises][sandbox][slow]") {
    TempDir state;
    const auto r = expect_run(1, "hostile/exit_0.cpp", 1,
                              {"your program ended (exit status 0) in case", "before reporting its results", "0 passed, 1 failed, 6 not run"},
                              state);
    CHECK_THAT(r.out, !Catch::Contains("passes."));
    CHECK_THAT(progress_of(state), Catch::Contains("exercise 1 failing"));
}

TEST_CASE("sandbox - a link error shows the undefined symbol, demangled, and the student's line", "[exercises][sandbox][slow]") {
    const auto r = expect_run(1, "hostile/link_error.cpp", 1,
                              {"your code does not compile", "undefined reference to `helper_never_defined(",
                               "tests/data/exercises/hostile/link_error.cpp:11"});
    CHECK_THAT(r.out, !Catch::Contains("_Z"));
    CHECK_THAT(r.out, !Catch::Contains("Hint"));  // a compile error uses no hint
}

TEST_CASE("sandbox - calling the library's own implementation is refused before anything runs", "[exercises][sandbox][slow]") {
    TempDir state;
    const auto r = expect_run(1, "hostile/library_call.cpp", 1,
                              {"asks you to write attn::dot_attention yourself, and your code calls the library's attn::dot_attention"},
                              state);
    CHECK_THAT(r.out, !Catch::Contains("Exercise 1 · "));
    CHECK_THAT(progress_of(state), Catch::Contains("exercise 1 failing"));
}

TEST_CASE("sandbox - an index past the end names the index", "[exercises][sandbox][slow]") {
    expect_run(1, "hostile/off_by_one.cpp", 1,
               {"your code read or wrote outside a tensor: index 2 is out of bounds for axis 1 with size 2"});
}

TEST_CASE("sandbox - a write past the end through a pointer is caught where AddressSanitizer is built in",
          "[exercises][sandbox][slow]") {
    if (!ATTN_EXERCISE_ASAN) {
        WARN("the student's programs are built without AddressSanitizer here: nothing to check");
        return;
    }
    expect_run(1, "hostile/heap_overflow.cpp", 1,
               {"your code crashed (heap-buffer-overflow", "tests/data/exercises/hostile/heap_overflow.cpp:12"});
}

TEST_CASE("sandbox - float accumulators are called float precision", "[exercises][sandbox][slow]") {
    expect_run(1, "hostile/float_precision.cpp", 1,
               {"this looks like float (single) precision", "computes in double", "in full: expected"});
}

TEST_CASE("sandbox - megabytes of output are capped, and a right answer still passes", "[exercises][sandbox][slow]") {
    TempDir state;
    const auto r = check(1, fixtures + "hostile/chatty.cpp", state);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("bytes left out") && Catch::Contains("7 passed, 0 failed"));
    CHECK(r.out.size() < 64 * 1024);
}

TEST_CASE("sandbox - a memory hog is stopped by the memory limit", "[exercises][sandbox][slow]") {
    const auto r = expect_run(1, "hostile/memory_hog.cpp", 1, {"ran out of memory", "the limit is 2048 MiB"});
    CHECK_THAT(r.out, !Catch::Contains("does your code call exit()"));
}

TEST_CASE("sandbox - garbage on the report channel fails the run", "[exercises][sandbox][slow]") {
    expect_run(1, "hostile/report_channel.cpp", 1, {"wrote something the checker cannot read on its report channel"});
}

TEST_CASE("sandbox - the lessons' own traps are named", "[exercises][sandbox][lesson01][lesson05][lesson06][lesson07][slow]") {
    struct Trap {
        int exercise;
        const char* file;
        const char* named;
    };
    const Trap traps[] = {
        {1, "planted/squeeze_trap.cpp", "lesson 1's `.squeeze()` trap"},
        {1, "planted/unshifted_softmax.cpp", "without subtracting the row's maximum first"},
        {5, "planted/mask_on_heads_axis.cpp", "the mask went to the heads axis, seed 000's trap"},
        {5, "planted/nan_for_fully_masked.cpp", "a query whose keys are all padding got NaN weights"},
        {6, "planted/whole_tensor_layer_norm.cpp", "one mean and one variance over the whole tensor"},
        {7, "planted/tile_skip_first_query.cpp", "compares the tile's first key with its first query instead of its last"},
    };
    for (const auto& trap : traps) {
        TempDir state;
        const auto r = check(trap.exercise, fixtures + trap.file, state);
        INFO(trap.file << "\n" << r.out);
        CHECK(r.exit_code == 1);
        CHECK_THAT(attn::testing::unwrapped(r.out), Catch::Contains("Your numbers match a classic mistake in every case that can tell it apart: ") &&
                                                        Catch::Contains(trap.named));
    }
}

namespace {

// Each planted file (tests/data/exercises/, with the explanation the checker must give) fails
// exercise `number`, and the diagnosis names its mistake.
template <std::size_t N>
void expect_each_named(int number, const std::pair<const char*, const char*> (&traps)[N]) {
    for (const auto& [file, named] : traps) {
        TempDir state;
        const auto r = check(number, fixtures + file, state);
        INFO(file << "\n" << r.out);
        CHECK(r.exit_code == 1);
        CHECK_THAT(attn::testing::unwrapped(r.out), Catch::Contains("Your numbers match a classic mistake in every case that can tell it apart: ") &&
                                                        Catch::Contains(named));
    }
}

}  // namespace

// Every mistake exercise 8 names, made by a second, independent implementation
// (tests/data/exercises/independent/positions.cpp with one PLANTED_ macro): the checker's values for each
// mistake are the values that code gives.
TEST_CASE("sandbox - each of lesson 8's mistakes made by independent code is named", "[exercises][sandbox][lesson08][slow]") {
    const std::pair<const char*, const char*> traps[] = {
        {"planted/sin_cos_swapped.cpp", "in your table, sine and cosine are swapped"},
        {"planted/exponent_without_two.cpp", "in your table, the exponent is i/d_model"},
        {"planted/positions_from_one.cpp", "your table counts positions from 1"},
        {"planted/rope_always_pairs.cpp", "RoPE with layout halves turned the pairs (2i, 2i+1)"},
        {"planted/rope_always_halves.cpp", "RoPE with layout pairs turned the pairs (i, i + d_k/2)"},
        {"planted/rope_angle_negated.cpp", "your RoPE turns the other way"},
        {"planted/rope_exponent_without_two.cpp", "in your rotary_angles, θ_i = base^(−i/d_k)"},
    };
    expect_each_named(8, traps);
}

// Every mistake exercise 9 names, made by a second, independent implementation
// (tests/data/exercises/independent/decoder.cpp with one PLANTED_ macro).
TEST_CASE("sandbox - each of lesson 9's mistakes made by independent code is named", "[exercises][sandbox][lesson09][slow]") {
    const std::pair<const char*, const char*> traps[] = {
        {"planted/causal_cross_attention.cpp", "your cross-attention hides memory positions with a causal mask"},
        {"planted/queries_from_memory.cpp", "your cross-attention takes its queries from the memory"},
        {"planted/memory_mask_ignored.cpp", "your cross-attention ignores the memory's padding mask"},
        {"planted/cache_appended_after_use.cpp", "your decoding step attends over the cache before appending"},
        {"planted/cache_top_left.cpp", "your decoding step aligns the causal mask top-left"},
        {"planted/kv_heads_tiled.cpp", "your query heads share the K/V heads as `repeat` (a tile) shares them"},
    };
    expect_each_named(9, traps);
}

// Every mistake exercise 10 names, made by a second, independent implementation
// (tests/data/exercises/independent/backward.cpp with one PLANTED_ macro).
TEST_CASE("sandbox - each of lesson 10's mistakes made by independent code is named", "[exercises][sandbox][lesson10][slow]") {
    const std::pair<const char*, const char*> traps[] = {
        {"planted/scale_left_out.cpp", "your dQ and dK are √d_k times too large"},
        {"planted/row_sum_forgotten.cpp", "your softmax's backward is dS = P ∘ dP"},
        {"planted/query_key_swapped.cpp", "your dQ and dK are in each other's place"},
        {"planted/value_transpose_forgotten.cpp", "your dV is P dO"},
        {"planted/mask_ignored.cpp", "your backward recomputes the weights without the mask"},
        {"planted/nan_for_fully_masked_backward.cpp", "a query whose keys are all hidden got NaN weights"},
    };
    expect_each_named(10, traps);
}

// Every mistake exercise 11 names, made by a second, independent implementation
// (tests/data/exercises/independent/training.cpp with one PLANTED_ macro).
TEST_CASE("sandbox - each of lesson 11's mistakes made by independent code is named", "[exercises][sandbox][lesson11][slow]") {
    const std::pair<const char*, const char*> traps[] = {
        {"planted/targets_not_shifted.cpp", "your targets are the decoder's own input"},
        {"planted/smoothing_on_padding.cpp", "your label smoothing gives the padding class a share"},
        {"planted/warmup_branch_inverted.cpp", "your schedule takes the larger of its two branches"},
        {"planted/bias_correction_missing.cpp", "your Adam update leaves out the bias correction"},
        {"planted/gradients_not_zeroed.cpp", "your training loop never clears its gradient buffer"},
    };
    expect_each_named(11, traps);
}

ATTN_PER_LESSON_TEST("a correct implementation passes its exercise through attn exercise", "[exercises][sandbox][slow]",
                     correct_implementation_passes, attn::testing::with_exercise)

TEST_CASE("sandbox - hints follow the failing step and are used up only by changed numbers", "[exercises][sandbox][lesson01][slow]") {
    TempDir state, files;
    const std::string stub = ATTN_SOURCE_DIR "/lessons/01-dot-product/exercise/stub.cpp";
    // The untouched stub shows the first hint, and records it: it is not shown twice.
    auto r = check(1, stub, state);
    CHECK_THAT(r.out, Catch::Contains("not implemented yet") && Catch::Contains("Hint 1 of 3 (scores)"));
    CHECK_THAT(progress_of(state), Catch::Contains("exercise 1 failing shown=1\n"));
    // Compile errors show none and use none, however often.
    attn::testing::write_file(files.path() + "/broken.cpp", "this is not C++\n");
    for (int i = 0; i < 3; ++i) {
        r = check(1, files.path() + "/broken.cpp", state);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.out, Catch::Contains("broken.cpp:1:") && !Catch::Contains("Hint"));
    }
    CHECK_THAT(progress_of(state), Catch::Contains("shown=1\n"));
    // Wrong weights: the next hint, up to the one about the weights (hint 2).
    r = check(1, fixtures + "planted/squeeze_trap.cpp", state);
    CHECK_THAT(r.out, Catch::Contains("Hint 2 of 3 (weights)\n"));
    CHECK_THAT(progress_of(state), Catch::Contains("shown=1,2 "));
    // The same numbers again: the same hint, said to be a repeat, none used up.
    r = check(1, fixtures + "planted/squeeze_trap.cpp", state);
    CHECK_THAT(r.out, Catch::Contains("Hint 2 of 3 (weights) — again: your numbers have not changed"));
    CHECK_THAT(progress_of(state), Catch::Contains("shown=1,2 "));
    // A wrong context only: the hint about the context.
    r = check(1, fixtures + "planted/context_unweighted.cpp", state);
    CHECK_THAT(r.out, Catch::Contains("Hint 3 of 3 (context)\n"));
    CHECK_THAT(progress_of(state), Catch::Contains("shown=1,2,3 "));
    // --hint with every hint seen: the last one again, without building anything.
    r = attn::testing::run_attn({"exercise", "1", "--hint"}, {{"ATTN_STATE_DIR", state.path()}});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Hint 3 of 3 (context)"));
}

TEST_CASE("sandbox - the hints climb from the first: a late step's mistake does not open with the near-answer",
          "[exercises][sandbox][lesson01]") {
    TempDir state;
    auto r = check(1, fixtures + "planted/context_unweighted.cpp", state);
    CHECK_THAT(r.out, Catch::Contains("Hint 1 of 3 (scores)\n") && !Catch::Contains("Hint 3 of 3"));
    CHECK_THAT(progress_of(state), Catch::Contains("shown=1 "));
}

TEST_CASE("sandbox - a missing --file and a time limit out of range are bad input", "[exercises][sandbox]") {
    TempDir state;
    auto r = check(1, state.path() + "/missing.cpp", state);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("missing.cpp"));
    r = check(1, fixtures + "independent/dot-product.cpp", state, {"--time-limit", "0"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--time-limit"));
}

// Removes what a hostile file managed to write (only the fallback lets it), and says whether there was any.
bool remove_written_by_student() {
    bool any = false;
    const char* home = std::getenv("HOME");
    for (const std::string& path : {std::string(ATTN_BUILD_PATH "/exercises/.written-by-student"),
                                    std::string(ATTN_BUILD_PATH "/../.written-by-student"),
                                    std::string(home ? home : "/nonexistent") + "/.written-by-student"}) {
        any = ::unlink(path.c_str()) == 0 || any;
    }
    return any;
}

TEST_CASE("sandbox - the student's program cannot write outside its scratch folder, reach the terminal, signal, "
          "trace or exec, nor open a socket",
          "[exercises][sandbox][isolation][slow]") {
    TempDir state;
    remove_written_by_student();
    auto r = check(1, fixtures + "hostile/reach_outside.cpp", state);
    INFO(r.out << r.err);
    if (fallback_said(r)) {
        WARN("user namespaces are not available here: the fallback's isolation was checked below only");
    } else {
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("7 passed, 0 failed") && !Catch::Contains("got through"));
        CHECK(r.out.find('\x1b') == std::string::npos);
        CHECK_FALSE(remove_written_by_student());
    }
    // The fallback (forced): no namespaces, so the file system is as writable as for the user
    // (documented), but the seccomp filter and the new session hold: no signal, no ptrace, no exec,
    // no socket, no /dev/tty. It says so, once.
    r = check(1, fixtures + "hostile/reach_outside.cpp", state, {}, {{"ATTN_SANDBOX", "fallback"}});
    remove_written_by_student();
    CHECK(r.exit_code == 1);
    CHECK(fallback_said(r));
    CHECK(r.err.find("ATTN_SANDBOX=fallback") == r.err.rfind("ATTN_SANDBOX=fallback"));
    CHECK_THAT(r.out, Catch::Contains("got through: wrote in the build"));
    for (const char* refused : {"stopped its parent", "attached to its parent", "ran build/attn", "network socket", "/dev/tty"}) {
        CHECK_THAT(r.out, !Catch::Contains(refused));
    }
}

TEST_CASE("sandbox - a process left behind (new session, double fork, holding the report channel) is stopped, "
          "and the program's end is said as such",
          "[exercises][sandbox][isolation][slow]") {
    for (const std::string mode : {"", "fallback"}) {
        TempDir state;
        const auto r = check(1, fixtures + "hostile/escapee.cpp", state, {}, {{"ATTN_SANDBOX", mode}});
        INFO(mode << "\n" << r.out << r.err);
        CHECK(r.exit_code == 1);
        CHECK_THAT(one_line(r.out), Catch::Contains("your program ended (exit status 0) in case") && !Catch::Contains("endless loop"));
        // The sentence is wrapped to the terminal: compared with its words joined by single spaces.
        if (fallback_said(r)) CHECK_THAT(one_line(r.out), Catch::Contains("still held its report channel (file descriptor 4) open"));
        CHECK_FALSE(process_named("attn-escapee"));
        CHECK_THAT(progress_of(state), Catch::Contains("exercise 1 failing"));
    }
}

TEST_CASE("sandbox - escape sequences from the student's program never reach the terminal raw", "[exercises][sandbox][slow]") {
    const auto r = expect_run(1, "hostile/forged_report.cpp", 1, {"your code crashed (undefined behaviour: \\x1b[2J", "\\x1b[2J\\x1b[H"});
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK_THAT(r.out, !Catch::Contains("\nExercise 1 passes."));
}

TEST_CASE("sandbox - the run's nonce is neither in the environment nor in /proc/self/environ", "[exercises][sandbox][slow]") {
    expect_run(1, "hostile/static_nonce.cpp", 0, {"7 passed, 0 failed"});
}

TEST_CASE("sandbox - the exercise's solution and the library's sources cannot be included", "[exercises][sandbox][slow]") {
    expect_run(1, "hostile/include_solution.cpp", 1, {"your code does not compile", "solution.cpp: No such file"});
    const auto r = expect_run(1, "hostile/include_library_source.cpp", 1, {});
    CHECK_THAT(one_line(r.out), Catch::Contains("Your file includes src/lib/dot_attention.cpp, which exercise 1 does not allow") ||
                          Catch::Contains("your code does not compile"));
    CHECK_THAT(r.out, !Catch::Contains("Exercise 1 · "));
}

TEST_CASE("sandbox - one maximum for the whole batch fails where the rows' scores are hundreds apart",
          "[exercises][sandbox][lesson01][slow]") {
    expect_run(1, "planted/shared_maximum.cpp", 1, {"rows hundreds apart", "The first step that differs is 'weights'"});
}

TEST_CASE("sandbox - a folder given as the student's file is said to be a folder", "[exercises][sandbox]") {
    TempDir state;
    const auto r = check(1, state.path(), state);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("directory") || Catch::Contains("folder"));
}
