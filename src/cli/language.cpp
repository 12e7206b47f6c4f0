// The language the commands speak (--lang, ATTN_LANG, the locale: tutor/language.hpp), and a
// lesson read in it, falling back to English with a one-line note when its edition is missing.
#include <iostream>

#include "attn/printable.hpp"
#include "cli/commands.hpp"
#include "tutor/language.hpp"
#include "tutor/lessons.hpp"

namespace attn::cli {

void apply_language(const GlobalOptions& global) {
    const std::string language = tutor::choose_language(global.language, tutor::process_environment());
    if (!tutor::use_language(language)) {
        std::cerr << "attn: note: the tutor's messages in '" << language << "' are not available (no attn.mo under "
                  << tutor::locale_directory() << "); they stay in English\n";
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
