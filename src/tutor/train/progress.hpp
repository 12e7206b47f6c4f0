// tutor/train/progress.hpp — the line `attn train copy` redraws while an epoch runs.
//
// Why: an epoch of the default run takes about half a second, one of `--size annotated` minutes;
// in front of a class a silent terminal looks like a hang. On a terminal one line on standard
// error shows where the run is — epoch e/E, step k/n, the mean loss of the epoch's steps so far,
// the time since training began — and is redrawn in place (a carriage return, then "erase to the
// end of the line"), at most ten times a second and always at an epoch's first and last step.
// In a pipe or a file nothing is drawn, so a log holds the per-epoch lines only (the project's
// rule for redrawing, tutor/terminal/terminal.hpp: redraw_columns).
//
//   attn::tutor::TrainingProgress progress(attn::tutor::redraw_columns(STDERR_FILENO));
//   progress.show({epoch, epochs, step, steps, loss_sum / step, seconds});
//   progress.clear();   // before a line of its own is printed
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace attn::tutor {

/// Where a run is: step `step` of `steps` (from 1) in epoch `epoch` of `epochs`.
struct ProgressPoint {
    std::size_t epoch = 0, epochs = 0;
    std::size_t step = 0, steps = 0;
    double running_loss = 0;  // the mean loss of the epoch's steps so far
    double seconds = 0;       // since the training began
};

/// "epoch 3/15  step 12/20  loss 1.2345  4.2 s" in the current language, cut to `columns` − 1
/// columns (the last column is left free: writing into it wraps on some terminals).
std::string progress_line(const ProgressPoint& point, std::size_t columns);

/// The redrawn line on standard error; does nothing when constructed with no columns.
class TrainingProgress {
public:
    explicit TrainingProgress(std::optional<std::size_t> columns);
    ~TrainingProgress();
    TrainingProgress(const TrainingProgress&) = delete;
    TrainingProgress& operator=(const TrainingProgress&) = delete;

    /// Redraws the line, unless it was drawn less than 0.1 s ago and this is neither the epoch's
    /// first nor its last step.
    void show(const ProgressPoint& point);
    /// Erases the line, if one is shown, so that other text starts on a clean line.
    void clear();

private:
    std::optional<std::size_t> columns_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point last_drawn_{};
};

}  // namespace attn::tutor
