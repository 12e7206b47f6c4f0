// cli/usage_language.hpp — CLI11's own words (the help's labels, its usage errors) in the tutor's
// language.
//
// Why: a class taught in Spanish reads `attn lesson --help` and "ERROR: lesson is required" too.
// CLI11 writes those in English; its Formatter takes replacement labels, and its errors have a
// fixed English form that is matched here and rewritten through the catalogue (po/es.po). The
// language must be chosen before the commands are set up (their descriptions are translated as
// they are added): see speak_before_parsing() in cli/commands.hpp. The library's most common file
// errors are rewritten the same way (the library itself has no catalogue).
//
//   CLI::App app{tr("attn — …")};
//   speak_usage_in_current_language(app);        // before any option or subcommand
//   … set up the commands …
//   translate_type_names(app);                    // after: TEXT, INT, FILE … of every option
//   std::cerr << usage_error_in_current_language(e.what());
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace attn::cli {

/// Before any option or subcommand is added to `app`: the formatter's labels (Usage, OPTIONS,
/// REQUIRED, Needs, Excludes, …), the options' group and the help and version flags' descriptions.
void speak_usage_in_current_language(CLI::App& app);

/// After every command is set up: the subcommands' group and the type names (TEXT, INT, FLOAT,
/// FILE, "in [a - b]") the help prints beside each option, in the current language.
void translate_type_names(CLI::App& app);

/// A CLI11 usage error's message in the current language: its known English forms ("X is
/// required", "X excludes Y", "The following argument was not expected: …") rewritten through the
/// catalogue; any other message as CLI11 wrote it.
std::string usage_error_in_current_language(const std::string& message);

/// An error of the library (which speaks English only: it has no catalogue) in the current
/// language, for the messages a student meets most — a file that cannot be opened or read, a
/// folder that is not there, a file that is not a .npy, an unknown --activation or --causal-alignment
/// of attn compute; any other message as the library wrote it.
std::string library_error_in_current_language(const std::string& message);

}  // namespace attn::cli
