// tutor/train/run_outputs.hpp — what a training run writes (--save, --log), and when: at the end
// of every epoch, at the end of the run, and when Ctrl-C or SIGTERM stops it
// (tutor/train/interrupt.hpp).
//
// Why at every epoch: a run killed without warning (kill -9, a closed laptop) still leaves the
// last epoch's model and log, whole, because every write replaces both files at once, all or none
// (attn/files.hpp: write_files_atomically). The model and the log always describe the same step.
//
//   attn::tutor::RunOutputs outputs{"model.npz", "log.json", {{"--init", "start.npz"}}};
//   outputs.write(trainer, log);                     // after each epoch
//   std::cerr << attn::tutor::stop_report({SIGINT, log.size(), 2, 7, 20}, outputs);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attn/files.hpp"
#include "tutor/train/copy_training.hpp"

namespace attn::tutor {

class RunOutputs {
public:
    RunOutputs(std::string save, std::string log, std::vector<InputPath> inputs);

    /// Writes the model (--save) and the steps' log (--log) as they are now, both or neither,
    /// unless no file was asked for or the files already hold these steps. InputError naming the
    /// file when it cannot be written.
    void write(const CopyTrainer& trainer, const std::vector<TrainingStepResult>& log);

    /// The training steps the files on disk hold (0: nothing written yet).
    std::size_t written_steps() const { return written_steps_; }
    const std::string& save() const { return save_; }
    const std::string& log() const { return log_; }

private:
    std::string save_, log_;
    std::vector<InputPath> inputs_;
    std::size_t written_steps_ = 0;
};

/// Where a run was when a signal stopped it.
struct StopPoint {
    int signal_number = 0;        // SIGINT or SIGTERM
    std::size_t steps_done = 0;   // training steps finished, over every epoch
    std::size_t epoch = 0;        // the epoch (from 1) and the steps of it that were done
    std::size_t epoch_steps_done = 0;
    std::size_t steps_per_epoch = 0;
};

/// The lines said on standard error when a run stops: by what, after how many steps, and which
/// files hold them ("Kept: model.npz (the model after step 37), log.json (37 steps)"), or that
/// nothing was written.
std::string stop_report(const StopPoint& point, const RunOutputs& outputs);

}  // namespace attn::tutor
