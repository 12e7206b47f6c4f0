#include "tutor/compute/mask_conventions.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

std::string value_text(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    std::ostringstream text;
    text << value;
    return text.str();
}

// "key_padding_mask (2, 3) holds 2 at [0, 1]; " — the start of every refusal of a value.
std::string holds(const std::string& name, const DynamicTensor& mask, std::size_t flat) {
    const std::vector<std::size_t> shape(mask.shape().begin(), mask.shape().end());
    return trf("{1} {2} holds {3} at {4}", {name, shape_string(shape), value_text(mask.data()[flat]), index_string(flat, shape)}) +
           "; ";
}

// What each convention means, in the tutor's language where it is shown (tr).
const char* const pytorch_padding_text =
    N_("PyTorch's key padding mask, True/1 = ignore this key (bool or integer), or a float mask added to the scores "
       "(0 = attend, -inf = ignore)");
const char* const pytorch_scores_text =
    N_("PyTorch's attn_mask: bool, True = ignore this key; or float, added to the scores (0 = keep, -inf = hide)");

// Hugging Face attention_mask: 0/1 in any dtype, kept as it is.
Matrix read_attend_is_one(const std::string& name, const DynamicTensor& mask) {
    for (std::size_t i = 0; i < mask.size(); ++i) {
        const double value = mask.data()[i];
        if (value == 0.0 || value == 1.0) continue;
        throw InputError(holds(name, mask, i) +
                         tr("attention_mask is the Hugging Face convention: 1 = attend to this key, 0 = padding, so it "
                            "holds only 0 and 1. For PyTorch's masks give key_padding_mask (True = ignore) or attn_mask "
                            "(added to the scores, 0 / -inf) instead"));
    }
    return Matrix(mask);
}

// PyTorch key_padding_mask → the library's attention_mask (1 = attend).
Matrix read_ignore_is_true(const std::string& name, const DynamicTensor& mask, bool integer) {
    Matrix attend = Matrix::from_shape({mask.shape(0), mask.shape(1)});
    for (std::size_t i = 0; i < mask.size(); ++i) {
        const double value = mask.data()[i];
        const bool ignore = integer ? value == 1.0 : value == minus_infinity;
        const bool keep = value == 0.0;
        if (!ignore && !keep) {
            throw InputError(holds(name, mask, i) + trf("{1} is {2}", {name, tr(pytorch_padding_text)}) +
                             (integer ? std::string(".")
                                      : tr(". A float 1 would be added to the scores, as PyTorch adds it: save the mask as "
                                           "bool (mask.bool()), or as 0 / -inf")));
        }
        attend.data()[i] = ignore ? 0.0 : 1.0;
    }
    return attend;
}

// PyTorch attn_mask / src_mask → (1 or B·h, T, S) added to the scores.
Tensor3 read_scores_mask(const std::string& name, const DynamicTensor& mask, bool integer, const MaskSizes& sizes) {
    const std::vector<std::size_t> shape(mask.shape().begin(), mask.shape().end());
    const std::size_t rows = sizes.batch * sizes.heads;
    const bool two_d = shape.size() == 2 && shape[0] == sizes.queries && shape[1] == sizes.keys;
    const bool three_d = shape.size() == 3 && shape[0] == rows && shape[1] == sizes.queries && shape[2] == sizes.keys;
    if (!two_d && !three_d) {
        throw ShapeError(trf("{1} {2} must be (T, S) = ({3}, {4}) or (B·h, T, S) = ({5}, {3}, {4}), as PyTorch's attn_mask "
                             "(row b·h + j for sequence b, head j)",
                             {name, shape_string(shape), std::to_string(sizes.queries), std::to_string(sizes.keys),
                              std::to_string(rows)}));
    }
    Tensor3 added = Tensor3::from_shape({two_d ? 1 : rows, sizes.queries, sizes.keys});
    for (std::size_t i = 0; i < mask.size(); ++i) {
        const double value = mask.data()[i];
        if (integer) {
            if (value != 0.0 && value != 1.0) {
                throw InputError(holds(name, mask, i) + trf("{1} is {2}", {name, tr(pytorch_scores_text)}) +
                                 tr("; a bool or integer mask holds only 0 and 1"));
            }
            added.data()[i] = value == 1.0 ? minus_infinity : 0.0;
        } else {
            if (std::isnan(value) || value == -minus_infinity) {
                throw InputError(holds(name, mask, i) + trf("{1} is {2}", {name, tr(pytorch_scores_text)}) +
                                 tr("; nan and +inf are not masks"));
            }
            added.data()[i] = value;
        }
    }
    return added;
}

const DynamicTensor* find(const NamedTensors& inputs, const char* name) {
    const auto found = inputs.find(name);
    return found == inputs.end() ? nullptr : &found->second;
}

}  // namespace

MaskConvention mask_convention(const std::string& name) {
    if (name == "attention_mask") return MaskConvention::attend_is_one;
    if (name == "key_padding_mask" || name == "src_key_padding_mask" || name == "tgt_key_padding_mask" ||
        name == "memory_key_padding_mask") {
        return MaskConvention::ignore_is_true;
    }
    if (name == "attn_mask" || name == "src_mask" || name == "tgt_mask" || name == "memory_mask") {
        return MaskConvention::scores_mask;
    }
    return MaskConvention::none;
}

ModuleMasks masks_from(const NamedTensors& inputs, const std::set<std::string>& integer_inputs, const MaskSizes& sizes) {
    std::vector<std::string> hugging_face, pytorch, padding, scores;
    for (const auto& [name, tensor] : inputs) {
        const MaskConvention convention = mask_convention(name);
        if (convention == MaskConvention::none) continue;
        (convention == MaskConvention::attend_is_one ? hugging_face : pytorch).push_back(name);
        if (convention == MaskConvention::ignore_is_true) padding.push_back(name);
        if (convention == MaskConvention::scores_mask) scores.push_back(name);
    }
    if (!hugging_face.empty() && !pytorch.empty()) {
        throw InputError(trf("attention_mask (Hugging Face: 1 = attend) and {1} (PyTorch: True = ignore) are two conventions "
                             "for the same thing; give the masks in one convention: key_padding_mask = 1 - attention_mask, "
                             "or only attention_mask",
                             {pytorch.front()}));
    }
    for (const auto* names : {&padding, &scores}) {
        if (names->size() > 1) {
            throw InputError(trf("{1} and {2} are the same mask under two names; give one", {(*names)[0], (*names)[1]}));
        }
    }
    ModuleMasks masks;
    if (const DynamicTensor* mask = find(inputs, "attention_mask")) masks.attention_mask = read_attend_is_one("attention_mask", *mask);
    for (const auto& name : padding) {
        masks.attention_mask = read_ignore_is_true(name, inputs.at(name), integer_inputs.count(name) > 0);
    }
    for (const auto& name : scores) {
        masks.additive_mask = read_scores_mask(name, inputs.at(name), integer_inputs.count(name) > 0, sizes);
    }
    return masks;
}

}  // namespace attn::tutor
