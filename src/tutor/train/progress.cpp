// The training's progress line (tutor/train/progress.hpp).
#include "tutor/train/progress.hpp"

#include <cstdio>
#include <unistd.h>

#include "tutor/language.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

namespace {

std::string formatted(double value, const char* format) {
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

// The longest prefix of `text` that takes at most `columns` columns, cut between characters.
std::string cut_to_columns(const std::string& text, std::size_t columns) {
    std::size_t used = 0, at = 0;
    while (at < text.size()) {
        char32_t code_point = 0;
        const std::size_t length = utf8_character(text, at, code_point);
        const std::size_t width = static_cast<std::size_t>(code_point_width(code_point));
        if (used + width > columns) break;
        used += width;
        at += length;
    }
    return text.substr(0, at);
}

void write_to_stderr(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t written = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
        if (written <= 0) return;  // a terminal that went away: the progress line is not worth an error
        done += static_cast<std::size_t>(written);
    }
}

constexpr char erase_line[] = "\r\033[K";

}  // namespace

std::string progress_line(const ProgressPoint& p, std::size_t columns) {
    const std::string line = trf("epoch {1}/{2}  step {3}/{4}  loss {5}  {6} s",
                                 {std::to_string(p.epoch), std::to_string(p.epochs), std::to_string(p.step),
                                  std::to_string(p.steps), formatted(p.running_loss, "%.4f"),
                                  formatted(p.seconds, "%.1f")});
    return cut_to_columns(line, columns > 0 ? columns - 1 : 0);
}

TrainingProgress::TrainingProgress(std::optional<std::size_t> columns) : columns_(columns) {}

TrainingProgress::~TrainingProgress() { clear(); }

void TrainingProgress::show(const ProgressPoint& point) {
    if (!columns_) return;
    const auto now = std::chrono::steady_clock::now();
    const bool edge = point.step <= 1 || point.step >= point.steps;
    if (!edge && shown_ && now - last_drawn_ < std::chrono::milliseconds(100)) return;
    write_to_stderr(erase_line + progress_line(point, *columns_));
    shown_ = true;
    last_drawn_ = now;
}

void TrainingProgress::clear() {
    if (!shown_) return;
    write_to_stderr(erase_line);
    shown_ = false;
}

}  // namespace attn::tutor
