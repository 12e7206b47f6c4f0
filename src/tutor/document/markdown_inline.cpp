#include "tutor/document/markdown_inline.hpp"

#include <algorithm>

#include "tutor/terminal/text_layout.hpp"

namespace attn::tutor {

std::string render_inline(const std::string& text, const Terminal& terminal) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == '`') {
            const std::size_t end = text.find('`', i + 1);
            if (end != std::string::npos) {
                std::string code = text.substr(i + 1, end - i - 1);
                std::replace(code.begin(), code.end(), ' ', unbreakable_space);
                out += paint(terminal, Style::code, code);
                i = end + 1;
                continue;
            }
        }
        if (text.compare(i, 2, "**") == 0) {
            const std::size_t end = text.find("**", i + 2);
            if (end != std::string::npos && end > i + 2) {
                out += paint(terminal, Style::bold, text.substr(i + 2, end - i - 2));
                i = end + 2;
                continue;
            }
        }
        if (text[i] == '*' && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '*') {
            const std::size_t end = text.find('*', i + 1);
            if (end != std::string::npos && text[end - 1] != ' ') {
                out += paint(terminal, Style::emphasis, text.substr(i + 1, end - i - 1));
                i = end + 1;
                continue;
            }
        }
        if (text[i] == '[') {
            const std::size_t close = text.find("](", i);
            const std::size_t end = close == std::string::npos ? close : text.find(')', close);
            if (close != std::string::npos && end != std::string::npos && text.find('\n', i) > end) {
                out += paint(terminal, Style::accent, text.substr(i + 1, close - i - 1));
                i = end + 1;
                continue;
            }
        }
        out += text[i++];
    }
    return out;
}

}  // namespace attn::tutor
