// The language the commands speak (--lang, ATTN_LANG, the locale: tutor/language.hpp), and a
// lesson read in it, falling back to English with a one-line note when its edition is missing.
#include <iostream>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "cli/commands.hpp"
#include "tutor/language.hpp"
#include "tutor/lesson/lessons.hpp"

namespace attn::cli {

void speak_before_parsing(int argc, char** argv) {
    std::string option;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--lang" && i + 1 < argc) option = argv[i + 1];
        if (word.rfind("--lang=", 0) == 0) option = word.substr(7);
    }
    tutor::LanguageEnvironment environment = tutor::process_environment();
    for (;;) {
        try {
            tutor::use_language(tutor::choose_language(option, environment));
            return;
        } catch (const InputError&) {
            // An unknown --lang, then an unknown ATTN_LANG, is left for apply_language to report.
            if (!option.empty()) option.clear();
            else environment.erase("ATTN_LANG");  // the locale alone never fails
        }
    }
}

void apply_language(const GlobalOptions& global) {
    const std::string language = tutor::choose_language(global.language, tutor::process_environment());
    if (!tutor::use_language(language)) {
        std::cerr << "attn: note: the tutor's messages in '" << language << "' are not available (no attn.mo under "
                  << tutor::locale_directory() << "); they stay in English\n";  // English: no catalogue
    }
}

tutor::LessonInfo lesson_in_language(const tutor::LessonInfo& lesson) {
    const std::string& language = tutor::current_language();
    if (auto edition = tutor::lesson_edition(lesson, language)) return *edition;
    std::cerr << "attn: "
              << tutor::trf("note: lesson {1} has no edition in this language ({2}); showing the English one",
                            {std::to_string(lesson.number), printable_text(tutor::edition_path(lesson, language))})
              << "\n";
    return lesson;
}

}  // namespace attn::cli
