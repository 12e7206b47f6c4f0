// check_shapes: the letters of each argument's legend agree (attn/shape.hpp).
#include "attn/shape.hpp"

#include "attn/error.hpp"

namespace attn {

namespace {

std::vector<std::string> legend_tokens(const std::string& legend) {
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start <= legend.size()) {
        const std::size_t comma = legend.find(',', start);
        const std::size_t end = comma == std::string::npos ? legend.size() : comma;
        tokens.push_back(legend.substr(start, end - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return tokens;
}

// "2H" → (2, "H"); "d_k" → (1, "d_k"); "1" → (1, ""): a factor in front, then the letter if any.
std::pair<std::size_t, std::string> parse_token(const std::string& token) {
    std::size_t digits = 0;
    std::size_t factor = 0;
    while (digits < token.size() && token[digits] >= '0' && token[digits] <= '9') {
        factor = factor * 10 + std::size_t(token[digits] - '0');
        ++digits;
    }
    return {digits == 0 ? 1 : factor, token.substr(digits)};
}

struct Binding {
    std::size_t size;
    std::string owner;  // "encoder_outputs (2, 2, 3) (B, S, H)": the argument that fixed the letter
};

std::string described(const NamedShape& argument) {
    return argument.name + " " + shape_string(argument.shape) + " " + legend_string(argument.legend);
}

// "; K must be (B, S, d_k) = (2, 5, 4)" when every letter of the legend is known, else "".
std::string required_shape(const NamedShape& argument, const std::map<std::string, Binding>& letters) {
    const auto tokens = legend_tokens(argument.legend);
    if (tokens.size() < 2) return "";
    std::vector<std::size_t> shape;
    for (const auto& token : tokens) {
        const auto [factor, letter] = parse_token(token);
        if (letter.empty()) {
            shape.push_back(factor);
            continue;
        }
        const auto bound = letters.find(letter);
        if (bound == letters.end()) return "";
        shape.push_back(factor * bound->second.size);
    }
    return "; " + argument.name + " must be " + legend_string(argument.legend) + " = " + shape_string(shape);
}

}  // namespace

std::string legend_string(const std::string& legend) {
    std::string text = "(";
    const auto tokens = legend_tokens(legend);
    for (std::size_t i = 0; i < tokens.size(); ++i) text += (i ? ", " : "") + tokens[i];
    return text + ")";
}

std::vector<std::size_t> legend_shape(const std::string& legend, const ShapeLetters& letters) {
    std::vector<std::size_t> shape;
    for (const auto& token : legend_tokens(legend)) {
        const auto [factor, letter] = parse_token(token);
        const auto bound = letter.empty() ? letters.end() : letters.find(letter);
        const std::size_t size = bound == letters.end() ? 1 : bound->second;
        const bool too_large = factor > max_tensor_values || size > max_tensor_values || factor * size > max_tensor_values;
        shape.push_back(too_large ? max_tensor_values + 1 : factor * size);
    }
    return shape;
}

ShapeLetters check_shapes(const std::string& function, const std::vector<NamedShape>& arguments, ZeroSizes zero_sizes) {
    const std::string prefix = function.empty() ? "" : function + ": ";
    std::map<std::string, Binding> letters;
    for (const NamedShape& argument : arguments) {
        if (!argument.present) continue;
        const auto tokens = legend_tokens(argument.legend);
        if (argument.shape.size() != tokens.size()) {
            throw ShapeError(prefix + argument.name + " has shape " + shape_string(argument.shape) + " (rank " +
                             std::to_string(argument.shape.size()) + ") but " + (function.empty() ? "it" : function) +
                             " needs rank " + std::to_string(tokens.size()) + ": " + legend_string(argument.legend));
        }
        for (std::size_t d = 0; d < tokens.size(); ++d) {
            const std::size_t size = argument.shape[d];
            if (size == 0 && zero_sizes == ZeroSizes::refused) {
                throw ShapeError(prefix + argument.name + " has shape " + shape_string(argument.shape) + ": dimension " +
                                 tokens[d] + " is 0; every dimension must be at least 1");
            }
            const auto [factor, letter] = parse_token(tokens[d]);
            if (letter.empty()) {
                if (size != factor) {
                    throw ShapeError(prefix + described(argument) + ": dimension " + std::to_string(d) + " must be " +
                                     std::to_string(factor) + ", it is " + std::to_string(size));
                }
                continue;
            }
            const auto bound = letters.find(letter);
            if (bound != letters.end() && size != factor * bound->second.size) {
                // "b1 (7) (2H) has 2H = 7 (2H must be 6)": a multiple is reported as written.
                const std::string must =
                    factor == 1 ? "" : " (" + tokens[d] + " must be " + std::to_string(factor * bound->second.size) + ")";
                throw ShapeError(prefix + "shapes disagree: " + bound->second.owner + " has " + letter + " = " +
                                 std::to_string(bound->second.size) + " but " + described(argument) + " has " +
                                 tokens[d] + " = " + std::to_string(size) + must + required_shape(argument, letters));
            }
            if (size % factor != 0) {
                throw ShapeError(prefix + described(argument) + ": dimension " + tokens[d] + " is " + std::to_string(size) +
                                 ", which is not a multiple of " + std::to_string(factor));
            }
            if (bound == letters.end()) letters[letter] = Binding{size / factor, described(argument)};
        }
    }
    ShapeLetters sizes;
    for (const auto& [letter, binding] : letters) sizes[letter] = binding.size;
    return sizes;
}

}  // namespace attn
