// The copy task's comparison files (tutor/train/copy_files.hpp).
#include "tutor/train/copy_files.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "attn/error.hpp"
#include "attn/npz.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "tutor/compute/model_config.hpp"
#include "tutor/language.hpp"
#include "attn/shape.hpp"

namespace attn::tutor {
namespace {

NpyAccept ids_allowed(const std::string&) { return NpyAccept::floats_bools_integers; }

// Member `name` of the archive as ids: (steps, B, L) with L ≥ 2, whole numbers in 0 … V − 1.
const NpyArray& id_member(const std::map<std::string, const NpyArray*>& members, const std::string& name,
                          const std::string& path, std::size_t vocabulary) {
    const auto found = members.find(name);
    if (found == members.end()) {
        throw InputError(path + ": no member " + name + "; the batches are src and tgt, integer arrays (steps, B, L)");
    }
    const NpyArray& array = *found->second;
    if (array.shape.size() != 3 || array.shape[0] == 0 || array.shape[1] == 0 || array.shape[2] < 2) {
        throw InputError(path + ": " + name + " has shape " + shape_string(array.shape) +
                         "; it must be (steps, B, L) with at least one step and sequence and L ≥ 2");
    }
    for (std::size_t flat = 0; flat < array.values.size(); ++flat) {
        const double id = array.values[flat];
        if (!(id >= 0 && id < double(vocabulary) && id == std::floor(id))) {
            char text[32];
            std::snprintf(text, sizeof text, "%g", id);
            throw InputError(path + ": " + name + index_string(flat, array.shape) + " = " + text +
                             " is not a symbol of the vocabulary, a whole number 0 … " + std::to_string(vocabulary - 1));
        }
    }
    return array;
}

std::string json_number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

IdTensor batch_of(const NpyArray& array, std::size_t step) {
    const std::size_t B = array.shape[1], L = array.shape[2];
    IdTensor ids = IdTensor::from_shape({B, L});
    for (std::size_t i = 0; i < B * L; ++i) ids.data()[i] = static_cast<std::int64_t>(array.values[step * B * L + i]);
    return ids;
}

}  // namespace

Seq2SeqWeights read_copy_weights(const std::string& path, const Seq2SeqSizes& sizes, std::size_t heads) {
    std::vector<NpzMember> members = read_npz(path, [](const std::string& key) {
        return key == model_config_member ? NpyAccept::floats_bools_integers : NpyAccept::floats;
    });
    for (auto it = members.begin(); it != members.end(); ++it) {
        if (it->first != model_config_member) continue;
        const ModelConfig config = read_model_config(it->second, path + ": " + model_config_member);
        if (config.heads && static_cast<std::size_t>(*config.heads) != heads) {
            throw InputError(trf("{1}: its attn_config says heads {2}, the options say --heads {3}; the weights were "
                                 "trained with {2}",
                                 {path, std::to_string(*config.heads), std::to_string(heads)}));
        }
        members.erase(it);
        break;
    }
    return weights_from_state_dict(members, sizes, path);
}

namespace {

// The sizes of the model an archive holds, from its tensors' shapes.
Seq2SeqSizes sizes_from_members(const std::vector<NpzMember>& members, const std::string& path) {
    std::map<std::string, const NpyArray*> by_name;
    for (const auto& [name, array] : members) by_name[name] = &array;
    const auto shape_of = [&](const std::string& name) -> const std::vector<std::size_t>& {
        const auto found = by_name.find(name);
        if (found == by_name.end() || found->second->shape.size() != 2) {
            throw InputError(trf("{1}: no 2-D member {2}; a checkpoint of attn train copy holds nn.Transformer's "
                                 "state_dict plus src_embed.weight, tgt_embed.weight, generator.weight and generator.bias",
                                 {path, name}));
        }
        return found->second->shape;
    };
    const auto layers_under = [&](const std::string& prefix) {
        std::size_t count = 0;
        while (by_name.count(prefix + std::to_string(count) + ".linear1.weight")) ++count;
        return count;
    };
    Seq2SeqSizes sizes;
    sizes.vocabulary = shape_of("src_embed.weight")[0];
    sizes.d_model = shape_of("src_embed.weight")[1];
    sizes.d_ff = shape_of("encoder.layers.0.linear1.weight")[0];
    sizes.encoder_layers = layers_under("encoder.layers.");
    sizes.decoder_layers = layers_under("decoder.layers.");
    if (sizes.decoder_layers == 0) shape_of("decoder.layers.0.linear1.weight");  // says which is missing
    return sizes;
}

// The settings of attn_config the copy model reads; it must be there, with the heads.
Seq2SeqOptions options_from_config(const NpyArray* config_member, const std::string& path) {
    if (!config_member) {
        throw InputError(trf("{1}: no member attn_config, so the number of heads is unknown; a checkpoint of attn train "
                             "copy --save has one (JSON bytes: heads, norm_first, activation, eps, norm_eps)",
                             {path}));
    }
    const ModelConfig config = read_model_config(*config_member, path + ": " + model_config_member);
    if (!config.heads) throw InputError(trf("{1}: its attn_config has no heads", {path}));
    if (config.activation && *config.activation != "relu") {
        throw InputError(trf("{1}: its attn_config says activation {2}; the copy model's feed-forward uses relu",
                             {path, *config.activation}));
    }
    Seq2SeqOptions options(static_cast<std::size_t>(*config.heads));
    if (config.norm_first) options.norm_first = *config.norm_first;
    if (config.eps) options.eps = *config.eps;
    if (config.norm_eps && *config.norm_eps != options.eps) {
        throw InputError(trf("{1}: its attn_config gives eps {2} and norm_eps {3}; the copy model uses one eps for "
                             "every norm",
                             {path, json_number(options.eps), json_number(*config.norm_eps)}));
    }
    return options;
}

}  // namespace

CopyCheckpoint read_copy_checkpoint(const std::string& path) {
    std::vector<NpzMember> members = read_npz(path, [](const std::string& key) {
        return key == model_config_member ? NpyAccept::floats_bools_integers : NpyAccept::floats;
    });
    std::optional<NpyArray> config;
    for (auto it = members.begin(); it != members.end(); ++it) {
        if (it->first != model_config_member) continue;
        config = std::move(it->second);
        members.erase(it);
        break;
    }
    CopyCheckpoint checkpoint;
    checkpoint.options = options_from_config(config ? &*config : nullptr, path);
    const Seq2SeqSizes sizes = sizes_from_members(members, path);
    if (sizes.d_model % checkpoint.options.heads != 0) {
        throw InputError(trf("{1}: its attn_config says heads {2}, which does not divide d_model {3}",
                             {path, std::to_string(checkpoint.options.heads), std::to_string(sizes.d_model)}));
    }
    checkpoint.weights = weights_from_state_dict(members, sizes, path);
    return checkpoint;
}

std::vector<CopyBatch> read_copy_batches(const std::string& path, std::size_t vocabulary) {
    const std::vector<NpzMember> archive = read_npz(path, ids_allowed);
    std::map<std::string, const NpyArray*> members;
    for (const auto& [name, array] : archive) members[name] = &array;
    const NpyArray& src = id_member(members, "src", path, vocabulary);
    const NpyArray& tgt = id_member(members, "tgt", path, vocabulary);
    if (src.shape != tgt.shape) {
        throw InputError(path + ": src has shape " + shape_string(src.shape) + " and tgt " + shape_string(tgt.shape) +
                         "; they must be the same (steps, B, L)");
    }
    std::vector<CopyBatch> batches;
    for (std::size_t step = 0; step < src.shape[0]; ++step) batches.push_back({batch_of(src, step), batch_of(tgt, step)});
    return batches;
}

std::string training_log_json(const std::vector<TrainingStepResult>& steps) {
    std::string json = "{\"steps\": [";
    for (std::size_t i = 0; i < steps.size(); ++i) {
        char entry[160];
        std::snprintf(entry, sizeof entry, "%s\n  {\"step\": %zu, \"loss\": %.17g, \"learning_rate\": %.17g}",
                      i == 0 ? "" : ",", i + 1, steps[i].loss, steps[i].learning_rate);
        json += entry;
    }
    return json + "\n]}\n";
}

std::string copy_checkpoint_npz(const Seq2SeqWeights& weights, const Seq2SeqOptions& options) {
    const std::vector<double> flat = flatten_parameters(weights);
    std::vector<NpzOutputMember> members;
    for (const ParameterSlot& slot : seq2seq_parameter_slots(weights)) {
        std::size_t count = 1;
        for (std::size_t size : slot.shape) count *= size;
        const std::vector<double> values(flat.begin() + static_cast<std::ptrdiff_t>(slot.offset),
                                         flat.begin() + static_cast<std::ptrdiff_t>(slot.offset + count));
        members.push_back({slot.name, encode_npy(slot.shape, values, NpyDtype::float32)});
    }
    const std::string config = "{\"heads\": " + std::to_string(options.heads) +
                               ", \"norm_first\": " + (options.norm_first ? "true" : "false") +
                               ", \"activation\": \"relu\", \"eps\": " + json_number(options.eps) +
                               ", \"norm_eps\": " + json_number(options.eps) + "}";
    members.push_back({model_config_member, encode_npy_uint8(config)});
    return encode_npz(members);
}

}  // namespace attn::tutor
