// attn/npy.hpp — reading and writing NumPy .npy files, the way tensors travel between PyTorch
// (`np.save(path, t.numpy())`) and this library.
//
// Why not xt::load_npy: its errors do not name the file, and it rejects a float32 file when asked
// for double. This reader accepts float32 and float64 (little-endian, C order), widens to double,
// and explains every refusal with the path: missing file, not .npy, truncated, wrong dtype,
// Fortran order. It opens only regular files (a FIFO or /dev/zero is refused at once, see
// attn/files.hpp), reads no more than the header announces, refuses a shape of more than
// max_tensor_values (attn/shape.hpp) before allocating, and quotes header text only through
// printable_text. The writer never leaves a half-written file (write_files_atomically).
//
//   attn::NpyArray a = attn::read_npy("in/decoder_output.npy");   // a.shape = {2, 3}
//   attn::write_npy("out/context.npy", a.shape, a.values, attn::NpyDtype::float32);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

/// float32 and float64 are read everywhere; boolean and integer only when the reader is asked for
/// them (read_npy or parse_npy with NpyAccept::floats_bools_integers: masks are saved as bool or
/// int64 tensors), and never written.
enum class NpyDtype { float32, float64, boolean, integer };

/// "float32" / "float64" / "bool" / "integer".
std::string dtype_name(NpyDtype dtype);

/// A tensor as stored in a .npy file: its shape, its element type, its values in C order.
struct NpyArray {
    std::vector<std::size_t> shape;
    NpyDtype dtype = NpyDtype::float64;
    std::vector<double> values;
    /// The values of a float32 array read with NpyFloat32::keep (then `values` is empty): a
    /// float32 tensor on its way to float32 code is never widened to a double copy.
    std::vector<float> floats;
};

/// What a reader does with float32 values: widen them into NpyArray::values (every reader by
/// default), or keep them as they are in NpyArray::floats (the fast path of `attn compute`).
enum class NpyFloat32 { widen, keep };

/// Reads a .npy file. Throws InputError naming `path` and what is wrong with it: not a regular
/// file, not .npy, a header over 64 KiB, more than 64 axes or 2^28 values, truncated, extra bytes.
NpyArray read_npy(const std::string& path);

/// Parses the bytes of a .npy file; `name` is used in error messages (usually the path).
NpyArray parse_npy(const std::string& bytes, const std::string& name);

/// Which element types a reader accepts: floats only (every tensor), or also bool and the
/// little-endian integers of 1 to 8 bytes (a mask: PyTorch's bool masks, Hugging Face's int64).
enum class NpyAccept { floats, floats_bools_integers };

/// The size in bytes a .npy file must have, from its first bytes (at least 12, and its whole
/// header when it is longer): preamble, header and data. InputError as parse_npy for a bad header;
/// 0 when `start` is too short to tell.
std::size_t npy_declared_size(const std::string& start, const std::string& name, NpyAccept accept);

/// read_npy and parse_npy with a choice of accepted element types.
NpyArray read_npy(const std::string& path, NpyAccept accept, NpyFloat32 float32 = NpyFloat32::widen);
NpyArray parse_npy(const std::string& bytes, const std::string& name, NpyAccept accept,
                   NpyFloat32 float32 = NpyFloat32::widen);

/// The bytes of a .npy file (format version 1.0) holding `values` with `shape`, rounded to `dtype`:
/// float32 '<f4', float64 '<f8', integer '<i8' (int64, torch.long; each value must be an integer a
/// double holds exactly), boolean '|b1' (nonzero is True). std::invalid_argument otherwise.
std::string encode_npy(const std::vector<std::size_t>& shape, const std::vector<double>& values, NpyDtype dtype);

/// The bytes of a .npy file holding `bytes` as a 1-D uint8 array, as numpy.frombuffer(bytes,
/// numpy.uint8) saves them (how a model's attn_config travels in its .npz).
std::string encode_npy_uint8(const std::string& bytes);

/// Writes a .npy file atomically (write_files_atomically): a complete file or none.
/// Throws InputError naming the path when it cannot be written.
void write_npy(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values,
               NpyDtype dtype);

}  // namespace attn
