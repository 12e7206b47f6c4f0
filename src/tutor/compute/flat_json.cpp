// A strict reader of one flat JSON object (tutor/compute/flat_json.hpp), RFC 8259's grammar.
#include "tutor/compute/flat_json.hpp"

#include <charconv>
#include <cmath>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

// The length of the UTF-8 sequence starting at `at`, or 0 when it is not well-formed (overlong
// forms, surrogates and code points past U+10FFFF are not).
std::size_t utf8_length(const std::string& text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
    const unsigned lead = byte(at);
    if (lead < 0x80) return 1;
    std::size_t length = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
    if (length == 0) return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(at + i) & 0xC0) != 0x80) return 0;
    }
    const unsigned second = byte(at + 1);
    if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) || (lead == 0xF0 && second < 0x90) ||
        (lead == 0xF4 && second > 0x8F)) {
        return 0;  // overlong, a surrogate, or past U+10FFFF
    }
    return length;
}

void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

class Reader {
public:
    Reader(const std::string& text, const std::string& where) : text_(text), where_(where) {}

    FlatJson object() {
        for (std::size_t at = 0; at < text_.size();) {
            const std::size_t length = utf8_length(text_, at);
            if (length == 0) fail_at(at, tr("a byte that is not UTF-8"));
            at += length;
        }
        FlatJson members;
        skip_space();
        expect('{', tr("a '{' (a config is one JSON object)"));
        skip_space();
        if (!take('}')) {
            do {
                skip_space();
                const std::size_t key_at = at_;
                if (peek() != '"') fail(tr("a key in double quotes"));
                std::string key = string_value();
                for (const auto& [earlier, value] : members) {
                    if (earlier == key) fail_at(key_at, trf("the key \"{1}\" a second time", {printable_excerpt(key, 60)}));
                }
                skip_space();
                expect(':', tr("':' after the key"));
                skip_space();
                JsonValue value = scalar(key);
                members.emplace_back(std::move(key), std::move(value));
                skip_space();
            } while (take(','));
            expect('}', tr("',' or '}'"));
        }
        skip_space();
        if (at_ != text_.size()) fail(tr("the end of the text after the object"));
        return members;
    }

private:
    const std::string& text_;
    const std::string& where_;
    std::size_t at_ = 0;

    char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
    bool take(char c) {
        if (at_ >= text_.size() || text_[at_] != c) return false;
        ++at_;
        return true;
    }
    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
    }
    void expect(char c, const std::string& what) {
        if (!take(c)) fail(what);
    }
    [[noreturn]] void fail(const std::string& expected) const {
        fail_at(at_, at_ >= text_.size() ? trf("the text ends where {1} was expected", {expected})
                                         : trf("expected {1}", {expected}));
    }
    [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
        throw InputError(trf("{1} is not the flat JSON object a config is: {2} at byte {3}",
                             {where_, what, std::to_string(at)}));
    }

    JsonValue scalar(const std::string& key) {
        JsonValue value;
        const std::size_t start = at_;
        const char c = peek();
        if (c == '{' || c == '[') {
            fail_at(start, trf("the value of \"{1}\" is an object or an array; a config holds numbers, true, false "
                               "and strings",
                               {printable_excerpt(key, 60)}));
        }
        if (c == '"') {
            value.kind = JsonValue::Kind::string;
            value.text = string_value();
        } else if (word("true") || word("false")) {
            value.kind = JsonValue::Kind::boolean;
            value.boolean = c == 't';
        } else if (word("null")) {
            value.kind = JsonValue::Kind::null;
        } else {
            value.kind = JsonValue::Kind::number;
            number(value);
        }
        value.literal = printable_excerpt(std::string_view(text_).substr(start, at_ - start), 40);
        return value;
    }

    bool word(const char* literal) {
        const std::string w = literal;
        if (text_.compare(at_, w.size(), w) != 0) return false;
        at_ += w.size();
        return true;
    }

    std::size_t digits() {
        const std::size_t start = at_;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
        return at_ - start;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, finite in double.
    void number(JsonValue& value) {
        const std::size_t start = at_;
        take('-');
        const char first = peek();
        const std::size_t integer_digits = digits();
        if (integer_digits == 0 || (first == '0' && integer_digits > 1)) fail_at(start, tr("a value that is not JSON"));
        value.whole = true;
        if (take('.')) {
            value.whole = false;
            if (digits() == 0) fail_at(start, tr("a number without digits after its '.'"));
        }
        if (take('e') || take('E')) {
            value.whole = false;
            if (!take('+')) take('-');
            if (digits() == 0) fail_at(start, tr("a number without digits in its exponent"));
        }
        const auto [end, error] = std::from_chars(text_.data() + start, text_.data() + at_, value.number);
        if (error != std::errc() || end != text_.data() + at_ || !std::isfinite(value.number)) {
            fail_at(start, tr("a number beyond double's range"));
        }
    }

    unsigned hex4() {
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = peek();
            const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (digit < 0) fail(tr("four hexadecimal digits after \\u"));
            code = code * 16 + static_cast<unsigned>(digit);
            ++at_;
        }
        return code;
    }

    // A string's value; the text is already known to be UTF-8.
    std::string string_value() {
        ++at_;  // the opening quote
        std::string out;
        while (true) {
            if (at_ >= text_.size()) fail(tr("the closing '\"' of a string"));
            const char c = text_[at_];
            if (c == '"') break;
            if (static_cast<unsigned char>(c) < 0x20) fail_at(at_, tr("a control character inside a string"));
            if (c != '\\') {
                out += c;
                ++at_;
                continue;
            }
            ++at_;
            const char escaped = peek();
            ++at_;
            switch (escaped) {
                case '"': case '\\': case '/': out += escaped; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': out_code_point(out); break;
                default: fail_at(at_ - 2, tr("an escape JSON does not have"));
            }
        }
        ++at_;
        return out;
    }

    // \uXXXX, a surrogate pair as two of them; a lone surrogate is refused.
    void out_code_point(std::string& out) {
        const std::size_t start = at_ - 2;
        unsigned code = hex4();
        if (code >= 0xDC00 && code <= 0xDFFF) fail_at(start, tr("a lone UTF-16 surrogate"));
        if (code >= 0xD800 && code <= 0xDBFF) {
            if (!word("\\u")) fail_at(start, tr("a lone UTF-16 surrogate"));
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail_at(start, tr("a lone UTF-16 surrogate"));
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, code);
    }
};

}  // namespace

FlatJson parse_flat_json(const std::string& text, const std::string& where) { return Reader(text, where).object(); }

}  // namespace attn::tutor
