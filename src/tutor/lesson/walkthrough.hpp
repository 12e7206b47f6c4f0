// tutor/lesson/walkthrough.hpp — a lesson as the class sees it: steps, each made of prose and tensors,
// laid out for one terminal.
//
// Why: `attn lesson` shows the same content three ways — paged on a projector (pager.hpp), as
// screens dumped for a test (`--screens`), and as one continuous text for a pipe (`--no-pause`).
// This is that content, built once per terminal size: every line already fits terminal.width,
// and each tensor block is a part of its own, so that the pager can pause before it.
//
//   Walkthrough walk = build_walkthrough(run, terminal, TensorView::heatmap);
//   walk.steps[2].title;            // "Step 2 — Scores: one dot product per source position"
//   std::cout << continuous_text(walk, terminal, 0);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tutor/lesson/lessons.hpp"
#include "tutor/document/markdown.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

/// How a tensor block marked `heatmap` is shown: its heat map only (the default; the cells carry
/// the values, and a grid too wide for the screen falls back to the numbers), PyTorch's print
/// only, or both. Blocks without `heatmap` always show PyTorch's print.
enum class TensorView { heatmap, tensor, both };

/// Prose, or one tensor block (its title, print or heat map, and its check).
struct WalkPart {
    bool tensor = false;
    std::string text;  // lines that fit the terminal's width, ending in a newline
    // Lines of `text` that belong together, kept on one screen when they fit: a code block (a
    // diagram and its labels), a table, a tensor block whole, each heat-map grid with its caption
    // and legend.
    LineRanges keep;
    bool brief = false;  // one-line summaries of inputs seen before (no pause before them)
};

/// One `## ` section of the document (the introduction is step 0).
struct WalkStep {
    std::string title;  // the heading, inline marks removed
    int number = 0;     // N of a "Step N — …" heading; else the section's position
    std::vector<WalkPart> parts;
};

struct Walkthrough {
    int lesson_number = 0;
    std::string lesson_title;  // the document's `# ` title
    std::vector<WalkStep> steps;
    std::size_t passed = 0, failed = 0;  // over every check of the lesson
};

/// Which inputs are shown whole: all of them, or not those the class has seen already — an input
/// whose name and values equal one shown earlier in the lesson, and one marked `brief` (seen in an
/// earlier lesson), which are summarised on one line: name, shape, and where to find it.
enum class InputView { new_ones, all };

/// Every step of `run`, laid out for `terminal`.
Walkthrough build_walkthrough(const LessonRun& run, const Terminal& terminal, TensorView view,
                              InputView inputs = InputView::new_ones);

/// The step a class asks for with `--step N` or `g N`: the step whose heading says "Step N",
/// else the N-th section (0 = the introduction); empty when there is none.
std::optional<std::size_t> find_step(const Walkthrough& walkthrough, int number);

/// "── Step 2 — Scores ──────": a step's heading as a rule across the width (wrapped when long).
std::string step_rule(const Terminal& terminal, const std::string& title);

/// The walkthrough from step `first_step` on, as one text without pauses: each step's rule, then
/// its prose and tensors.
std::string continuous_text(const Walkthrough& walkthrough, const Terminal& terminal, std::size_t first_step);

}  // namespace attn::tutor
