// Exercise 11's cases: exercise::teacher_forcing on the lesson's sequence (the document's
// values), sequences a reader can split by hand (one padded), the shortest (L = 2) and seeded
// ones; exercise::smoothed_cross_entropy on the lesson's loss and label-smoothing examples (the
// document's values), rows worked by hand (ε = 0 with a padding row, ε = 0.2), seeded rows with
// ε = 0.1 and ε = 0, and logits near 1000; exercise::noam_rate on the Annotated Transformer's schedule and a small one, both
// sides of the warm-up; exercise::adam_update from a fresh memory (by hand) and from a memory six
// updates old; exercise::train on seeded quadratic losses through the warm-up, and one update.
//
// The right values: the library's PyTorch-tested functions — tutor::teacher_forcing,
// attn::cross_entropy and attn::cross_entropy_backward (F.cross_entropy and the Annotated
// Transformer's LabelSmoothing, tests/test_cross_entropy.cpp), attn::adam_step (torch.optim.Adam)
// and attn::noam_learning_rate (the Annotated Transformer's rate()). Tolerance 1e-9: double.
//
// Which case tells which mistake: targets left unshifted (the decoder's input again) differ in
// every teacher-forcing case (no sequence holds one symbol throughout); ε / (V − 1)
// over the padding class shows wherever ε > 0 (not in the ε = 0 cases); the max of the schedule's
// branches shows at every step but the warm-up's last; missing bias correction shows in every
// Adam and training case (1 − βᵗ < 1 for any t); a gradient buffer never cleared shows from the
// second update of a training run on (not in the single-update case).
#include <cmath>
#include <random>

#include <xtensor/xadapt.hpp>

#include "11-training/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"
#include "tutor/train/copy_training.hpp"

namespace attn::exercises {

namespace {

const tutor::Tolerance tight{1e-9, 1e-9};
using mistakes::TrainingSlip;

// ---- teacher forcing ----

const std::vector<std::string> forcing_steps = {"decoder_input", "targets"};

// `written`: the document's steps and values, for its worked example; otherwise every step,
// expected from the library.
Case teacher_forcing_case(std::string name, const Matrix& tgt, const StepSelection* written = nullptr) {
    IdTensor ids = IdTensor::from_shape(tgt.shape());
    std::copy(tgt.begin(), tgt.end(), ids.begin());
    const tutor::TeacherForcing right = tutor::teacher_forcing(ids);
    const Matrix decoder_input = xt::cast<double>(right.decoder_input), targets = xt::cast<double>(right.targets);
    const StepSelection steps = written ? *written : all_steps(forcing_steps, {decoder_input, targets});
    Case c = make_case(std::move(name), "teacher_forcing", {{"tgt", tgt}}, steps, tight);
    c.mistakes = [=] {
        return MistakeTable{{"targets_not_shifted", steps.pick({decoder_input, mistakes::unshifted_targets(tgt)})}};
    };
    return c;
}

// B copy-task sequences of L symbols: the start symbol 1, then seeded symbols 2 … V − 1, the
// last `padded[b]` positions of sequence b padding (0).
Matrix seeded_sequences(unsigned seed, std::size_t B, std::size_t L, std::size_t V, const std::vector<std::size_t>& padded) {
    std::mt19937 generator(seed);
    Matrix tgt = Matrix::from_shape({B, L});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < L; ++t)
            tgt(b, t) = t == 0 ? 1.0 : t + padded.at(b) >= L ? 0.0 : double(2 + generator() % (V - 2));
    return tgt;
}

// ---- the smoothed cross-entropy ----

std::vector<DynamicTensor> loss_values(const mistakes::SmoothedLossSteps& s) {
    return {s.target_distribution, number(s.loss), s.grad_logits};
}

const std::vector<std::string> loss_steps = {"target_distribution", "loss", "grad_logits"};

Case cross_entropy_case(std::string name, const Matrix& logits, const std::vector<std::int64_t>& targets, double smoothing,
                        const StepSelection* written = nullptr) {
    constexpr std::int64_t padding = 0;
    Vector ids = Vector::from_shape({targets.size()});
    std::copy(targets.begin(), targets.end(), ids.begin());
    const StepSelection steps =
        written ? *written
                : all_steps(loss_steps, loss_values(mistakes::smoothed_loss_with(logits, targets, padding, smoothing, false)));
    Case c = make_case(std::move(name), "smoothed_cross_entropy",
                       {{"logits", logits}, {"targets", ids}, {"padding", number(padding)}, {"smoothing", number(smoothing)}},
                       steps, tight);
    c.mistakes = [=] {
        return MistakeTable{
            {"smoothing_on_padding",
             steps.pick(loss_values(mistakes::smoothed_loss_with(logits, targets, padding, smoothing, true)))}};
    };
    return c;
}

// The document's loss example `example` (padding 0; ε from its label_smoothing input, 0 without
// one), compared with the steps it writes.
Case document_loss_case(const tutor::LessonDocument& document, std::string name, const std::string& example) {
    const auto inputs = document.inputs(example);
    const Matrix logits = inputs.at("logits");
    std::vector<std::int64_t> targets;
    for (const double id : inputs.at("targets")) targets.push_back(std::int64_t(std::lround(id)));
    const double smoothing = inputs.count("label_smoothing") ? inputs.at("label_smoothing")(0) : 0.0;
    const std::vector<std::string> written_names = {smoothing > 0 ? "target_distribution" : "", "loss", "grad_logits"};
    const StepSelection steps = document_steps(document, example, loss_steps, written_names);
    return cross_entropy_case(std::move(name), logits, targets, smoothing, &steps);
}

Case seeded_cross_entropy_case(std::string name, unsigned seed, std::size_t V, const std::vector<std::int64_t>& targets,
                               double smoothing, double mean = 0.0) {
    RandomInputs draw(seed);
    return cross_entropy_case(std::move(name), draw.normal<Matrix>({targets.size(), V}, 1.0, mean), targets, smoothing);
}

// ---- the schedule ----

Case noam_case(std::string name, const std::vector<std::size_t>& steps, std::size_t d_model, double factor, std::size_t warmup) {
    const auto rates = [=](TrainingSlip slip) {
        Vector out = Vector::from_shape({steps.size()});
        for (std::size_t i = 0; i < steps.size(); ++i) out(i) = mistakes::noam_with(steps[i], d_model, factor, warmup, slip);
        return DynamicTensor(out);
    };
    Vector step_values = Vector::from_shape({steps.size()});
    std::copy(steps.begin(), steps.end(), step_values.begin());
    Case c = make_case(std::move(name), "noam_rate",
                       {{"steps", step_values}, {"d_model", number(double(d_model))}, {"factor", number(factor)},
                        {"warmup", number(double(warmup))}},
                       all_steps({"learning_rate"}, {rates(TrainingSlip::none)}), tight);
    c.mistakes = [=] { return MistakeTable{{"warmup_branch_inverted", {rates(TrainingSlip::warmup_branch_inverted)}}}; };
    return c;
}

// ---- one Adam update ----

struct AdamInputs {
    Vector parameters, gradients, m, v;  // m and v: empty for a fresh memory
    std::size_t steps_taken;
    double learning_rate;
};

std::vector<DynamicTensor> adam_values(const AdamInputs& in, TrainingSlip slip) {
    std::vector<double> parameters(in.parameters.begin(), in.parameters.end());
    AdamState state{in.steps_taken, {in.m.begin(), in.m.end()}, {in.v.begin(), in.v.end()}};
    mistakes::adam_update_with(parameters, {in.gradients.begin(), in.gradients.end()}, state, in.learning_rate, slip);
    const auto vector_of = [](const std::vector<double>& values) {
        return DynamicTensor(xt::adapt(values, {values.size()}));
    };
    return {vector_of(parameters), vector_of(state.first_moment), vector_of(state.second_moment)};
}

Case adam_case(std::string name, const AdamInputs& in) {
    NamedTensors inputs{{"parameters", in.parameters},
                        {"gradients", in.gradients},
                        {"steps_taken", number(double(in.steps_taken))},
                        {"learning_rate", number(in.learning_rate)}};
    if (in.steps_taken > 0) {
        inputs["m"] = in.m;
        inputs["v"] = in.v;
    }
    Case c = make_case(std::move(name), "adam_update", inputs,
                       all_steps({"parameters", "first_moment", "second_moment"}, adam_values(in, TrainingSlip::none)), tight);
    c.mistakes = [=] { return MistakeTable{{"bias_correction_missing", adam_values(in, TrainingSlip::bias_correction_missing)}}; };
    return c;
}

// A memory `steps_taken` updates old: seeded m (spread 0.1) and v (squares of spread 0.1, v ≥ 0).
AdamInputs seeded_adam(unsigned seed, std::size_t P, std::size_t steps_taken, double learning_rate) {
    RandomInputs draw(seed);
    AdamInputs in{draw.normal<Vector>({P}), draw.normal<Vector>({P}), {}, {}, steps_taken, learning_rate};
    if (steps_taken > 0) {
        in.m = draw.normal<Vector>({P}, 0.1);
        in.v = xt::square(draw.normal<Vector>({P}, 0.1));
    }
    return in;
}

// ---- the training loop ----

struct TrainingInputs {
    Vector initial;
    mistakes::QuadraticBatches batches;
    mistakes::NoamSchedule schedule;
};

std::vector<DynamicTensor> training_values(const TrainingInputs& in, TrainingSlip slip) {
    const mistakes::TrainingRecord r = mistakes::train_with(in.initial, in.batches, in.schedule, slip);
    return {r.learning_rates, r.gradients_used, r.parameters};
}

Case training_case(std::string name, unsigned seed, std::size_t K, std::size_t P, mistakes::NoamSchedule schedule) {
    RandomInputs draw(seed);
    TrainingInputs in{draw.normal<Vector>({P}), {draw.normal<Matrix>({K, P}), Matrix()}, schedule};
    in.batches.curvatures = xt::abs(draw.normal<Matrix>({K, P})) + 0.5;  // each batch's bowl, curving upwards
    Case c = make_case(std::move(name), "train",
                       {{"parameters", in.initial},
                        {"centres", in.batches.centres},
                        {"curvatures", in.batches.curvatures},
                        {"d_model", number(double(schedule.d_model))},
                        {"factor", number(schedule.factor)},
                        {"warmup", number(double(schedule.warmup))}},
                       all_steps({"learning_rates", "gradients_used", "parameters_after"}, training_values(in, TrainingSlip::none)),
                       tight);
    c.mistakes = [=] {
        MistakeTable table;
        const std::pair<const char*, TrainingSlip> slips[] = {{"bias_correction_missing", TrainingSlip::bias_correction_missing},
                                                              {"warmup_branch_inverted", TrainingSlip::warmup_branch_inverted},
                                                              {"gradients_not_zeroed", TrainingSlip::gradients_not_zeroed}};
        for (const auto& [id, slip] : slips) table[id] = training_values(in, slip);
        return table;
    };
    return c;
}

std::vector<KnownMistake> known_mistakes() {
    return {
        {"targets_not_shifted",
         tutor::tr("your targets are the decoder's own input, tgt[:, :-1]: a model scored on the symbol it reads learns "
                   "to echo it. Position t reads tgt[t] and is scored on the symbol after it, so targets = tgt[:, 1:].")},
        {"smoothing_on_padding",
         tutor::tr("your label smoothing gives the padding class a share, ε / (V − 1) on every class but the target: "
                   "padding is never a right answer, so it gets 0 and the other V − 2 classes share ε, ε / (V − 2) each.")},
        {"warmup_branch_inverted",
         tutor::tr("your schedule takes the larger of its two branches: the rate must be the smaller one, "
                   "min(step^(−1/2), step · warmup^(−3/2)), so that it grows during the warm-up and decays after it.")},
        {"bias_correction_missing",
         tutor::tr("your Adam update leaves out the bias correction: m and v start at 0 and stay too small in the first "
                   "updates, so divide them by 1 − β1ᵗ and 1 − β2ᵗ (t = the update's number, from 1) before the step.")},
        {"gradients_not_zeroed",
         tutor::tr("your training loop never clears its gradient buffer: backward adds into it, so update k used the sum "
                   "of batches 1 … k's gradients. Fill it with zeros before each batch's backward (zero_grad).")},
    };
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("the training step's pieces: teacher forcing, the smoothed loss, Adam and its schedule");
    e.practised = "teacher_forcing, smoothed_cross_entropy, noam_rate, adam_update and train";
    e.mistakes = known_mistakes();
    const double log2 = std::log(2.0);
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    const StepSelection forcing_written = document_steps(document, "forcing", forcing_steps, forcing_steps);
    e.cases = {
        teacher_forcing_case(tutor::tr("the lesson's teacher forcing (expected values from the lesson document)"),
                             document.inputs("forcing").at("tgt"), &forcing_written),
        teacher_forcing_case(tutor::tr("teacher forcing by hand: tgt = [1, 4, 7, 2, 9] and [1, 3, 5, 0, 0] (padded)"),
                             Matrix{{1, 4, 7, 2, 9}, {1, 3, 5, 0, 0}}),
        teacher_forcing_case(tutor::tr("teacher forcing, the shortest sequence: tgt = [1, 6]"), Matrix{{1, 6}}),
        teacher_forcing_case(tutor::tr("teacher forcing, 4 seeded sequences of 7 symbols, two of them padded"),
                             seeded_sequences(41, 4, 7, 11, {0, 2, 0, 4})),
        document_loss_case(document, tutor::tr("the lesson's loss of three positions, one of them padding, ε = 0 (the "
                                               "document's values)"),
                           "loss"),
        document_loss_case(document, tutor::tr("the lesson's label smoothing, ε = 0.4 over V = 6 (the document's values)"),
                           "smoothing"),
        cross_entropy_case(tutor::tr("the loss by hand, ε = 0: logits [0, 0, ln 2, 0] (p = [1/5, 1/5, 2/5, 1/5]) with "
                                     "target 2, loss ln(5/2); a second row whose target is padding is not counted"),
                           Matrix{{0, 0, log2, 0}, {5, 1, 2, 3}}, {2, 0}, 0.0),
        cross_entropy_case(tutor::tr("the loss by hand, ε = 0.2: the same row, q = [0, 0.1, 0.8, 0.1]"),
                           Matrix{{0, 0, log2, 0}}, {2}, 0.2),
        seeded_cross_entropy_case(tutor::tr("the loss, 6 seeded rows of V = 7, ε = 0.1, rows 2 and 5 padding"), 42, 7,
                                  {3, 1, 0, 6, 2, 0}, 0.1),
        seeded_cross_entropy_case(tutor::tr("the loss without smoothing, 5 seeded rows of V = 5, ε = 0"), 43, 5,
                                  {4, 0, 2, 1, 3}, 0.0),
        seeded_cross_entropy_case(tutor::tr("the loss, logits near 1000 (e^1000 overflows: subtract each row's maximum "
                                            "first), 4 rows of V = 6, ε = 0.1"),
                                  44, 6, {5, 2, 2, 0}, 0.1, 1000.0),
        noam_case(tutor::tr("the Annotated Transformer's schedule, d_model = 512, factor 1, warm-up 400, steps 0 to 4000"),
                  {0, 1, 2, 100, 399, 400, 401, 1000, 4000}, 512, 1.0, 400),
        noam_case(tutor::tr("a small schedule, d_model = 8, factor 2, warm-up 4, steps 0 to 8"), {0, 1, 2, 3, 4, 5, 6, 7, 8},
                  8, 2.0, 4),
        adam_case(tutor::tr("Adam by hand, the first update: θ = [1, −2, 3], g = [0.5, −0.25, 0], rate 0.1: "
                            "m̂ = g and v̂ = g², so θ ≈ [0.9, −1.9, 3]"),
                  {Vector{1, -2, 3}, Vector{0.5, -0.25, 0}, {}, {}, 0, 0.1}),
        adam_case(tutor::tr("Adam, update 7 of 5 seeded parameters (a memory six updates old), rate 0.01"),
                  seeded_adam(45, 5, 6, 0.01)),
        adam_case(tutor::tr("Adam, the first update of 6 seeded parameters, rate 0.002"), seeded_adam(46, 6, 0, 0.002)),
        training_case(tutor::tr("training, 4 updates of 3 seeded parameters, d_model = 4, factor 1, warm-up 2"), 47, 4, 3,
                      {4, 1.0, 2}),
        training_case(tutor::tr("training, 6 updates of 5 seeded parameters, d_model = 8, factor 2, warm-up 3"), 48, 6, 5,
                      {8, 2.0, 3}),
        training_case(tutor::tr("training, a single update of 2 seeded parameters, d_model = 4, factor 1, warm-up 2"), 49,
                      1, 2, {4, 1.0, 2}),
    };
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
