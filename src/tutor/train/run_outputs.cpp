// What a training run writes, and what a stop reports (tutor/train/run_outputs.hpp).
#include "tutor/train/run_outputs.hpp"

#include <csignal>
#include <utility>

#include "attn/printable.hpp"
#include "tutor/language.hpp"
#include "tutor/train/copy_files.hpp"

namespace attn::tutor {

RunOutputs::RunOutputs(std::string save, std::string log, std::vector<InputPath> inputs)
    : save_(std::move(save)), log_(std::move(log)), inputs_(std::move(inputs)) {}

void RunOutputs::write(const CopyTrainer& trainer, const std::vector<TrainingStepResult>& log) {
    if ((save_.empty() && log_.empty()) || log.size() == written_steps_) return;
    std::vector<OutputFile> files;
    if (!log_.empty()) files.push_back({log_, training_log_json(log), "--log"});
    if (!save_.empty()) files.push_back({save_, copy_checkpoint_npz(current_weights(trainer), trainer.options), "--save"});
    write_files_atomically(files, inputs_);
    written_steps_ = log.size();
}

std::string stop_report(const StopPoint& point, const RunOutputs& outputs) {
    const std::string by = point.signal_number == SIGINT ? "Ctrl-C" : point.signal_number == SIGTERM ? "SIGTERM"
                                                                        : "signal " + std::to_string(point.signal_number);
    if (point.steps_done == 0) return trf("Stopped by {1} before the first training step; nothing was written.", {by}) + "\n";
    const std::string n = std::to_string(point.steps_done);
    std::string report =
        trn("Stopped by {1} after {2} training step (epoch {3}, step {4} of {5}).",
            "Stopped by {1} after {2} training steps (epoch {3}, step {4} of {5}).", point.steps_done,
            {by, n, std::to_string(point.epoch), std::to_string(point.epoch_steps_done), std::to_string(point.steps_per_epoch)}) +
        "\n";
    if (outputs.written_steps() != point.steps_done) {
        return report + tr("Nothing was written: give --save model.npz to keep the model (--log FILE for the losses).") + "\n";
    }
    std::vector<std::string> kept;
    if (!outputs.save().empty()) kept.push_back(trf("{1} (the model after step {2})", {printable_text(outputs.save()), n}));
    if (!outputs.log().empty()) {
        kept.push_back(trn("{1} ({2} step)", "{1} ({2} steps)", point.steps_done, {printable_text(outputs.log()), n}));
    }
    std::string files;
    for (const std::string& file : kept) files += (files.empty() ? "" : ", ") + file;
    return report + trf("Kept: {1}.", {files}) + "\n";
}

}  // namespace attn::tutor
