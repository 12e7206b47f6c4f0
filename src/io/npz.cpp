// .npz archives (attn/npz.hpp): the zip central directory, then each member stored or inflated
// with zlib, bounded by its own .npy header and checked against its CRC-32.
#include "attn/npz.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

constexpr std::uint32_t end_of_directory_signature = 0x06054b50, zip64_end_signature = 0x06064b50,
                        zip64_locator_signature = 0x07064b50, directory_entry_signature = 0x02014b50,
                        local_header_signature = 0x04034b50;
// The largest .npy member: the largest tensor (attn/shape.hpp) in float64 and a generous header.
constexpr std::uint64_t max_member_bytes = std::uint64_t(max_tensor_values) * 8 + (1u << 20);
constexpr std::uint32_t stored = 0, deflated = 8;

[[noreturn]] void fail(const std::string& archive, const std::string& member, const std::string& what) {
    throw InputError(printable_text(archive) + (member.empty() ? "" : ": member " + printable_text(member)) + ": " + what);
}

// Little-endian reads that fail, naming the archive, instead of reading past the end.
struct Reader {
    const std::string& bytes;
    const std::string& archive;
    std::uint64_t u(std::uint64_t at, int size, const std::string& member = "") const {
        if (at > bytes.size() || bytes.size() - at < static_cast<std::uint64_t>(size)) {
            fail(archive, member, "truncated .npz archive (a zip record runs past the end of the file)");
        }
        std::uint64_t value = 0;
        for (int i = size - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
        return value;
    }
};

struct Entry {
    std::string name;
    std::uint32_t method = 0, crc = 0;
    std::uint64_t compressed = 0, uncompressed = 0, local_offset = 0;
};

// The zip64 extended information of a central entry: the 64-bit values of the fields that are 0xFFFFFFFF.
void read_zip64_extra(const Reader& r, std::uint64_t at, std::uint64_t end, Entry& entry) {
    while (at + 4 <= end) {
        const std::uint64_t id = r.u(at, 2, entry.name), size = r.u(at + 2, 2, entry.name);
        if (at + 4 + size > end) fail(r.archive, entry.name, "a zip extra field runs past its entry");
        if (id == 0x0001) {
            std::uint64_t field = at + 4;
            for (std::uint64_t* value : {&entry.uncompressed, &entry.compressed, &entry.local_offset}) {
                if (*value != 0xFFFFFFFFu) continue;
                if (field + 8 > at + 4 + size) fail(r.archive, entry.name, "a zip64 extra field is too short");
                *value = r.u(field, 8, entry.name);
                field += 8;
            }
        }
        at += 4 + size;
    }
}

std::vector<Entry> central_directory(const Reader& r) {
    const std::string& bytes = r.bytes;
    if (bytes.size() < 22) fail(r.archive, "", "not an .npz archive: too short for a zip file (save it with numpy.savez)");
    // The end-of-directory record: within the last 22 + 65535 bytes (its comment).
    std::uint64_t end = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t lowest = bytes.size() > 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
    for (std::uint64_t at = bytes.size() - 22 + 1; at-- > lowest;) {
        if (r.u(at, 4) == end_of_directory_signature) {
            end = at;
            break;
        }
    }
    if (end == std::numeric_limits<std::uint64_t>::max()) {
        fail(r.archive, "", "not an .npz archive (no zip end-of-directory record); save it with numpy.savez");
    }
    std::uint64_t count = r.u(end + 10, 2), size = r.u(end + 12, 4), offset = r.u(end + 16, 4);
    if ((count == 0xFFFF || size == 0xFFFFFFFFu || offset == 0xFFFFFFFFu) && end >= 20 &&
        r.u(end - 20, 4) == zip64_locator_signature) {
        const std::uint64_t zip64_end = r.u(end - 20 + 8, 8);
        if (r.u(zip64_end, 4) != zip64_end_signature) fail(r.archive, "", "a broken zip64 end-of-directory record");
        count = r.u(zip64_end + 32, 8);
        size = r.u(zip64_end + 40, 8);
        offset = r.u(zip64_end + 48, 8);
    }
    if (count > max_npz_members) {
        fail(r.archive, "", "the archive claims " + std::to_string(count) + " members; at most " +
                                std::to_string(max_npz_members) + " are read");
    }
    if (offset > bytes.size() || size > bytes.size() - offset) fail(r.archive, "", "the zip central directory lies outside the file");
    std::vector<Entry> entries;
    std::uint64_t at = offset;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (r.u(at, 4) != directory_entry_signature) fail(r.archive, "", "a broken zip central directory (entry " + std::to_string(i) + ")");
        Entry entry;
        const std::uint64_t flags = r.u(at + 8, 2);
        entry.method = static_cast<std::uint32_t>(r.u(at + 10, 2));
        entry.crc = static_cast<std::uint32_t>(r.u(at + 16, 4));
        entry.compressed = r.u(at + 20, 4);
        entry.uncompressed = r.u(at + 24, 4);
        const std::uint64_t name_length = r.u(at + 28, 2), extra_length = r.u(at + 30, 2), comment_length = r.u(at + 32, 2);
        entry.local_offset = r.u(at + 42, 4);
        if (at + 46 + name_length > bytes.size()) fail(r.archive, "", "truncated .npz archive (a member's name)");
        entry.name = bytes.substr(at + 46, name_length);
        read_zip64_extra(r, at + 46 + name_length, at + 46 + name_length + extra_length, entry);
        if (flags & 1) fail(r.archive, entry.name, "the member is encrypted");
        entries.push_back(entry);
        at += 46 + name_length + extra_length + comment_length;
    }
    return entries;
}

// Inflates `compressed` into at most `limit` bytes; the .npy header, once inflated, must declare
// exactly `limit` bytes, so a member never inflates beyond the size of the tensor it describes.
std::string inflate_member(const Reader& r, const Entry& entry, const char* data, std::uint64_t size, std::uint64_t limit,
                           NpyAccept accept) {
    // The stream is released on every way out, a throw included (the .npy header check throws).
    struct Stream {
        z_stream z{};
        bool open = false;
        ~Stream() {
            if (open) inflateEnd(&z);
        }
    } guard;
    z_stream& stream = guard.z;
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
    guard.open = true;
    std::string out;
    bool header_checked = false;
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    stream.avail_in = static_cast<uInt>(std::min<std::uint64_t>(size, std::numeric_limits<uInt>::max()));
    std::uint64_t fed = stream.avail_in;
    int status = Z_OK;
    char chunk[1 << 16];
    while (status != Z_STREAM_END) {
        stream.next_out = reinterpret_cast<Bytef*>(chunk);
        stream.avail_out = sizeof chunk;
        status = inflate(&stream, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
            fail(r.archive, entry.name, std::string("corrupt deflate data (zlib: ") + (stream.msg ? stream.msg : "error") + ")");
        }
        const std::size_t produced = sizeof chunk - stream.avail_out;
        if (out.size() + produced > limit) {
            fail(r.archive, entry.name, "inflates to more than the " + std::to_string(limit) +
                                            " bytes it declares; refused (a zip bomb, or a corrupt archive)");
        }
        out.append(chunk, produced);
        if (!header_checked) {
            const std::size_t declared = npy_declared_size(out.size() >= 12 ? out : std::string(),
                                                           printable_text(r.archive) + ": member " + printable_text(entry.name), accept);
            if (declared != 0) {
                header_checked = true;
                if (declared != limit) {
                    fail(r.archive, entry.name, "the zip directory says " + std::to_string(limit) +
                                                    " bytes, the member's .npy header " + std::to_string(declared));
                }
            }
        }
        if (status == Z_BUF_ERROR || (status == Z_OK && produced == 0 && stream.avail_in == 0)) {
            if (stream.avail_in == 0 && fed < size) {  // more than 4 GiB of input: feed the rest
                const std::uint64_t more = std::min<std::uint64_t>(size - fed, std::numeric_limits<uInt>::max());
                stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data + fed));
                stream.avail_in = static_cast<uInt>(more);
                fed += more;
                continue;
            }
            fail(r.archive, entry.name, "truncated deflate data: the member ends after " + std::to_string(out.size()) +
                                            " of " + std::to_string(limit) + " bytes");
        }
    }
    return out;
}

std::string key_of(const std::string& member) {
    const std::string suffix = ".npy";
    if (member.size() > suffix.size() && member.compare(member.size() - suffix.size(), suffix.size(), suffix) == 0) {
        return member.substr(0, member.size() - suffix.size());
    }
    return member;
}

}  // namespace

namespace {

// Where a member's data lies in the archive, from its local header to the end of its data.
struct Span {
    std::uint64_t begin = 0, data = 0, end = 0;
};

// Refuses what must not reach the inflater: a member named with a folder (numpy.savez writes bare
// names; "model/w_o.npy" or "../w_o.npy" is never guessed to be w_o), a member too large, members
// that together inflate past the limit, and entries whose data overlap (one compressed member
// listed many times would inflate many times).
std::vector<Span> check_entries(const Reader& r, const std::vector<Entry>& entries) {
    std::vector<Span> spans;
    std::uint64_t total = 0;
    for (const Entry& entry : entries) {
        if (entry.name.find_first_of("/\\") != std::string::npos) {
            const std::size_t slash = entry.name.find_last_of("/\\");
            fail(r.archive, entry.name, "the member's name has a folder in it; numpy.savez writes bare names such as '" +
                                            printable_text(entry.name.substr(slash + 1)) +
                                            "', and a member is never guessed from its path: rename it");
        }
        if (entry.uncompressed > max_member_bytes) {
            fail(r.archive, entry.name, "the member claims " + std::to_string(entry.uncompressed) +
                                            " bytes, more than the largest tensor read (" + std::to_string(max_member_bytes) + ")");
        }
        total += entry.uncompressed;
        if (total > max_npz_inflated_bytes) {
            fail(r.archive, "", "the members together claim more than " + std::to_string(max_npz_inflated_bytes) +
                                    " bytes once inflated (the limit for a whole archive); refused before inflating any");
        }
        if (r.u(entry.local_offset, 4, entry.name) != local_header_signature) fail(r.archive, entry.name, "a broken zip local header");
        Span span;
        span.begin = entry.local_offset;
        span.data = entry.local_offset + 30 + r.u(entry.local_offset + 26, 2, entry.name) + r.u(entry.local_offset + 28, 2, entry.name);
        if (span.data > r.bytes.size() || entry.compressed > r.bytes.size() - span.data) {
            fail(r.archive, entry.name, "truncated .npz archive: the member's data runs past the end of the file");
        }
        span.end = span.data + entry.compressed;
        spans.push_back(span);
    }
    std::vector<std::size_t> order(spans.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return spans[a].begin < spans[b].begin; });
    for (std::size_t i = 1; i < order.size(); ++i) {
        const Span &before = spans[order[i - 1]], &after = spans[order[i]];
        if (after.begin < before.end) {
            fail(r.archive, "", "the zip entries of members " + printable_text(entries[order[i - 1]].name) + " and " +
                                    printable_text(entries[order[i]].name) +
                                    " overlap in the file (one member's data listed twice); refused (a zip bomb, or a corrupt archive)");
        }
    }
    return spans;
}

}  // namespace

std::vector<NpzMember> parse_npz(const std::string& bytes, const std::string& name,
                                 NpyAccept (*accept_for)(const std::string& key)) {
    const Reader r{bytes, name};
    const std::vector<Entry> entries = central_directory(r);
    const std::vector<Span> spans = check_entries(r, entries);
    std::vector<NpzMember> members;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Entry& entry = entries[i];
        const std::string key = key_of(entry.name);
        const NpyAccept accept = accept_for ? accept_for(key) : NpyAccept::floats;
        const char* data = bytes.data() + spans[i].data;
        std::string member;
        if (entry.method == stored) {
            if (entry.compressed != entry.uncompressed) fail(name, entry.name, "a stored member whose two sizes differ");
            member.assign(data, entry.compressed);
        } else if (entry.method == deflated) {
            member = inflate_member(r, entry, data, entry.compressed, entry.uncompressed, accept);
        } else {
            fail(name, entry.name, "compression method " + std::to_string(entry.method) +
                                       " is not supported (numpy.savez stores, numpy.savez_compressed deflates)");
        }
        const std::uint32_t crc = static_cast<std::uint32_t>(
            crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(member.data()), member.size()));
        if (crc != entry.crc) fail(name, entry.name, "CRC-32 mismatch: the member is corrupt");
        members.emplace_back(key, parse_npy(member, printable_text(name) + ": member " + printable_text(entry.name), accept));
    }
    return members;
}

std::vector<NpzMember> read_npz(const std::string& path, NpyAccept (*accept_for)(const std::string& key)) {
    // Read what fstat reported (and one byte more, so a file that grew is refused), never the limit:
    // read_input_file would allocate max_npz_bytes for a small archive.
    InputFile file(path, "the .npz archive");
    if (file.size() > max_npz_bytes) {
        throw InputError(file.name() + ": the archive holds " + std::to_string(file.size()) + " bytes; at most " +
                         std::to_string(max_npz_bytes) + " are read");
    }
    std::string bytes = file.read(static_cast<std::size_t>(file.size()) + 1);
    if (bytes.size() > file.size()) throw InputError(file.name() + ": the archive grew while it was read");
    return parse_npz(bytes, path, accept_for);
}

}  // namespace attn
