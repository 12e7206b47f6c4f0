// tutor/compute/flat_json.hpp — a strict reader of one flat JSON object, {"key": value, …}, whose
// values are numbers, true, false, null or strings: what a model's config holds (model_config.hpp).
//
// Why not a JSON library: a config is a handful of settings, and a small reader that refuses
// everything else is easier to trust with a hostile file than a general one. It never recurses
// (an object or array as a value is refused where it starts, so deep nesting costs nothing), it
// checks that the text is UTF-8 before anything else, and a number must be finite in double.
//
//   FlatJson config = parse_flat_json(R"({"heads": 8, "activation": "gelu"})", "model.npz[attn_config]");
//   config[0].first;                 // "heads"
//   config[0].second.number;         // 8
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace attn::tutor {

struct JsonValue {
    enum class Kind { number, boolean, string, null } kind = Kind::null;
    double number = 0;
    bool boolean = false;
    std::string text;     // the string's value (UTF-8), for Kind::string
    std::string literal;  // the value as written, for messages ("8", "true", "\"gelu\"")
    bool whole = false;   // a number written without fraction or exponent ("8", not "8.0")
};

/// The members in the order written. InputError naming `where` and the byte offset for text that
/// is not UTF-8, not one JSON object, a value that is an object or an array, a number that is not
/// finite in double, or a key given twice.
using FlatJson = std::vector<std::pair<std::string, JsonValue>>;
FlatJson parse_flat_json(const std::string& text, const std::string& where);

}  // namespace attn::tutor
