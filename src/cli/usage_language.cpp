#include "cli/usage_language.hpp"

#include <CLI/CLI.hpp>
#include <memory>
#include <regex>

#include "tutor/language.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;

namespace {

// The words CLI11 puts in a help screen, by the key its Formatter looks them up with.
// Translators: the labels of the help screens ("Usage: attn [OPTIONS] SUBCOMMAND", "REQUIRED").
const char* const help_labels[] = {N_("Usage"),    N_("OPTIONS"), N_("SUBCOMMAND"), N_("SUBCOMMANDS"), N_("Positionals"),
                                   N_("REQUIRED"), N_("Env"),     N_("Needs"),      N_("Excludes")};

// The words of an option's type name: CLI11's (TEXT, INT …) and its validators' (FILE, "in [").
// Translators: an option's type in the help ("--step INT:INT in [0 - 9999]"); keep the spaces.
const char* const type_words[] = {N_("TEXT"), N_("INT"), N_("UINT"), N_("FLOAT"), N_("FILE"), N_("DIR"), N_(" in [")};

std::string translated_type_name(std::string type_name) {
    for (const char* word : type_words) {
        const std::string english = word, spoken = tr(word);
        if (english == spoken) continue;
        if (english[0] == ' ') {  // " in [": a phrase, replaced as it is
            for (auto at = type_name.find(english); at != std::string::npos; at = type_name.find(english, at + spoken.size())) {
                type_name.replace(at, english.size(), spoken);
            }
            continue;
        }
        // Whole words only: INT must not match inside UINT.
        type_name = std::regex_replace(type_name, std::regex("\\b" + english + "\\b"), spoken);
    }
    return type_name;
}

void translate_options(const CLI::App& command, CLI::Formatter& formatter) {
    for (const CLI::Option* option : command.get_options()) {
        const std::string type_name = option->get_type_name();
        if (!type_name.empty()) formatter.label(type_name, translated_type_name(type_name));
    }
}

}  // namespace

void speak_usage_in_current_language(CLI::App& app) {
    auto formatter = std::make_shared<CLI::Formatter>();
    for (const char* label : help_labels) formatter->label(label, tr(label));
    app.formatter(formatter);  // the subcommands added later share it
    app.option_defaults()->group(tr("Options"));
    app.set_help_flag("-h,--help", tr("Print this help message and exit"));
}

void translate_type_names(CLI::App& app) {
    auto* formatter = dynamic_cast<CLI::Formatter*>(app.get_formatter().get());
    if (formatter == nullptr) return;
    translate_options(app, *formatter);
    for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
        command->group(tr("Subcommands"));
        // A subcommand's help flag is made before it copies the option group from its parent.
        if (CLI::Option* help = command->get_option_no_throw("--help")) help->group(tr("Options"));
        translate_options(*command, *formatter);
    }
}

namespace {

struct MessageForm {
    const char* pattern;
    const char* english;  // {1}, {2} … the pattern's groups
};

// `message` rewritten by the first form it matches, in the current language; else unchanged.
// With `type_names`, a type name among the groups ("INT:INT in [0 - 9999]") is said as the help
// says it.
template <std::size_t N>
std::string rewritten(const std::string& message, const MessageForm (&forms)[N], bool type_names) {
    for (const MessageForm& form : forms) {
        std::smatch groups;
        if (!std::regex_match(message, groups, std::regex(form.pattern))) continue;
        const auto group = [&groups, type_names](std::size_t n) {
            if (n >= groups.size()) return std::string();
            return type_names ? translated_type_name(groups[n].str()) : groups[n].str();
        };
        return trf(form.english, {group(1), group(2), group(3), group(4), group(5), group(6), group(7), group(8),
                                  group(9), group(10), group(11), group(12)});
    }
    return message;
}

}  // namespace

std::string library_error_in_current_language(const std::string& message) {
    if (tutor::current_language() == "en") return message;
    // The library's English forms (src/io/files.cpp, atomic_write.cpp and npy.cpp), most specific first.
    static const MessageForm forms[] = {
        {R"((.*): cannot read: it is a folder, not a file)", N_("{1}: cannot read it: it is a folder, not a file")},
        {R"((.*): cannot open: (.*))", N_("{1}: cannot open it: {2}")},
        {R"((.*): cannot read: (.*))", N_("{1}: cannot read it: {2}")},
        {R"(cannot write (.*): the folder (.*) does not exist)", N_("cannot write {1}: the folder {2} does not exist")},
        {R"((.*): not a \.npy file \(it does not start with (.*)\); save tensors with numpy\.save)",
         N_("{1}: not a .npy file (it does not start with {2}); save tensors with numpy.save")},
        // The shape checker's messages (src/lib/shape.cpp: check_shapes, require_nonempty,
        // checked_value_count), the ones a student meets most: the argument's name, its shape and
        // legend stay as written.
        {R"((.*)shapes disagree: (.*) has (\S+) = (\d+) but (.*) has (\S+) = (\d+) \((\S+) must be (\d+)\); )"
         R"((\S+) must be (\(.*\)) = (\(.*\)))",
         N_("{1}shapes disagree: {2} has {3} = {4} but {5} has {6} = {7} ({8} must be {9}); {10} must be {11} = {12}")},
        {R"((.*)shapes disagree: (.*) has (\S+) = (\d+) but (.*) has (\S+) = (\d+) \((\S+) must be (\d+)\))",
         N_("{1}shapes disagree: {2} has {3} = {4} but {5} has {6} = {7} ({8} must be {9})")},
        {R"((.*)shapes disagree: (.*) has (\S+) = (\d+) but (.*) has (\S+) = (\d+); (\S+) must be (\(.*\)) = (\(.*\)))",
         N_("{1}shapes disagree: {2} has {3} = {4} but {5} has {6} = {7}; {8} must be {9} = {10}")},
        {R"((.*)shapes disagree: (.*) has (\S+) = (\d+) but (.*) has (\S+) = (\d+))",
         N_("{1}shapes disagree: {2} has {3} = {4} but {5} has {6} = {7}")},
        {R"((.*) has shape (\([0-9, ]*\)) \(rank (\d+)\) but (.*) needs rank (\d+): (\(.*\)))",
         N_("{1} has shape {2} (rank {3}) but {4} needs rank {5}: {6}")},
        {R"((.*) has shape (\([0-9, ]*\)): dimension (\S+) is 0; every dimension must be at least 1)",
         N_("{1} has shape {2}: dimension {3} is 0; every dimension must be at least 1")},
        {R"((.*) has shape (\([0-9, ]*\)); every dimension must be at least 1)",
         N_("{1} has shape {2}; every dimension must be at least 1")},
        {R"((.*): dimension (\d+) must be (\d+), it is (\d+))", N_("{1}: dimension {2} must be {3}, it is {4}")},
        {R"((.*): dimension (\S+) is (\d+), which is not a multiple of (\d+))",
         N_("{1}: dimension {2} is {3}, which is not a multiple of {4}")},
        {R"((.*): the shape (\([0-9, ]*\)) is too large: its non-zero sizes multiply to more than (\d+) values \(2\^28\), )"
         R"(the most one tensor may hold here)",
         N_("{1}: the shape {2} is too large: its non-zero sizes multiply to more than {3} values (2^28), the most one "
            "tensor may hold here")},
        {R"((.*): the shape (\([0-9, ]*\)) is too large: more than (\d+) values \(2\^28\), the most one tensor may hold here)",
         N_("{1}: the shape {2} is too large: more than {3} values (2^28), the most one tensor may hold here")},
        // `attn compute`'s --activation and --causal-alignment (src/lib/feed_forward.cpp, src/lib/masks.cpp).
        {R"(unknown activation '(.*)'; expected relu, gelu \(the exact erf form\) or gelu-tanh \(PyTorch's approximate="tanh"\))",
         N_("unknown activation '{1}'; expected relu, gelu (the exact erf form) or gelu-tanh (PyTorch's approximate=\"tanh\")")},
        {R"(unknown causal alignment '(.*)'; expected top-left \(query t sees keys 0 … t, PyTorch's default\) or bottom-right )"
         R"(\(the last query sees every key, as in KV-cache decoding\))",
         N_("unknown causal alignment '{1}'; expected top-left (query t sees keys 0 … t, PyTorch's default) or bottom-right "
            "(the last query sees every key, as in KV-cache decoding)")},
    };
    return rewritten(message, forms, false);
}

std::string usage_error_in_current_language(const std::string& message) {
    if (tutor::current_language() == "en") return message;  // CLI11's own words are the English
    // CLI11 2.1's English forms (CLI/Error.hpp, CLI/Validators.hpp), most specific first.
    static const MessageForm forms[] = {
        {R"(A subcommand( is required)?)", N_("a command is required: run attn --help for the list")},
        {R"(The following arguments? (?:was|were) not expected: (.*))", N_("unexpected arguments: {1}")},
        {R"(Could not convert: (.*) = (.*))", N_("{1}: cannot read '{2}' as a value of this option")},
        {R"((\S+): (\d+) required (.+) missing)", N_("{1}: needs a value ({2} × {3})")},
        {R"((\S+): Value (.*) not in range (.*) to (.*))", N_("{1}: {2} is not in the range {3} to {4}")},
        {R"((\S+): (.*) not in \{(.*)\})", N_("{1}: '{2}' is not one of: {3}")},
        {R"((\S+): File does not exist: (.*))", N_("{1}: the file {2} does not exist")},
        {R"((\S+): File is actually a directory: (.*))", N_("{1}: {2} is a folder, not a file")},
        {R"((\S+) requires (\S+))", N_("{1} needs {2}")},
        {R"((\S+) excludes (\S+))", N_("{1} cannot be given with {2}")},
        {R"((.+) is required)", N_("{1} is required")},
    };
    return rewritten(message, forms, true);
}

}  // namespace attn::cli
