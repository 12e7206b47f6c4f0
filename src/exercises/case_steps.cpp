#include "case_steps.hpp"

#include <algorithm>
#include <cmath>

#include "tutor/language.hpp"

namespace attn::exercises {

std::vector<DynamicTensor> StepSelection::pick(const std::vector<DynamicTensor>& all) const {
    std::vector<DynamicTensor> picked;
    for (std::size_t index : kept) picked.push_back(all.at(index));
    return picked;
}

StepSelection all_steps(const std::vector<std::string>& names, const std::vector<DynamicTensor>& right) {
    StepSelection steps;
    for (std::size_t i = 0; i < names.size(); ++i) {
        steps.expected.push_back({names[i], right.at(i)});
        steps.kept.push_back(i);
    }
    return steps;
}

StepSelection document_steps(const tutor::LessonDocument& document, const std::string& example,
                             const std::vector<std::string>& names, const std::vector<std::string>& written_names) {
    StepSelection steps;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (written_names.at(i).empty()) continue;
        for (const auto& block : document.blocks) {
            if (block.kind != tutor::LessonBlock::Kind::expect || block.example != example || block.name != written_names[i]) continue;
            const DynamicTensor& expected = block.literal.tensor;
            std::vector<double> resolution = block.literal.resolution;
            if (block.absolute_tolerance || block.relative_tolerance) {
                resolution.resize(expected.size(), 0.0);
                for (std::size_t k = 0; k < expected.size(); ++k) {
                    resolution[k] += block.absolute_tolerance.value_or(0.0) +
                                     block.relative_tolerance.value_or(0.0) * std::abs(expected.data()[k]);
                }
            }
            steps.expected.push_back({names[i], expected, std::move(resolution)});
            steps.kept.push_back(i);
            break;
        }
    }
    return steps;
}

MultiHeadAttentionWeights random_attention_weights(RandomInputs& draw, std::size_t D, bool with_w_o, bool with_b_o) {
    const double weight_spread = 2.0 / std::sqrt(double(D));
    MultiHeadAttentionWeights weights;
    weights.w_q = draw.normal<Matrix>({D, D}, weight_spread);
    weights.w_k = draw.normal<Matrix>({D, D}, weight_spread);
    weights.w_v = draw.normal<Matrix>({D, D}, weight_spread);
    weights.b_q = draw.normal<Vector>({D}, 0.5);
    weights.b_k = draw.normal<Vector>({D}, 0.5);
    weights.b_v = draw.normal<Vector>({D}, 0.5);
    weights.no_output_projection = !with_w_o;
    if (with_w_o) weights.w_o = draw.normal<Matrix>({D, D}, weight_spread);
    if (with_w_o && with_b_o) weights.b_o = draw.normal<Vector>({D}, 0.5);
    return weights;
}

double overflowing_scale(const DynamicTensor& scores) {
    const std::size_t columns = scores.dimension() == 0 ? 1 : scores.shape().back();
    double scale = 1.0;
    for (std::size_t row = 0; columns > 0 && row < scores.size() / columns; ++row) {
        double largest = -INFINITY;
        for (std::size_t j = 0; j < columns; ++j) largest = std::max(largest, scores.data()[row * columns + j]);
        if (!std::isfinite(largest) || largest == 0.0) continue;
        scale = std::max(scale, 1.1 * 750.0 / std::fabs(largest));
    }
    return scale;
}

double rows_apart_factor(const std::function<DynamicTensor(double)>& scores_with) {
    for (double factor = 1.0; factor < 1e12; factor *= 2.0) {
        const DynamicTensor scores = scores_with(factor);
        const std::size_t columns = scores.dimension() == 0 ? 1 : scores.shape().back();
        double highest = -INFINITY, lowest = INFINITY;
        for (std::size_t row = 0; columns > 0 && row < scores.size() / columns; ++row) {
            double largest = -INFINITY;
            for (std::size_t j = 0; j < columns; ++j) largest = std::max(largest, scores.data()[row * columns + j]);
            if (!std::isfinite(largest)) continue;  // a row whose keys are all hidden
            highest = std::max(highest, largest);
            lowest = std::min(lowest, largest);
        }
        if (highest - lowest >= 800.0) return factor;
    }
    return 1.0;
}

const std::vector<EncoderDecoderShape>& encoder_decoder_shapes() {
    static const std::vector<EncoderDecoderShape> shapes = {
        {N_("random inputs, B = 3, S = 5, H = 4 (compared with the library)"), 3, 5, 4, 1, false},
        {N_("a batch of one, B = 1, S = 4, H = 3"), 1, 4, 3, 2, false},
        {N_("a single source position, B = 2, S = 1, H = 5"), 2, 1, 5, 3, false},
        {N_("scores in the hundreds, B = 2, S = 4, H = 3 (e^score overflows without the maximum subtracted)"), 2, 4, 3, 4, true},
        {N_("rows hundreds apart, B = 3, S = 4, H = 3 (one maximum for the whole batch underflows on the lower rows)"), 3, 4, 3,
         5, false, true},
    };
    return shapes;
}

Case make_case(std::string name, std::string call, NamedTensors inputs, const StepSelection& steps, tutor::Tolerance tolerance) {
    Case c;
    c.name = std::move(name);
    c.call = std::move(call);
    c.inputs = std::move(inputs);
    c.expected = steps.expected;
    c.tolerance = tolerance;
    return c;
}

KnownMistake softmax_over_batch_mistake() {
    return {"softmax_over_batch", tutor::tr("the softmax ran over the batch axis (dim=0) instead of over the source positions (dim=1): "
                                     "each row of weights must sum to 1.")};
}

KnownMistake unshifted_softmax_mistake(const std::string& remedy) {
    return {"unshifted_softmax", tutor::tr("your softmax computes e^score without subtracting the row's maximum first: with scores in "
                                    "the hundreds e^score overflows to ∞, and ∞ / ∞ is NaN.") + " " + remedy};
}

std::vector<std::string> prefixed(const std::string& prefix, const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& name : names) out.push_back(prefix + name);
    return out;
}

}  // namespace attn::exercises
