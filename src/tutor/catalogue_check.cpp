#include "tutor/catalogue_check.hpp"

#include <cstdint>

namespace attn::tutor {

namespace {

// The layout (GNU gettext's manual, "The Format of GNU MO Files"): seven 32-bit words — magic,
// revision, N strings, offset of the originals' table, offset of the translations' table, hash
// table size and offset — in the byte order the magic reveals. Each table holds N (length,
// offset) pairs; each string is followed by a NUL.
constexpr std::uint32_t magic = 0x950412de, swapped_magic = 0xde120495;

class Words {
public:
    explicit Words(const std::string& bytes) : bytes_(bytes) {}
    bool swapped = false;
    // The word at `at`; the caller has checked that it lies inside the file.
    std::uint32_t at(std::uint64_t offset) const {
        std::uint32_t value = 0;
        for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes_[offset + static_cast<unsigned>(i)]);
        if (!swapped) return value;
        return (value >> 24) | ((value >> 8) & 0xff00) | ((value << 8) & 0xff0000) | (value << 24);
    }
    bool inside(std::uint64_t offset, std::uint64_t length) const {
        return offset <= bytes_.size() && length <= bytes_.size() - offset;
    }

private:
    const std::string& bytes_;
};

// Every (length, offset) pair of one table names a NUL-terminated string inside the file.
std::optional<std::string> table_problem(const std::string& bytes, const Words& words, std::uint64_t table,
                                         std::uint64_t count, const char* what) {
    if (table % 4 != 0 || !words.inside(table, count * 8)) return std::string("the ") + what + " table lies outside the file";
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t length = words.at(table + 8 * i), offset = words.at(table + 8 * i + 4);
        if (!words.inside(offset, length + 1) || bytes[offset + length] != '\0') {
            return std::string("string ") + std::to_string(i) + " of the " + what + " table runs past the end of the file";
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> catalogue_problem(const std::string& bytes) {
    Words words(bytes);
    if (bytes.size() < 28) return std::string("it is too short for a catalogue");
    const std::uint32_t first = words.at(0);
    if (first != magic && first != swapped_magic) return std::string("it does not start with the catalogue magic number");
    words.swapped = first == swapped_magic;
    if (words.at(4) != 0) return "revision " + std::to_string(words.at(4)) + " (msgfmt builds revision 0)";
    const std::uint64_t count = words.at(8), originals = words.at(12), translations = words.at(16);
    const std::uint64_t hash_size = words.at(20), hash_table = words.at(24);
    if (count > bytes.size() / 16) return "it claims " + std::to_string(count) + " strings, more than the file can hold";
    if (auto problem = table_problem(bytes, words, originals, count, "originals'")) return problem;
    if (auto problem = table_problem(bytes, words, translations, count, "translations'")) return problem;
    if (hash_size != 0) {
        if (hash_table % 4 != 0 || !words.inside(hash_table, hash_size * 4)) return std::string("the hash table lies outside the file");
        for (std::uint64_t i = 0; i < hash_size; ++i) {
            // 0 is an empty slot; otherwise the string's index plus one.
            if (words.at(hash_table + 4 * i) > count) return "hash slot " + std::to_string(i) + " names a string that does not exist";
        }
    }
    return std::nullopt;
}

}  // namespace attn::tutor
