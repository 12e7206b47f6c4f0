#include "tutor/document/tensor_literal.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "attn/printable.hpp"

namespace attn::tutor {

LessonFormatError::LessonFormatError(const std::string& message) : InputError(message) {}

namespace {

// A recursive-descent reader over the literal; tracks line and column for its messages. Its
// recursion is one level per '[', so the depth is limited (max_literal_depth): a document
// nested 30 000 deep is a clear error, not a stack overflow.
class Reader {
public:
    Reader(const std::string& text, const std::string& file, int first_line)
        : text_(text), file_(file), line_(first_line) {}

    TensorLiteral read() {
        skip_space();
        bool wrapped = false;
        if (text_.compare(at_, 7, "tensor(") == 0) {
            wrapped = true;
            advance(7);
        }
        skip_space();
        if (peek() != '[') fail("expected '[' to open a tensor, found " + describe_here());
        read_nested(0);
        skip_space();
        if (wrapped) {
            if (peek() == ',') {
                // PyTorch appends ", dtype=torch.float64" to non-float32 tensors: accepted, ignored.
                advance(1);
                skip_space();
                const std::size_t start = at_;
                while (at_ < text_.size() && text_[at_] != ')') advance(1);
                const std::string suffix = text_.substr(start, at_ - start);
                if (suffix.rfind("dtype=torch.float", 0) != 0) {
                    fail("only a dtype=torch.float… suffix may follow the values, found '" + printable_excerpt(suffix, 60) + "'");
                }
            }
            if (peek() != ')') fail("expected ')' to close 'tensor(', found " + describe_here());
            advance(1);
            skip_space();
        }
        if (at_ != text_.size()) fail("unexpected " + describe_here() + " after the tensor");

        TensorLiteral literal;
        std::vector<std::size_t> shape(shape_.begin(), shape_.end());
        literal.tensor = DynamicTensor::from_shape(shape);
        std::copy(values_.begin(), values_.end(), literal.tensor.begin());
        literal.resolution = std::move(resolution_);
        return literal;
    }

private:
    const std::string& text_;
    const std::string& file_;
    int line_;
    int column_ = 1;
    std::size_t at_ = 0;
    std::vector<std::size_t> shape_;  // sizes fixed by the first list seen at each depth
    std::vector<double> values_, resolution_;
    std::size_t depth_of_numbers_ = SIZE_MAX;

    [[noreturn]] void fail(const std::string& what) const {
        throw LessonFormatError(file_ + ":" + std::to_string(line_) + ":" + std::to_string(column_) + ": " + what);
    }

    char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }

    std::string describe_here() const {
        if (at_ >= text_.size()) return "the end of the block";
        if (text_[at_] == '\n') return "the end of a line";
        // The whole UTF-8 character, made printable (a lone byte of "é" or an ESC would not be).
        std::size_t length = 1;
        while (length < 4 && at_ + length < text_.size() && (static_cast<unsigned char>(text_[at_ + length]) & 0xC0) == 0x80) {
            ++length;
        }
        return "'" + printable_text(text_.substr(at_, length)) + "'";
    }

    void advance(std::size_t count) {
        for (std::size_t i = 0; i < count && at_ < text_.size(); ++i, ++at_) {
            if (text_[at_] == '\n') {
                ++line_;
                column_ = 1;
            } else {
                ++column_;
            }
        }
    }

    void skip_space() {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) advance(1);
    }

    // '[' item (',' item)* ']' where every item is a number or every item is a nested list.
    void read_nested(std::size_t depth) {
        if (depth >= max_literal_depth) {
            fail("the lists are nested more than " + std::to_string(max_literal_depth) +
                 " deep; a tensor has at most that many axes");
        }
        advance(1);  // '['
        skip_space();
        std::size_t count = 0;
        if (peek() == ']') fail("an empty list '[]' cannot be checked; write at least one value");
        while (true) {
            skip_space();
            if (peek() == '.') fail("'...' marks a summarized print, which cannot be checked; print the whole tensor");
            if (peek() == '[') {
                if (depth_of_numbers_ == depth) fail("a list where a number was expected (ragged nesting)");
                read_nested(depth + 1);
            } else {
                if (depth_of_numbers_ == SIZE_MAX) depth_of_numbers_ = depth;
                if (depth_of_numbers_ != depth) fail("a number where a list was expected (ragged nesting)");
                read_number();
            }
            ++count;
            skip_space();
            if (peek() == ',') {
                advance(1);
                skip_space();
                if (peek() == ']') break;  // a trailing comma, as Python allows
                continue;
            }
            if (peek() == ']') break;
            fail("expected ',' or ']', found " + describe_here());
        }
        advance(1);  // ']'
        // Inner lists close first, so a depth may be sized before the ones above it; 0 means
        // "not seen yet" (an empty list is refused above).
        if (shape_.size() <= depth) shape_.resize(depth + 1, 0);
        if (shape_[depth] == 0) {
            shape_[depth] = count;
        } else if (shape_[depth] != count) {
            fail("this list has " + std::to_string(count) + " elements but an earlier list at the same depth has " +
                 std::to_string(shape_[depth]) + " (every row must have the same length)");
        }
    }

    void read_number() {
        const std::size_t start = at_;
        if (peek() == '-' || peek() == '+') advance(1);
        if (text_.compare(at_, 3, "nan") == 0) {
            // NaN equals nothing, not even itself: a value written as nan could never be checked,
            // and the library never returns one (a fully masked row is zeros).
            fail("nan cannot be checked (NaN equals nothing); write the value the lesson expects");
        }
        if (text_.compare(at_, 3, "inf") == 0) {
            // PyTorch prints the masked scores as -inf: written as such, they are exact.
            advance(3);
            const bool negative = text_[start] == '-';
            values_.push_back((negative ? -1.0 : 1.0) * std::numeric_limits<double>::infinity());
            resolution_.push_back(0.0);
            return;
        }
        int decimals = 0;
        bool digits = false;
        while (std::isdigit(static_cast<unsigned char>(peek()))) {
            advance(1);
            digits = true;
        }
        if (peek() == '.') {
            advance(1);
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                advance(1);
                ++decimals;
                digits = true;
            }
        }
        if (!digits) {
            at_ = start;
            fail("expected a number, found " + describe_here());
        }
        // The exponent saturates at ±100 000 instead of overflowing: far past float64's range
        // either way (1e400 is refused below, 1e-99999 is 0).
        long exponent = 0;
        if (peek() == 'e' || peek() == 'E') {
            advance(1);
            const bool negative_exponent = peek() == '-';
            if (peek() == '-' || peek() == '+') advance(1);
            if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected the digits of an exponent");
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                exponent = std::min(100000L, exponent * 10 + (peek() - '0'));
                advance(1);
            }
            if (negative_exponent) exponent = -exponent;
        }
        const std::string number = text_.substr(start, at_ - start);
        const double value = std::strtod(number.c_str(), nullptr);
        if (std::isinf(value)) {
            fail(printable_excerpt(number, 40) + " is beyond the range of a float64 (about ±1.8e308); write inf if "
                 "infinity is meant");
        }
        values_.push_back(value);
        // "1.9991" stands for [1.99905, 1.99915]; "50." and "50" are exact.
        resolution_.push_back(decimals == 0 ? 0.0 : 0.5 * std::pow(10.0, double(exponent - decimals)));
    }
};

}  // namespace

TensorLiteral parse_tensor_literal(const std::string& text, const std::string& file, int first_line) {
    return Reader(text, file, first_line).read();
}

}  // namespace attn::tutor
