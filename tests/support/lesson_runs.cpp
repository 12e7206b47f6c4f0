// The lesson runs of lesson_runs.hpp.
#include "support/lesson_runs.hpp"

namespace attn::testing {

tutor::LessonRun run_source_lesson(const std::string& number_or_slug) {
    return tutor::run_lesson(tutor::find_lesson(tutor::list_lessons(ATTN_SOURCE_DIR "/lessons"), number_or_slug));
}

attn::DynamicTensor computed(const tutor::LessonRun& run, const std::string& example, const std::string& name) {
    return run.computed.at(example).at(name);
}

}  // namespace attn::testing
