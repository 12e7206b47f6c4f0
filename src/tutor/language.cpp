#include "tutor/language.hpp"

#include <clocale>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <libintl.h>
#include <map>
#include <optional>
#include <unistd.h>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "tutor/catalogue_check.hpp"

#ifndef ATTN_BUILD_LOCALE_DIR
#define ATTN_BUILD_LOCALE_DIR ""
#endif

namespace attn::tutor {

namespace fs = std::filesystem;

namespace {

constexpr const char* text_domain = "attn";

std::string& language_in_use() {
    static std::string language = "en";
    return language;
}

// Whether tr() asks the catalogue: only when one was bound for a language other than English.
bool& catalogue_bound() {
    static bool bound = false;
    return bound;
}

// "es" for "es", "es_ES.UTF-8", "es-MX"; "en" likewise; "" for anything else.
std::string language_of(const std::string& name) {
    for (const auto& language : tutor_languages()) {
        if (name.rfind(language, 0) == 0 &&
            (name.size() == language.size() || name[language.size()] == '_' || name[language.size()] == '-' ||
             name[language.size()] == '.' || name[language.size()] == '@')) {
            return language;
        }
    }
    return "";
}

std::string choices() {
    std::string out;
    for (const auto& language : tutor_languages()) out += (out.empty() ? "" : ", ") + language;
    return out;
}

std::string program_directory() {
    std::error_code error;
    const fs::path program = fs::read_symlink("/proc/self/exe", error);
    return error ? std::string() : program.parent_path().string();
}

bool has_catalogue(const fs::path& directory, const std::string& language) {
    std::error_code error;
    return fs::is_regular_file(directory / language / "LC_MESSAGES" / (std::string(text_domain) + ".mo"), error);
}

// Checked once per run, before gettext maps the file (tutor/catalogue_check.hpp): a damaged
// catalogue is ignored with a one-line note in English, never handed to gettext.
bool catalogue_is_sound(const fs::path& directory, const std::string& language) {
    static std::map<std::string, bool> checked;
    const std::string path = (directory / language / "LC_MESSAGES" / (std::string(text_domain) + ".mo")).string();
    const auto found = checked.find(path);
    if (found != checked.end()) return found->second;
    std::optional<std::string> problem;
    try {
        problem = catalogue_problem(read_input_file(path, max_catalogue_bytes, "the catalogue"));
    } catch (const InputError& error) {
        problem = error.what();
    }
    if (problem) {
        std::cerr << "attn: note: the catalogue " << printable_text(path) << " is damaged (" << printable_text(*problem)
                  << "); it is ignored and the tutor's messages stay in English\n";
    }
    return checked[path] = !problem;
}

}  // namespace

const std::vector<std::string>& tutor_languages() {
    static const std::vector<std::string> languages = {"en", "es"};
    return languages;
}

LanguageEnvironment process_environment() {
    LanguageEnvironment environment;
    for (const char* name : {"ATTN_LANG", "LC_ALL", "LC_MESSAGES", "LANG"}) {
        if (const char* value = std::getenv(name)) environment[name] = value;
    }
    return environment;
}

std::string choose_language(const std::string& option, const LanguageEnvironment& environment) {
    if (!option.empty()) {
        for (const auto& language : tutor_languages()) {
            if (option == language) return language;
        }
        throw InputError(trf("--lang {1}: unknown language; the choices are: {2}", {printable_text(option), choices()}));
    }
    const auto value = [&environment](const char* name) {
        const auto found = environment.find(name);
        return found == environment.end() ? std::string() : found->second;
    };
    if (const std::string chosen = value("ATTN_LANG"); !chosen.empty()) {
        const std::string language = language_of(chosen);
        if (language.empty()) {
            throw InputError(trf("ATTN_LANG={1}: unknown language; the choices are: {2}", {printable_text(chosen), choices()}));
        }
        return language;
    }
    // POSIX: LC_ALL overrides LC_MESSAGES, which overrides LANG.
    for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
        if (const std::string locale = value(name); !locale.empty()) return language_of(locale) == "es" ? "es" : "en";
    }
    return "en";
}

std::string locale_directory() {
    const std::string program = program_directory();
    if (!program.empty()) {
        for (const fs::path& candidate : {fs::path(program) / "locale", fs::path(program) / ".." / "share" / "locale"}) {
            if (has_catalogue(candidate, "es")) return candidate.lexically_normal().string();
        }
    }
    return ATTN_BUILD_LOCALE_DIR;
}

bool use_language(const std::string& language) {
    // LANGUAGE as it was before the first change, put back when the tutor returns to English.
    static const std::optional<std::string> original_language_variable = []() -> std::optional<std::string> {
        if (const char* value = std::getenv("LANGUAGE")) return std::string(value);
        return std::nullopt;
    }();
    language_in_use() = language;  // the documents and hints follow it even without a catalogue
    if (catalogue_bound()) {
        if (original_language_variable) ::setenv("LANGUAGE", original_language_variable->c_str(), 1);
        else ::unsetenv("LANGUAGE");
    }
    catalogue_bound() = false;
    if (language == "en") return true;
    const std::string directory = locale_directory();
    if (directory.empty() || !has_catalogue(directory, language)) return false;
    if (!catalogue_is_sound(directory, language)) return true;  // English messages, the documents in `language`
    // LC_MESSAGES only, never LC_ALL or LC_NUMERIC: see the header.
    if (std::setlocale(LC_MESSAGES, "C.UTF-8") == nullptr && std::setlocale(LC_MESSAGES, "C.utf8") == nullptr) return false;
    ::setenv("LANGUAGE", language.c_str(), 1);
    ::bindtextdomain(text_domain, directory.c_str());
    ::bind_textdomain_codeset(text_domain, "UTF-8");
    catalogue_bound() = true;
    return true;
}

const std::string& current_language() { return language_in_use(); }

std::string tr(const char* english) {
    if (!catalogue_bound() || english == nullptr || *english == '\0') return english ? english : "";
    return ::dgettext(text_domain, english);
}

std::string tr(const std::string& english) { return tr(english.c_str()); }

namespace {

// `pattern` with {1}, {2}, … replaced by `values`.
std::string fill_placeholders(const std::string& pattern, std::initializer_list<std::string> values) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '{') {
            const std::size_t close = pattern.find('}', i);
            if (close != std::string::npos && close > i + 1 && close - i <= 3) {
                const std::string digits = pattern.substr(i + 1, close - i - 1);
                if (digits.find_first_not_of("0123456789") == std::string::npos) {
                    const std::size_t n = std::stoul(digits);
                    if (n >= 1 && n <= values.size()) {
                        out += *(values.begin() + (n - 1));
                        i = close;
                        continue;
                    }
                }
            }
        }
        out += pattern[i];
    }
    return out;
}

}  // namespace

std::string trf(const char* english, std::initializer_list<std::string> values) {
    return fill_placeholders(tr(english), values);
}

std::string trfc(const char* context, const char* english, std::initializer_list<std::string> values) {
    if (!catalogue_bound()) return fill_placeholders(english, values);
    // GNU gettext's pgettext: the catalogue's key is the context, EOT (\4), the message.
    const std::string key = std::string(context) + '\4' + english;
    const char* found = ::dgettext(text_domain, key.c_str());
    return fill_placeholders(found == key ? english : found, values);
}

std::string trn(const char* singular, const char* plural, unsigned long count, std::initializer_list<std::string> values) {
    const char* form = count == 1 ? singular : plural;
    if (catalogue_bound()) form = ::dngettext(text_domain, singular, plural, count);
    return fill_placeholders(form, values);
}

std::string localized_file(const std::string& path) {
    if (language_in_use() == "en") return path;
    const fs::path original(path);
    const fs::path edition = original.parent_path() / (original.stem().string() + "." + language_in_use() + original.extension().string());
    std::error_code error;
    return fs::is_regular_file(edition, error) ? edition.string() : path;
}

}  // namespace attn::tutor
