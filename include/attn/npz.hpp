// attn/npz.hpp — reading a NumPy .npz archive: the tensors of a whole state_dict in one file.
//
// Why: `numpy.savez("model.npz", **{k: v.numpy() for k, v in model.state_dict().items()})` is the
// two-line export of a PyTorch model; reading it saves the user one .npy file per weight. An
// .npz is a zip archive of .npy members, stored (numpy.savez) or deflated
// (numpy.savez_compressed); deflate is zlib's.
//
// A hostile archive is bad input, never a crash, a hang or a huge allocation: the archive is at
// most max_npz_bytes, it holds at most max_npz_members members, a member inflates to no more than
// the size its own .npy header declares (a zip bomb stops there), all members together inflate to
// at most max_npz_inflated_bytes, no two entries share data (one deflated member listed many
// times), a member's name has no folder in it, its CRC-32 must match, and each member is then
// read as read_npy reads a file. Every refusal names the archive and the member.
//
//   for (const auto& [name, array] : attn::read_npz("model.npz")) …   // name: "layers.0.norm1.weight"
//
// Writing: write_npz stores the members as numpy.savez does (zip, no compression, CRC-32 from
// zlib), so numpy.load, torch and read_npz read it; the archive is written all or none
// (write_files_atomically). No zip64: an archive of 4 GiB or more is refused.
//
//   attn::write_npz("model.npz", {{"generator.bias", attn::encode_npy({11}, bias, attn::NpyDtype::float32)}});
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "attn/npy.hpp"

namespace attn {

constexpr std::size_t max_npz_bytes = std::size_t(3) << 30;  // 3 GiB
constexpr std::size_t max_npz_members = 100000;
/// What all members of one archive may inflate to together: as much as the largest single member
/// (the largest tensor in float64). Checked on the sizes the directory declares, before inflating.
constexpr std::size_t max_npz_inflated_bytes = (std::size_t(1) << 31) + (std::size_t(1) << 20);  // 2 GiB + 1 MiB

/// One member: its key (the file name without ".npy") and its tensor.
using NpzMember = std::pair<std::string, NpyArray>;

/// Reads every member of an .npz archive, in archive order. `accept_for(key)` picks the element
/// types a member may have (masks may be bool or integers). InputError naming `path` and the
/// member for anything that is not a well-formed archive of .npy files.
/// `float32` as read_npy's: NpyFloat32::keep leaves float32 members' values in NpyArray::floats.
/// The archive is read once, in one piece; each member is parsed from it in turn.
std::vector<NpzMember> read_npz(const std::string& path, NpyAccept (*accept_for)(const std::string& key) = nullptr,
                                NpyFloat32 float32 = NpyFloat32::widen);

/// The same on the archive's bytes; `name` is used in messages.
std::vector<NpzMember> parse_npz(const std::string& bytes, const std::string& name,
                                 NpyAccept (*accept_for)(const std::string& key) = nullptr,
                                 NpyFloat32 float32 = NpyFloat32::widen);

/// One member to write: its key (the name without ".npy"; no folder in it) and its .npy bytes
/// (encode_npy, or any well-formed .npy file).
struct NpzOutputMember {
    std::string key;
    std::string npy;
};

/// The bytes of an .npz archive holding `members` in order, stored uncompressed with their CRC-32.
/// std::invalid_argument for an empty or repeated key, a key with '/' or '\\', or an archive that
/// would need zip64 (4 GiB or more, 65 535 members or more).
std::string encode_npz(const std::vector<NpzOutputMember>& members);

/// Writes encode_npz(members) to `path` atomically. InputError naming the path when it cannot be
/// written; std::invalid_argument as encode_npz.
void write_npz(const std::string& path, const std::vector<NpzOutputMember>& members);

}  // namespace attn
