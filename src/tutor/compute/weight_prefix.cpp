// The prefix of a state_dict saved from inside a bigger model (tutor/compute/weight_prefix.hpp).
#include "tutor/compute/weight_prefix.hpp"

#include <map>
#include <optional>
#include <set>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

// A key every model of the module has, with underscores for dots: what a prefix stands before.
std::string anchor_of(const ComputeModule& module) {
    static const std::map<std::string, std::string> anchors = {
        {"mha", "in_proj_weight"},
        {"encoder-layer", "norm1_weight"},
        {"encoder", "layers_0_norm1_weight"},
        {"decoder-layer", "norm3_weight"},
        {"decoder", "layers_0_norm3_weight"},
        {"transformer", "encoder_layers_0_norm1_weight"},
    };
    const auto found = anchors.find(module.name);
    return found == anchors.end() ? "" : found->second;
}

// The text before `anchor` in `key` when the key ends with it (dots read as underscores) and the
// anchor starts at a name's boundary.
std::optional<std::string> prefix_before(const std::string& key, const std::string& anchor) {
    if (key.size() < anchor.size()) return std::nullopt;
    const std::size_t start = key.size() - anchor.size();
    for (std::size_t i = 0; i < anchor.size(); ++i) {
        const char c = key[start + i] == '.' ? '_' : key[start + i];
        if (c != anchor[i]) return std::nullopt;
    }
    if (start > 0 && key[start - 1] != '.' && key[start - 1] != '_') return std::nullopt;
    return key.substr(0, start);
}

std::string quoted(const std::string& prefix) { return "'" + printable_excerpt(prefix, 80) + "'"; }

}  // namespace

std::string weight_prefix(const ComputeModule& module, const std::vector<std::string>& keys, const std::string& given,
                          const std::string& archive) {
    if (!given.empty()) {
        for (const auto& key : keys) {
            if (key.rfind(given, 0) == 0) return given;
        }
        throw InputError(trf("--prefix {1}: no member of {2} starts with it (the first is {3})",
                             {quoted(given), archive, keys.empty() ? tr("none: the archive is empty") : quoted(keys.front())}));
    }
    const std::string anchor = anchor_of(module);
    if (anchor.empty()) return "";
    std::set<std::string> candidates;
    for (const auto& key : keys) {
        if (const auto prefix = prefix_before(key, anchor)) candidates.insert(*prefix);
    }
    if (candidates.size() <= 1) return candidates.empty() ? "" : *candidates.begin();
    std::string listed;
    for (const auto& prefix : candidates) listed += (listed.empty() ? "" : ", ") + (prefix.empty() ? tr("none") : quoted(prefix));
    throw InputError(trf("{1} holds more than one {2}: its keys fit the prefixes {3}; choose one with --prefix",
                         {archive, module.name, listed}));
}

}  // namespace attn::tutor
