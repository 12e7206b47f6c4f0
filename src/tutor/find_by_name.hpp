// tutor/find_by_name.hpp — the entry of a table with a given name, or an InputError that lists the
// names there are (`attn compute` modules, `attn bench` modules).
//
// Why: a student who mistypes a name should learn every right one in the same message, and each
// table of named choices should say it the same way.
//
//   const ComputeModule& m = find_by_name(compute_modules(), "mah", "module");
//   // InputError: unknown module 'mah'; the modules are: dot, luong, bahdanau, …
#pragma once

#include <string>
#include <vector>

#include "attn/error.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

/// The first item whose `name` member equals `name`; InputError "unknown KIND 'NAME'; the KINDs
/// are: a, b, c" otherwise.
template <typename Item>
const Item& find_by_name(const std::vector<Item>& items, const std::string& name, const std::string& kind) {
    for (const auto& item : items) {
        if (item.name == name) return item;
    }
    std::string known;
    for (const auto& item : items) known += (known.empty() ? "" : ", ") + item.name;
    // Both tables name modules; the sentence is whole in the catalogue, for languages whose
    // plural is not KIND + "s".
    if (kind == "module") throw InputError(trf("unknown module '{1}'; the modules are: {2}", {name, known}));
    throw InputError("unknown " + kind + " '" + name + "'; the " + kind + "s are: " + known);
}

}  // namespace attn::tutor
