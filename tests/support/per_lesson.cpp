// The per-lesson test cases of per_lesson.hpp.
#include "support/per_lesson.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <filesystem>

#include "tutor/lesson/lessons.hpp"

namespace attn::testing {

namespace {

// Catch2 keeps the test's name and tags as StringRefs: their text must outlive the run.
std::deque<std::string>& names() {
    static std::deque<std::string> kept;
    return kept;
}

class LessonInvoker : public Catch::ITestInvoker {
public:
    LessonInvoker(void (*test)(const LessonFolder&), LessonFolder lesson) : test_(test), lesson_(std::move(lesson)) {}
    void invoke() const override { test_(lesson_); }

private:
    void (*test_)(const LessonFolder&);
    LessonFolder lesson_;
};

}  // namespace

bool LessonFolder::has_exercise() const {
    std::error_code error;
    return std::filesystem::is_regular_file(std::filesystem::path(path) / "exercise" / "stub.cpp", error);
}

bool with_exercise(const LessonFolder& lesson) { return lesson.has_exercise(); }

const std::vector<LessonFolder>& lesson_folders() {
    static const std::vector<LessonFolder> folders = [] {
        namespace fs = std::filesystem;
        std::vector<LessonFolder> found;
        std::error_code error;
        for (const auto& entry : fs::directory_iterator(ATTN_SOURCE_DIR "/lessons", error)) {
            const std::string folder = entry.path().filename().string();
            const auto name = tutor::parse_lesson_folder(folder);
            if (!name || !fs::is_regular_file(entry.path() / "README.md", error)) continue;
            const std::string digits = std::to_string(name->number);
            found.push_back({name->number, folder, name->slug, entry.path().string(),
                             "[lesson" + std::string(digits.size() < 2 ? "0" : "") + digits + "]"});
        }
        std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
        return found;
    }();
    return folders;
}

PerLessonTests::PerLessonTests(const char* title, const char* tags, void (*test)(const LessonFolder&),
                               bool (*applies)(const LessonFolder&)) {
    for (const LessonFolder& lesson : lesson_folders()) {
        if (applies != nullptr && !applies(lesson)) continue;
        names().push_back("lesson " + std::to_string(lesson.number) + " - " + lesson.slug + " - " + title);
        const std::string& name = names().back();
        names().push_back(std::string(tags) + lesson.tag);
        const std::string& all_tags = names().back();
        Catch::AutoReg(new LessonInvoker(test, lesson), Catch::SourceLineInfo(__FILE__, __LINE__), Catch::StringRef(),
                       Catch::NameAndTags{name, all_tags});
    }
}

}  // namespace attn::testing
