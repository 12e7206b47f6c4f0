#include "tutor/compute_modules.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <sstream>

#include "attn/dot_attention.hpp"
#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn::tutor {

namespace {

NamedTensors run_dot(const NamedTensors& inputs, const ComputeOptions&) {
    const AttentionStep step = dot_attention(Tensor3(inputs.at("encoder_outputs")), Matrix(inputs.at("decoder_output")));
    return {{"scores", step.scores}, {"weights", step.weights}, {"context", step.context}};
}

std::vector<std::string> split_dimensions(const std::string& dimensions) {
    std::vector<std::string> tokens;
    std::stringstream stream(dimensions);
    for (std::string token; std::getline(stream, token, ',');) tokens.push_back(token);
    return tokens;
}

// "2H" → (2, "H"); "1" → (1, "").
std::pair<std::size_t, std::string> parse_dimension(const std::string& token) {
    std::size_t digits = 0;
    while (digits < token.size() && std::isdigit(static_cast<unsigned char>(token[digits]))) ++digits;
    const std::size_t factor = digits == 0 ? 1 : std::stoul(token.substr(0, digits));
    return {factor, token.substr(digits)};
}

std::string described(const std::string& name, const DynamicTensor& tensor, const TensorSpec& spec) {
    return name + " " + shape_string(tensor.shape()) + " " + dimension_legend(spec);
}

}  // namespace

const std::vector<ComputeModule>& compute_modules() {
    static const std::vector<ComputeModule> modules = {
        {"dot",
         "lesson 1: dot-product attention, score_s = decoder_output · encoder_outputs[s]",
         1,
         {{"encoder_outputs", "B,S,H", true, "the encoder's output at each source position"},
          {"decoder_output", "B,H", true, "the decoder state that asks the question"}},
         {{"scores", "B,S", true, "raw scores, before the softmax"},
          {"weights", "B,S", true, "softmax of the scores over S"},
          {"context", "B,H", true, "weights-averaged encoder outputs"}},
         run_dot},
    };
    return modules;
}

const ComputeModule& find_compute_module(const std::string& name) {
    for (const auto& module : compute_modules()) {
        if (module.name == name) return module;
    }
    std::string known;
    for (const auto& module : compute_modules()) known += (known.empty() ? "" : ", ") + module.name;
    throw InputError("unknown module '" + name + "'; the modules are: " + known);
}

std::string dimension_legend(const TensorSpec& spec) {
    std::string legend = "(";
    const auto tokens = split_dimensions(spec.dimensions);
    for (std::size_t i = 0; i < tokens.size(); ++i) legend += (i ? ", " : "") + tokens[i];
    return legend + ")";
}

void validate_compute_inputs(const ComputeModule& module, const NamedTensors& inputs) {
    struct Binding {
        std::size_t size;
        std::string owner;  // "encoder_outputs (2, 2, 3) (B, S, H)"
    };
    std::map<std::string, Binding> letters;
    for (const auto& spec : module.inputs) {
        const auto found = inputs.find(spec.name);
        if (found == inputs.end()) {
            if (spec.required) throw InputError("missing input '" + spec.name + "' " + dimension_legend(spec));
            continue;
        }
        const DynamicTensor& tensor = found->second;
        const auto tokens = split_dimensions(spec.dimensions);
        if (tensor.dimension() != tokens.size()) {
            throw ShapeError(spec.name + " has shape " + shape_string(tensor.shape()) + " (rank " +
                             std::to_string(tensor.dimension()) + ") but " + module.name + " needs rank " +
                             std::to_string(tokens.size()) + ": " + dimension_legend(spec));
        }
        for (std::size_t d = 0; d < tokens.size(); ++d) {
            const std::size_t size = tensor.shape()[d];
            if (size == 0) {
                throw ShapeError(spec.name + " has shape " + shape_string(tensor.shape()) + ": dimension " + tokens[d] +
                                 " is 0; every dimension must be at least 1");
            }
            const auto [factor, letter] = parse_dimension(tokens[d]);
            if (letter.empty()) {
                if (size != factor) {
                    throw ShapeError(described(spec.name, tensor, spec) + ": dimension " + std::to_string(d) +
                                     " must be " + std::to_string(factor) + ", it is " + std::to_string(size));
                }
                continue;
            }
            if (size % factor != 0) {
                throw ShapeError(described(spec.name, tensor, spec) + ": dimension " + tokens[d] + " is " +
                                 std::to_string(size) + ", which is not a multiple of " + std::to_string(factor));
            }
            const std::size_t value = size / factor;
            const auto bound = letters.find(letter);
            if (bound == letters.end()) {
                letters[letter] = Binding{value, described(spec.name, tensor, spec)};
            } else if (bound->second.size != value) {
                throw ShapeError("shapes disagree: " + bound->second.owner + " has " + letter + " = " +
                                 std::to_string(bound->second.size) + " but " + described(spec.name, tensor, spec) +
                                 " has " + letter + " = " + std::to_string(value));
            }
        }
        for (std::size_t i = 0; i < tensor.size(); ++i) {
            if (!std::isfinite(tensor.data()[i])) {
                throw InputError(spec.name + " holds a non-finite value (" + std::to_string(tensor.data()[i]) +
                                 ") at flat index " + std::to_string(i) + "; inputs must be finite numbers");
            }
        }
    }
    for (const auto& [name, tensor] : inputs) {
        bool known = false;
        for (const auto& spec : module.inputs) known = known || spec.name == name;
        if (!known) throw InputError("'" + name + "' is not an input of " + module.name);
    }
}

NamedTensors run_compute_module(const ComputeModule& module, const NamedTensors& inputs, const ComputeOptions& options) {
    validate_compute_inputs(module, inputs);
    NamedTensors outputs = module.run(inputs, options);
    for (const auto& spec : module.outputs) {
        const auto found = outputs.find(spec.name);
        if (found == outputs.end()) {
            if (spec.required) throw std::logic_error(module.name + " did not compute its output '" + spec.name + "'");
            continue;
        }
        for (std::size_t i = 0; i < found->second.size(); ++i) {
            if (!std::isfinite(found->second.data()[i])) {
                throw InputError("the result '" + spec.name + "' is not finite at flat index " + std::to_string(i) +
                                 ": the inputs are too large for float64 arithmetic (scores overflow); scale them down");
            }
        }
    }
    return outputs;
}

}  // namespace attn::tutor
