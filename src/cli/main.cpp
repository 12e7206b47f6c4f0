// attn — learn attention step by step.
//
// main only wires the commands, from one table: each command is an options struct and a run
// function (cli/commands.hpp, command_<name>.cpp) and a CLI11 set-up (cli/command_setup.hpp).
// Commands run after parsing, inside one try/catch, so that no exception escapes as an abort:
// bad input is exit 2 with a message, a failed check exit 1.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "cli/command_setup.hpp"
#include "cli/commands.hpp"
#include "cli/usage_language.hpp"
#include "tutor/language.hpp"

#ifndef ATTN_VERSION
#define ATTN_VERSION "unknown"
#endif

namespace attn::cli {

using tutor::tr;
using tutor::trf;

namespace {

// One command: the subcommand its set-up added, and its run function bound to its options.
struct Command {
    CLI::App* subcommand;
    std::function<int(const GlobalOptions&)> run;
};

// Sets up a command on `app` with an options struct of its own, which the run function keeps.
template <class Options>
Command wire(CLI::App& app, CLI::App* (*setup)(CLI::App&, Options&), int (*run)(const GlobalOptions&, const Options&)) {
    auto options = std::make_shared<Options>();
    CLI::App* subcommand = setup(app, *options);
    return {subcommand, [options, run](const GlobalOptions& global) { return run(global, *options); }};
}

// The table of commands, in the order `attn --help` lists them.
std::vector<Command> set_up_commands(CLI::App& app) {
    return {
        wire(app, setup_list, run_list),
        wire(app, setup_lesson, run_lesson),
        wire(app, setup_check, run_check),
        wire(app, setup_compute, run_compute),
        wire(app, setup_run, run_seed_example),
        wire(app, setup_train, run_train),
        wire(app, setup_exercise, run_exercise),
        wire(app, setup_progress, run_progress),
        wire(app, setup_bench, run_bench),
        wire(app, setup_heatmap, run_heatmap),
        wire(app, setup_view, run_view),
    };
}

// Every command speaks the tutor's languages (tutor/language.hpp); `attn --lang es --help` too.
void add_language_option(CLI::App& app, const std::vector<Command>& commands, std::string& language) {
    std::vector<CLI::App*> everywhere = {&app};
    for (const Command& command : commands) everywhere.push_back(command.subcommand);
    for (CLI::App* command : everywhere) {
        command->add_option("--lang", language,
                            tr("Language of the lesson, the hints and the tutor's messages: en or es (default: $ATTN_LANG, "
                            "else the locale: LC_ALL, LC_MESSAGES, LANG starting with es; else en)"));
    }
}
// Every message goes out through printable_text: it quotes paths, file contents and options,
// and no byte of those may drive the terminal.
int report_error(const std::string& kind, const std::string& message, int code) {
    std::cerr << "attn: " << kind << printable_text(message, LineBreaks::keep) << "\n";
    return code;
}

// The first word of the command line that is not an option: the command the user meant. CLI11
// alone would answer a misspelt one with "A subcommand is required", without naming it.
std::string command_word(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--lessons-dir" || word == "--lang") {
            ++i;  // its value
            continue;
        }
        if (!word.empty() && word[0] == '-') continue;
        return word;
    }
    return "";
}


// A word that names no command is refused with the list of commands (exit 2); nullopt otherwise.
std::optional<int> refuse_unknown_command(CLI::App& app, int argc, char** argv) {
    const std::string word = command_word(argc, argv);
    if (word.empty()) return std::nullopt;
    std::string known;
    bool found = false;
    for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
        known += (known.empty() ? "" : ", ") + command->get_name();
        found = found || command->get_name() == word;
    }
    if (found) return std::nullopt;
    return report_error(tr("error: "), trf("unknown command '{1}'; the commands are: {2}", {word, known}), exit_bad_input);
}

// Parses the command line: nullopt to go on, else the exit code (help, version, a usage error).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
        return std::nullopt;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // The parser's message quotes what was typed: printable, like every other message.
        std::cerr << tr("ERROR: ") << printable_text(usage_error_in_current_language(e.what()), LineBreaks::keep) << "\n"
                  << tr("Run with --help for more information.") << "\n";
        return exit_bad_input;
    }
}

// Runs the command that was parsed; every exception becomes a message and an exit code.
int run_parsed_command(const std::vector<Command>& commands, const GlobalOptions& global) {
    try {
        apply_language(global);
        for (const Command& command : commands) {
            if (*command.subcommand) return command.run(global);
        }
        return report_error("", tr("no command given; run attn --help"), exit_bad_input);
    } catch (const InputError& e) {
        return report_error(tr("error: "), library_error_in_current_language(e.what()), exit_bad_input);
    } catch (const std::bad_alloc&) {
        // Sizes from options are checked before allocating; `attn compute` adds its own hint about
        // the input shapes. What remains is a machine with less memory than the run needs.
        return report_error(tr("error: "), tr("out of memory: this run needs more memory than is available"), exit_bad_input);
    } catch (const std::exception& e) {
        return report_error(tr("internal error: "), trf("{1} (please report it)", {e.what()}), exit_internal_error);
    }
}

}  // namespace

int main(int argc, char** argv) {
    speak_before_parsing(argc, argv);  // the help and the option descriptions are in that language
    CLI::App app{tr("attn — learn attention step by step: lessons with worked numbers, checked against the library")};
    speak_usage_in_current_language(app);
    app.set_version_flag("--version", std::string("attn ") + ATTN_VERSION, tr("Display program version information and exit"));
    app.require_subcommand(1);
    app.fallthrough();
    app.footer(tr("Exit codes: 0 success, 1 a check failed, 2 bad input or usage, 3 internal error.\n"
               "Run 'attn COMMAND --help' for a command's options."));

    GlobalOptions global;
    app.add_option("--lessons-dir", global.lessons_dir,
                   tr("Folder of lesson documents (default: $ATTN_LESSONS_DIR, else the lessons/ of the source tree)"));
    const std::vector<Command> commands = set_up_commands(app);
    add_language_option(app, commands, global.language);
    translate_type_names(app);

    if (argc <= 1) {
        std::cout << app.help();
        return exit_bad_input;
    }
    if (const std::optional<int> refused = refuse_unknown_command(app, argc, argv)) return *refused;
    if (const std::optional<int> stop = parse_command_line(app, argc, argv)) return *stop;
    return run_parsed_command(commands, global);
}

}  // namespace attn::cli

int main(int argc, char** argv) { return attn::cli::main(argc, argv); }
