// Writing .npz archives (attn/npz.hpp) as numpy.savez does: each member a stored (uncompressed) zip
// entry — local header, then the .npy bytes — followed by the central directory and its end record.
// The fields are the ones zip readers check (PKWARE's APPNOTE, sections 4.3.7, 4.3.12, 4.3.16); the
// time stamp is fixed at 1980-01-01 00:00, so one model always gives the same bytes.
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>

#include "attn/files.hpp"
#include "attn/npz.hpp"

namespace attn {

namespace {

constexpr std::uint32_t local_header_signature = 0x04034b50, directory_entry_signature = 0x02014b50,
                        end_of_directory_signature = 0x06054b50;
constexpr std::uint16_t zip_version = 20;            // 2.0: stored entries, no zip64
constexpr std::uint16_t dos_time = 0, dos_date = (0 << 9) | (1 << 5) | 1;  // 1980-01-01 00:00
constexpr std::uint64_t zip32_limit = 0xFFFFFFFFu;

void put(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

// The fields a local header and a central entry share, from "version needed" to "extra length".
void put_common_fields(std::string& out, std::uint32_t crc, std::uint64_t size, std::size_t name_length) {
    put(out, zip_version, 2);
    put(out, 0, 2);  // flags
    put(out, 0, 2);  // method: stored
    put(out, dos_time, 2);
    put(out, dos_date, 2);
    put(out, crc, 4);
    put(out, size, 4);  // compressed size
    put(out, size, 4);  // uncompressed size
    put(out, name_length, 2);
    put(out, 0, 2);  // extra field length
}

void check_key(const std::string& key, std::set<std::string>& seen) {
    if (key.empty()) throw std::invalid_argument("encode_npz: a member has an empty key");
    if (key.find_first_of("/\\") != std::string::npos) {
        throw std::invalid_argument("encode_npz: member key '" + key + "' has a folder in it");
    }
    if (!seen.insert(key).second) throw std::invalid_argument("encode_npz: member key '" + key + "' is given twice");
}

}  // namespace

std::string encode_npz(const std::vector<NpzOutputMember>& members) {
    if (members.size() >= 0xFFFF) throw std::invalid_argument("encode_npz: 65 535 members or more need zip64");
    std::set<std::string> seen;
    std::string archive, directory;
    for (const NpzOutputMember& member : members) {
        check_key(member.key, seen);
        const std::string name = member.key + ".npy";
        const std::uint64_t offset = archive.size();
        const std::uint64_t size = member.npy.size();
        if (offset + 30 + name.size() + size >= zip32_limit) {
            throw std::invalid_argument("encode_npz: an archive of 4 GiB or more needs zip64");
        }
        // zlib's crc32 takes a uInt length: feed large members in pieces.
        uLong crc = crc32(0L, Z_NULL, 0);
        for (std::size_t at = 0; at < member.npy.size(); at += 1u << 30) {
            const std::size_t piece = std::min<std::size_t>(1u << 30, member.npy.size() - at);
            crc = crc32(crc, reinterpret_cast<const Bytef*>(member.npy.data() + at), static_cast<uInt>(piece));
        }
        put(archive, local_header_signature, 4);
        put_common_fields(archive, static_cast<std::uint32_t>(crc), size, name.size());
        archive += name;
        archive += member.npy;

        put(directory, directory_entry_signature, 4);
        put(directory, (3 << 8) | zip_version, 2);  // made by: Unix, 2.0
        put_common_fields(directory, static_cast<std::uint32_t>(crc), size, name.size());
        put(directory, 0, 2);             // comment length
        put(directory, 0, 2);             // disk number
        put(directory, 0, 2);             // internal attributes
        put(directory, 0100644u << 16, 4);  // external attributes: a regular file, rw-r--r--
        put(directory, offset, 4);
        directory += name;
    }
    const std::uint64_t directory_offset = archive.size();
    if (directory_offset + directory.size() + 22 >= zip32_limit) {
        throw std::invalid_argument("encode_npz: an archive of 4 GiB or more needs zip64");
    }
    archive += directory;
    put(archive, end_of_directory_signature, 4);
    put(archive, 0, 2);  // this disk
    put(archive, 0, 2);  // the disk where the directory starts
    put(archive, members.size(), 2);
    put(archive, members.size(), 2);
    put(archive, directory.size(), 4);
    put(archive, directory_offset, 4);
    put(archive, 0, 2);  // comment length
    return archive;
}

void write_npz(const std::string& path, const std::vector<NpzOutputMember>& members) {
    write_files_atomically({{path, encode_npz(members)}});
}

}  // namespace attn
