// A model's config from its weights archive, and the flags checked against it
// (tutor/compute/model_config.hpp).
#include "tutor/compute/model_config.hpp"

#include <charconv>

#include "attn/error.hpp"
#include "attn/feed_forward.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "tutor/compute/flat_json.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

// The shortest text that reads back as the same double: 1e-05, 0.01.
std::string shortest(double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string config_bytes(const NpyArray& member, const std::string& where) {
    bool bytes = member.dtype == NpyDtype::integer && member.shape.size() == 1;
    for (std::size_t i = 0; bytes && i < member.values.size(); ++i) bytes = member.values[i] >= 0 && member.values[i] <= 255;
    if (!bytes) {
        throw InputError(trf("{1} must hold the config's UTF-8 bytes as a 1-D uint8 array, as "
                             "numpy.frombuffer(json.dumps(config).encode(), numpy.uint8) writes it; got {2} {3}",
                             {where, dtype_name(member.dtype), shape_string(member.shape)}));
    }
    if (member.values.size() > max_model_config_bytes) {
        throw InputError(trf("{1} holds {2} bytes; a config is at most {3}",
                             {where, std::to_string(member.values.size()), std::to_string(max_model_config_bytes)}));
    }
    std::string text;
    for (double value : member.values) text += static_cast<char>(static_cast<unsigned char>(value));
    return text;
}

[[noreturn]] void wrong_value(const std::string& where, const std::string& key, const std::string& expected,
                              const JsonValue& value) {
    throw InputError(trf("{1}: \"{2}\" must be {3}, got {4}", {where, key, expected, value.literal}));
}

void set_member(ModelConfig& config, const std::string& where, const std::string& key, const JsonValue& value) {
    using Kind = JsonValue::Kind;
    if (key == "heads") {
        if (value.kind != Kind::number || !value.whole || value.number < 1 || value.number > 65536) {
            wrong_value(where, key, tr("a whole number from 1 to 65536"), value);
        }
        config.heads = static_cast<int>(value.number);
    } else if (key == "norm_first") {
        if (value.kind != Kind::boolean) wrong_value(where, key, tr("true or false"), value);
        config.norm_first = value.boolean;
    } else if (key == "activation") {
        if (value.kind != Kind::string || (value.text != "relu" && value.text != "gelu" && value.text != "gelu-tanh")) {
            wrong_value(where, key, tr("\"relu\", \"gelu\" or \"gelu-tanh\""), value);
        }
        config.activation = value.text;
    } else if (key == "eps" || key == "norm_eps") {
        if (value.kind != Kind::number || !(value.number > 0)) wrong_value(where, key, tr("a positive number"), value);
        (key == "eps" ? config.eps : config.norm_eps) = value.number;
    } else {
        throw InputError(trf("{1}: unknown key \"{2}\"; a config holds heads, norm_first, activation, eps and norm_eps",
                             {where, printable_excerpt(key, 60)}));
    }
}

[[noreturn]] void contradiction(const std::string& where, const std::string& key, const std::string& in_config,
                                const std::string& flag) {
    throw InputError(trf("{1} says {2} = {3}, and the command line says {4}: one of them is wrong for these weights; "
                         "remove the flag (the config is read) or correct the config",
                         {where, key, in_config, flag}));
}

[[noreturn]] void missing(const std::string& where, const std::string& key) {
    throw InputError(trf("{1} has no \"{2}\": a config gives every setting the weights do not show (heads, norm_first, "
                         "activation, eps, and norm_eps when the model has a final norm)",
                         {where, key}));
}

template <class Value>
const Value& required(const std::optional<Value>& value, const std::string& where, const std::string& key) {
    if (!value) missing(where, key);
    return *value;
}

}  // namespace

ModelConfig read_model_config(const NpyArray& member, const std::string& where) {
    ModelConfig config;
    for (const auto& [key, value] : parse_flat_json(config_bytes(member, where), where)) set_member(config, where, key, value);
    return config;
}

void apply_model_config(const ComputeModule& module, const ModelConfig& config, const std::string& where,
                        bool has_final_norm, ComputeOptions& options) {
    if (module.uses_heads) {
        const int heads = required(config.heads, where, "heads");
        if (options.heads != 0 && options.heads != heads) {
            contradiction(where, "heads", std::to_string(heads), "--heads " + std::to_string(options.heads));
        }
        options.heads = heads;
    }
    if (!module.uses_layer_options) return;
    const bool norm_first = required(config.norm_first, where, "norm_first");
    if (options.norm_first && !norm_first) contradiction(where, "norm_first", "false", "--norm-first");
    options.norm_first = norm_first;
    const std::string& activation = required(config.activation, where, "activation");
    if (!options.activation.empty() && options.activation != activation) {
        contradiction(where, "activation", activation, "--activation " + printable_excerpt(options.activation, 40));
    }
    options.activation = activation;
    const double eps = required(config.eps, where, "eps");
    if (options.eps && *options.eps != eps) contradiction(where, "eps", shortest(eps), "--eps " + shortest(*options.eps));
    options.eps = eps;
    if (!module.uses_final_norm || !has_final_norm) return;
    const double norm_eps = required(config.norm_eps, where, "norm_eps");
    if (options.norm_eps && *options.norm_eps != norm_eps) {
        contradiction(where, "norm_eps", shortest(norm_eps), "--norm-eps " + shortest(*options.norm_eps));
    }
    options.norm_eps = norm_eps;
}

}  // namespace attn::tutor
