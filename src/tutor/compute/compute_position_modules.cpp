// Lesson 8's `attn compute` modules (tutor/compute/compute_modules.hpp): the sinusoidal table,
// RoPE and the embedding lookup, on the lesson path (double).
//
// Why a file of their own: they read integer tensors (token ids, positions) and options of their
// own (--rope-layout, --rope-base, --padding-idx, --scale), checked here, apart from the attention
// modules' table.
#include "tutor/compute/compute_modules.hpp"

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <vector>

#include "attn/embedding.hpp"
#include "attn/error.hpp"
#include "attn/positions.hpp"
#include "attn/printable.hpp"
#include "attn/rotary.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

// --rope-layout: halves when not given.
RopeLayout rope_layout_of(const ComputeOptions& options) {
    if (options.rope_layout.empty() || options.rope_layout == "halves") return RopeLayout::halves;
    if (options.rope_layout == "pairs") return RopeLayout::pairs;
    throw InputError(trf("--rope-layout {1}: expected halves (features i and i + d_k/2, Hugging Face's rotate_half) "
                         "or pairs (features 2i and 2i + 1, GPT-J's rotate_every_two)",
                         {printable_text(options.rope_layout)}));
}

// An integer input's values, refused when it was read from a floating-point file (PyTorch's
// F.embedding and index tensors are torch.long).
std::vector<std::int64_t> integer_values(const NamedTensors& inputs, const ComputeOptions& options, const std::string& name) {
    if (!options.integer_inputs.count(name)) {
        throw InputError(trf("{1} must hold integers (int64, torch.long), and its file holds floating-point numbers",
                             {name}));
    }
    const DynamicTensor& tensor = inputs.at(name);
    const std::vector<std::size_t> shape(tensor.shape().begin(), tensor.shape().end());
    std::vector<std::int64_t> values(tensor.size());
    for (std::size_t i = 0; i < tensor.size(); ++i) {
        // Read as doubles: beyond 2^53 an int64 is not exact, and beyond 2^63 it would not convert.
        if (std::abs(tensor.data()[i]) > 9007199254740992.0) {
            std::ostringstream value;  // rounded: the file's exact integer is not known here
            value << std::setprecision(6) << tensor.data()[i];
            throw InputError(trf("{1}{2} is about {3}, too large to be a token id or a position",
                                 {name, index_string(i, shape), value.str()}));
        }
        values[i] = static_cast<std::int64_t>(tensor.data()[i]);
    }
    return values;
}

// Lesson 8: the sinusoidal table of "Attention Is All You Need", added to x.
NamedTensors run_positions(const NamedTensors& inputs, const ComputeOptions&) {
    const Tensor3 x(inputs.at("x"));
    const Matrix table = sinusoidal_positions(x.shape(1), x.shape(2));
    Tensor3 output = x;
    for (std::size_t b = 0; b < x.shape(0); ++b)
        for (std::size_t t = 0; t < x.shape(1); ++t)
            for (std::size_t d = 0; d < x.shape(2); ++d) output(b, t, d) += table(t, d);
    return {{"positions", table}, {"output", output}};
}

// The positions of a sequence of `length`: the input `name` when given, else 0 … length − 1.
std::vector<std::int64_t> rope_positions(const NamedTensors& inputs, const ComputeOptions& options,
                                         const std::string& name, std::size_t length) {
    if (inputs.count(name)) {
        const std::vector<std::int64_t> given = integer_values(inputs, options, name);
        for (std::size_t t = 0; t < given.size(); ++t) {
            if (given[t] < 0) {
                throw InputError(trf("{1}[{2}] = {3} is negative; positions count from 0",
                                     {name, std::to_string(t), std::to_string(given[t])}));
            }
        }
        return given;
    }
    std::vector<std::int64_t> positions(length);
    for (std::size_t t = 0; t < length; ++t) positions[t] = static_cast<std::int64_t>(t);
    return positions;
}

// Lesson 8: RoPE on the queries and the keys, each at its own positions.
NamedTensors run_rope(const NamedTensors& inputs, const ComputeOptions& options) {
    const Tensor4 q(inputs.at("q")), k(inputs.at("k"));
    const RopeLayout layout = rope_layout_of(options);
    const double base = options.rope_base.value_or(default_rope_base);
    if (q.shape(3) % 2 != 0) {
        throw InputError(trf("q {1} and k {2}: RoPE turns pairs of features, and d_k = {3} is odd",
                             {shape_string({q.shape().begin(), q.shape().end()}),
                              shape_string({k.shape().begin(), k.shape().end()}), std::to_string(q.shape(3))}));
    }
    return {{"q", rotary_embedding(q, rope_positions(inputs, options, "positions_q", q.shape(2)), layout, base)},
            {"k", rotary_embedding(k, rope_positions(inputs, options, "positions_k", k.shape(2)), layout, base)}};
}

// Lesson 8: F.embedding(ids, weight) · scale. --padding-idx is nn.Embedding's constructor
// argument: it zeroes that row when the layer is created, and the forward copies whatever the
// row holds, so it changes nothing here (attn/embedding.hpp).
NamedTensors run_embedding(const NamedTensors& inputs, const ComputeOptions& options) {
    const Matrix weight(inputs.at("weight"));
    const DynamicTensor& id_values = inputs.at("ids");
    const std::vector<std::int64_t> values = integer_values(inputs, options, "ids");
    const std::size_t V = weight.shape(0);
    if (options.padding_idx) {
        const std::int64_t rows = static_cast<std::int64_t>(V);
        if (*options.padding_idx < -rows || *options.padding_idx >= rows) {
            throw InputError(trf("--padding-idx {1} is outside the table: weight {2} has V = {3} rows, so it must be in "
                                 "[-{3}, {3})",
                                 {std::to_string(*options.padding_idx),
                                  shape_string({weight.shape().begin(), weight.shape().end()}), std::to_string(V)}));
        }
    }
    IdTensor ids = IdTensor::from_shape({id_values.shape(0), id_values.shape(1)});
    std::copy(values.begin(), values.end(), ids.begin());
    Tensor3 output = embedding(weight, ids);
    output *= options.scale.value_or(1.0);
    return {{"output", output}};
}

}  // namespace

std::vector<ComputeModule> position_modules() {
    ComputeModule positions{
        "positions",
        N_("the sinusoidal positional encoding of \"Attention Is All You Need\", added to x"),
        "positions",
        {{"x", "B,T,D", true, N_("the token embeddings")}},
        {{"positions", "T,D", true, N_("the table: PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = cos(…)")},
         {"output", "B,T,D", true, N_("x + positions")}},
        run_positions};
    ComputeModule rope{
        "rope",
        N_("rotary position embeddings (RoPE) on q and k (--rope-layout halves|pairs, --rope-base)"),
        "positions",
        {{"q", "B,h,T,d_k", true, N_("the queries, per head, after the projection (d_k even)")},
         {"k", "B,h,S,d_k", true, N_("the keys, per head, after the projection")},
         {"positions_q", "T", false, N_("the queries' positions, integers (default 0 … T-1)")},
         {"positions_k", "S", false, N_("the keys' positions, integers (default 0 … S-1)")}},
        {{"q", "B,h,T,d_k", true, N_("q rotated")}, {"k", "B,h,S,d_k", true, N_("k rotated")}},
        run_rope};
    rope.uses_rope_options = true;
    ComputeModule lookup{
        "embedding",
        N_("the embedding lookup, F.embedding(ids, weight) · --scale (nn.Embedding's forward)"),
        "positions",
        {{"ids", "B,T", true, N_("token ids, integers in 0 … V-1")},
         {"weight", "V,D", true, N_("the table, nn.Embedding(V, D).weight")}},
        {{"output", "B,T,D", true, N_("row ids[b, t] of weight, times --scale")}},
        run_embedding};
    lookup.uses_embedding_options = true;
    return {positions, rope, lookup};
}

void check_position_options(const ComputeModule& module, const ComputeOptions& options) {
    if (!module.uses_rope_options && (!options.rope_layout.empty() || options.rope_base)) {
        throw InputError(trf("{1} has no rotary embedding: --rope-layout and --rope-base are for rope; remove them",
                             {module.name}));
    }
    if (!module.uses_embedding_options && (options.padding_idx || options.scale)) {
        throw InputError(trf("{1} has no embedding table: --padding-idx and --scale are for embedding; remove them",
                             {module.name}));
    }
    if (module.uses_rope_options) rope_layout_of(options);
    if (options.rope_base && !(std::isfinite(*options.rope_base) && *options.rope_base > 0.0)) {
        throw InputError(trf("--rope-base must be a finite number above 0 (default 10000), got {1}",
                             {std::to_string(*options.rope_base)}));
    }
    if (options.scale && !std::isfinite(*options.scale)) {
        throw InputError(trf("--scale must be a finite number (e.g. sqrt(D); default 1), got {1}",
                             {std::to_string(*options.scale)}));
    }
}

}  // namespace attn::tutor
