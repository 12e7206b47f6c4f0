// src/exercises/student/wire.hpp — the messages between `attn exercise` and the student's program.
//
// Why: the student's code is untrusted. It runs in its own process (the sandbox), which only
// computes: `attn exercise` sends it each case's inputs and reads back the student's tensors, and
// decides itself whether they are right. Nothing the student's program prints, and no exit status,
// can pass a case; only a well-formed RESULT frame carrying this run's nonce can bring numbers,
// and the checker compares them.
//
// A frame is a 20-byte header — "ATN1", the run's nonce (8 bytes), the type (4), the payload's
// length (4), all little-endian — then the payload: strings as (u32 length, bytes), tensors as
// (name, u32 rank, u64 sizes, f64 values in row-major order). Header-only and free of the library:
// both sides compile it.
//
//   Encoder out;  out.u32(case_index);  out.tensor("weights", shape, values);
//   write_frame(fd, nonce, FrameType::result, out.bytes);
//   Frame frame;  if (read_frame(fd, frame) == ReadStatus::ok) { Decoder in(frame.payload); ... }
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace attn::exercises::wire {

enum class FrameType : std::uint32_t {
    hello = 1,    // student → checker: the program started and is ready for cases
    request = 2,  // checker → student: one case (index, what to call, the inputs)
    calling = 3,  // student → checker: about to call this function of the student's (for crash reports)
    result = 4,   // student → checker: the tensors the student's code returned for a case
    failure = 5,  // student → checker: the student's code threw (kind, type, message)
    end = 6,      // checker → student: no more cases, exit
};

/// How the student's code failed a case without numbers.
enum class FailureKind : std::uint32_t { not_implemented = 1, std_exception = 2, other_exception = 3, bad_request = 4 };

constexpr std::size_t header_size = 20;
constexpr std::uint32_t max_payload = 256u << 20;  // 256 MiB: more is a runaway, not a result
constexpr const char magic[4] = {'A', 'T', 'N', '1'};

/// Thrown for a frame that cannot be decoded: whoever wrote it did not follow the protocol.
class ProtocolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Tensor {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::vector<double> values;  // row-major, product of shape
};

struct Frame {
    FrameType type{};
    std::vector<unsigned char> payload;
};

class Encoder {
public:
    std::vector<unsigned char> bytes;

    void u32(std::uint32_t value) { put(value, 4); }
    void u64(std::uint64_t value) { put(value, 8); }
    void f64(double value) {
        std::uint64_t bits;
        std::memcpy(&bits, &value, 8);
        put(bits, 8);
    }
    void string(const std::string& text) {
        u32(static_cast<std::uint32_t>(text.size()));
        bytes.insert(bytes.end(), text.begin(), text.end());
    }
    /// A tensor from its shape and its values in row-major order.
    template <class Shape, class Values>
    void tensor(const std::string& name, const Shape& shape, const Values& values) {
        string(name);
        u32(static_cast<std::uint32_t>(shape.size()));
        for (auto size : shape) u64(static_cast<std::uint64_t>(size));
        for (double value : values) f64(value);
    }

private:
    void put(std::uint64_t value, int count) {
        for (int i = 0; i < count; ++i) bytes.push_back(static_cast<unsigned char>(value >> (8 * i)));
    }
};

class Decoder {
public:
    explicit Decoder(const std::vector<unsigned char>& bytes) : bytes_(bytes) {}

    std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
    std::uint64_t u64() { return get(8); }
    double f64() {
        const std::uint64_t bits = get(8);
        double value;
        std::memcpy(&value, &bits, 8);
        return value;
    }
    std::string string() {
        const std::uint32_t size = u32();
        need(size);
        std::string text(bytes_.begin() + static_cast<std::ptrdiff_t>(at_), bytes_.begin() + static_cast<std::ptrdiff_t>(at_ + size));
        at_ += size;
        return text;
    }
    Tensor tensor() {
        Tensor t;
        t.name = string();
        const std::uint32_t rank = u32();
        if (rank > 8) throw ProtocolError("tensor '" + t.name + "' has rank " + std::to_string(rank));
        bool empty = false;
        for (std::uint32_t d = 0; d < rank; ++d) {
            t.shape.push_back(u64());
            empty = empty || t.shape.back() == 0;
        }
        // Each value takes 8 bytes of what is left: sizes beyond that are a lie, caught before allocating.
        const std::uint64_t room = (bytes_.size() - at_) / 8;
        std::uint64_t count = empty ? 0 : 1;
        for (std::uint64_t size : t.shape) {
            if (empty) break;
            if (count > room / size) throw ProtocolError("tensor '" + t.name + "' claims more values than its frame holds");
            count *= size;
        }
        need(count * 8);
        t.values.resize(static_cast<std::size_t>(count));
        for (double& value : t.values) value = f64();
        return t;
    }
    bool done() const { return at_ == bytes_.size(); }

private:
    void need(std::uint64_t count) const {
        if (count > bytes_.size() - at_) throw ProtocolError("a frame ends in the middle of a field");
    }
    std::uint64_t get(int count) {
        need(static_cast<std::uint64_t>(count));
        std::uint64_t value = 0;
        for (int i = 0; i < count; ++i) value |= std::uint64_t(bytes_[at_ + static_cast<std::size_t>(i)]) << (8 * i);
        at_ += static_cast<std::size_t>(count);
        return value;
    }
    const std::vector<unsigned char>& bytes_;
    std::size_t at_ = 0;
};

/// The header of a frame of `type` with a payload of `length` bytes.
inline std::vector<unsigned char> frame_bytes(std::uint64_t nonce, FrameType type, const std::vector<unsigned char>& payload) {
    Encoder header;
    header.bytes.assign(magic, magic + 4);
    header.u64(nonce);
    header.u32(static_cast<std::uint32_t>(type));
    header.u32(static_cast<std::uint32_t>(payload.size()));
    header.bytes.insert(header.bytes.end(), payload.begin(), payload.end());
    return header.bytes;
}

/// Parses the header at the start of `buffer` (at least header_size bytes): the frame's type and
/// payload length. ProtocolError when the magic or the nonce is wrong or the length too large.
inline void parse_header(const unsigned char* buffer, std::uint64_t nonce, FrameType& type, std::uint32_t& length) {
    if (std::memcmp(buffer, magic, 4) != 0) throw ProtocolError("a frame does not start with the protocol's marker");
    std::uint64_t got = 0;
    for (int i = 0; i < 8; ++i) got |= std::uint64_t(buffer[4 + i]) << (8 * i);
    if (got != nonce) throw ProtocolError("a frame carries the wrong nonce");
    std::uint32_t raw_type = 0;
    length = 0;
    for (int i = 0; i < 4; ++i) raw_type |= std::uint32_t(buffer[12 + i]) << (8 * i);
    for (int i = 0; i < 4; ++i) length |= std::uint32_t(buffer[16 + i]) << (8 * i);
    if (raw_type < 1 || raw_type > 6) throw ProtocolError("a frame has an unknown type " + std::to_string(raw_type));
    if (length > max_payload) throw ProtocolError("a frame is larger than " + std::to_string(max_payload >> 20) + " MiB");
    type = static_cast<FrameType>(raw_type);
}

// ---------------------------------------------------------------------------------------------
// Blocking frame I/O, for the student's side (the checker polls; see sandbox.hpp).

/// Writes all of `bytes` to `fd`; false when the pipe is gone.
inline bool write_all(int fd, const std::vector<unsigned char>& bytes) {
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += static_cast<std::size_t>(n);
    }
    return true;
}

inline bool read_exactly(int fd, unsigned char* buffer, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::read(fd, buffer + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

/// Reads one frame; false at the end of the stream. ProtocolError for a malformed frame.
inline bool read_frame(int fd, std::uint64_t nonce, Frame& frame) {
    unsigned char header[header_size];
    if (!read_exactly(fd, header, header_size)) return false;
    std::uint32_t length = 0;
    parse_header(header, nonce, frame.type, length);
    frame.payload.resize(length);
    if (length > 0 && !read_exactly(fd, frame.payload.data(), length)) throw ProtocolError("the stream ends inside a frame");
    return true;
}

}  // namespace attn::exercises::wire
