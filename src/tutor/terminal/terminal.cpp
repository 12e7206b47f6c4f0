#include "tutor/terminal/terminal.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tutor/terminal/key_input.hpp"

namespace attn::tutor {

namespace {

// A whole number from an environment variable, or empty.
std::optional<std::size_t> size_from_environment(const char* name) {
    const char* text = std::getenv(name);
    if (!text || !*text) return std::nullopt;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value <= 0 || value > 10000) return std::nullopt;
    return static_cast<std::size_t>(value);
}

// TERM=dumb (or no TERM): a terminal that may print escape sequences instead of obeying them.
bool dumb_terminal() {
    const char* name = std::getenv("TERM");
    return !name || !*name || std::string_view(name) == "dumb";
}

struct Range {
    char32_t first, last;
};

bool in_ranges(char32_t code_point, const Range* ranges, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        if (code_point >= ranges[i].first && code_point <= ranges[i].last) return true;
    }
    return false;
}

}  // namespace

std::optional<bool> background_from_colorfgbg(const char* colorfgbg) {
    if (!colorfgbg || !*colorfgbg) return std::nullopt;
    // "fg;bg" or "fg;default;bg": the background is the last field, an ANSI colour number.
    const std::string_view text(colorfgbg);
    const std::string_view last = text.substr(text.rfind(';') == std::string_view::npos ? 0 : text.rfind(';') + 1);
    if (last.empty() || last.size() > 2 || !std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    const int colour = std::stoi(std::string(last));
    if (colour > 15) return std::nullopt;
    return colour == 7 || colour >= 9;  // 0–6 and 8 are the dark colours
}

Terminal detect_terminal(const TerminalRequest& request) {
    Terminal terminal;
    const bool output_is_terminal = ::isatty(STDOUT_FILENO) == 1;
    const char* no_colour = std::getenv("NO_COLOR");
    terminal.colour = output_is_terminal && !(no_colour && *no_colour);
    terminal.interactive = output_is_terminal && ::isatty(STDIN_FILENO) == 1;
    winsize size{};
    if (output_is_terminal && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
        // Long lines are hard to follow on a projector: prose never spans more than 100 columns.
        terminal.width = std::min<std::size_t>(size.ws_col, 100);
        if (size.ws_row > 0) terminal.height = size.ws_row;
    } else {
        terminal.width = size_from_environment("COLUMNS").value_or(80);
        terminal.height = size_from_environment("LINES").value_or(24);
    }
    if (request.width) terminal.width = *request.width;
    if (request.height) terminal.height = *request.height;
    // Below these sizes nothing the tutor prints can fit.
    terminal.width = std::max<std::size_t>(terminal.width, 40);
    terminal.height = std::max<std::size_t>(terminal.height, 10);

    if (request.light) {
        terminal.light = *request.light;
    } else if (const auto from_environment = background_from_colorfgbg(std::getenv("COLORFGBG"))) {
        terminal.light = *from_environment;
    } else if (request.may_query_background && terminal.interactive && terminal.colour && !dumb_terminal()) {
        terminal.light = ask_terminal_background_is_light(STDIN_FILENO, STDOUT_FILENO, 150).value_or(false);
    }
    return terminal;
}

std::optional<std::size_t> redraw_columns(int fd) {
    const char* no_colour = std::getenv("NO_COLOR");
    if (::isatty(fd) != 1 || (no_colour && *no_colour) || dumb_terminal()) return std::nullopt;
    winsize size{};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return std::size_t(size.ws_col);
    return std::size_t(80);
}

std::string paint(const Terminal& terminal, Style style, const std::string& text) {
    if (!terminal.colour) return text;
    // Full-strength colours only: 256-colour mid-tones (such as 180) and the faint attribute
    // vanish on a projector. Each background gets colours that are dark or bright enough for it.
    const char* code = "";
    switch (style) {
        case Style::bold: code = "\033[1m"; break;
        case Style::dim: return text;
        case Style::emphasis: code = "\033[3m"; break;
        case Style::heading: code = terminal.light ? "\033[1;38;5;18m" : "\033[1;96m"; break;
        case Style::code: code = terminal.light ? "\033[38;5;90m" : "\033[93m"; break;
        case Style::good: code = terminal.light ? "\033[1;38;5;22m" : "\033[1;92m"; break;
        case Style::bad: code = terminal.light ? "\033[1;38;5;124m" : "\033[1;91m"; break;
        case Style::accent: code = terminal.light ? "\033[38;5;19m" : "\033[96m"; break;
        case Style::status_bar: code = "\033[7m"; break;
    }
    return code + text + "\033[0m";
}

int code_point_width(char32_t c) {
    // Zero width: combining marks, zero-width space and joiners, variation selectors.
    static const Range zero[] = {{0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
                                 {0x064B, 0x065F}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x1AB0, 0x1AFF},
                                 {0x1DC0, 0x1DFF}, {0x200B, 0x200F}, {0x2028, 0x202E}, {0x2060, 0x2064},
                                 {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF},
                                 {0xE0100, 0xE01EF}};
    // Two columns: East Asian wide and fullwidth characters, and emoji.
    static const Range wide[] = {{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC},
                                 {0x23F0, 0x23F0}, {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615},
                                 {0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
                                 {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE},
                                 {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
                                 {0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B},
                                 {0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755},
                                 {0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
                                 {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x303E},
                                 {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
                                 {0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19},
                                 {0xFE30, 0xFE6F}, {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x16FE4},
                                 {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
                                 {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B},
                                 {0x1F240, 0x1F248}, {0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F320},
                                 {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
                                 {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E},
                                 {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
                                 {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
                                 {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2},
                                 {0x1F6D5, 0x1F6D7}, {0x1F6DC, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
                                 {0x1F7E0, 0x1F7EB}, {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
                                 {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};
    if (c < 0x20 || c == 0x7F) return 0;  // control characters (the parser removes them from documents)
    if (c < 0x300) return 1;
    if (in_ranges(c, zero, sizeof zero / sizeof zero[0])) return 0;
    return in_ranges(c, wide, sizeof wide / sizeof wide[0]) ? 2 : 1;
}

std::size_t escape_sequence_length(const std::string& text, std::size_t start) {
    if (start >= text.size() || text[start] != '\033') return 0;
    std::size_t i = start + 1;
    if (i >= text.size()) return 1;
    if (text[i] == '[') {  // CSI: parameters and intermediates, then one final byte in @..~
        for (++i; i < text.size(); ++i) {
            const auto byte = static_cast<unsigned char>(text[i]);
            if (byte >= 0x40 && byte <= 0x7E) return i + 1 - start;
        }
        return text.size() - start;
    }
    if (text[i] == ']') {  // OSC: up to BEL or ESC backslash
        for (++i; i < text.size(); ++i) {
            if (text[i] == '\a') return i + 1 - start;
            if (text[i] == '\033' && i + 1 < text.size() && text[i + 1] == '\\') return i + 2 - start;
        }
        return text.size() - start;
    }
    return 2;
}

std::size_t utf8_character(const std::string& text, std::size_t start, char32_t& code_point) {
    const auto lead = static_cast<unsigned char>(text[start]);
    const std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
    if (length == 1 || start + length > text.size()) {
        code_point = lead;
        return 1;
    }
    code_point = lead & (0xFF >> (length + 1));
    for (std::size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[start + k]);
        if ((next & 0xC0) != 0x80) {  // a broken sequence: count the lead byte alone
            code_point = lead;
            return 1;
        }
        code_point = (code_point << 6) | (next & 0x3F);
    }
    return length;
}

std::size_t visible_width(const std::string& text) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < text.size();) {
        if (const std::size_t escape = escape_sequence_length(text, i)) {
            i += escape;
            continue;
        }
        char32_t code_point = 0;
        i += utf8_character(text, i, code_point);
        width += static_cast<std::size_t>(code_point_width(code_point));
    }
    return width;
}

}  // namespace attn::tutor
