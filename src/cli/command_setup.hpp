// cli/command_setup.hpp — each command's CLI11 set-up (command_setup.cpp): adds the subcommand to
// `app`, with the options that fill `options`, and returns it. main.cpp wires each set-up to its
// run function (cli/commands.hpp) in one table.
#pragma once

#include "cli/commands.hpp"

namespace CLI {
class App;
}

namespace attn::cli {

CLI::App* setup_list(CLI::App& app, ListOptions& options);
CLI::App* setup_lesson(CLI::App& app, LessonOptions& options);
CLI::App* setup_check(CLI::App& app, CheckOptions& options);
CLI::App* setup_compute(CLI::App& app, ComputeOptions& options);
CLI::App* setup_run(CLI::App& app, RunOptions& options);
CLI::App* setup_train(CLI::App& app, TrainOptions& options);
CLI::App* setup_exercise(CLI::App& app, ExerciseOptions& options);
CLI::App* setup_progress(CLI::App& app, ProgressOptions& options);
CLI::App* setup_bench(CLI::App& app, BenchOptions& options);
CLI::App* setup_heatmap(CLI::App& app, HeatmapOptions& options);
CLI::App* setup_view(CLI::App& app, ViewOptions& options);

}  // namespace attn::cli
