// The student's program's main: serves the cases `attn exercise` sends, one at a time, until told
// to stop. See student_side.hpp. File descriptor 3 brings the nonce of this run (its first 8
// bytes, little-endian: read here, after every static initialiser, and never in the environment),
// then the requests; 4 takes replies, every frame carrying the nonce.
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <exception>
#include <memory>
#include <typeinfo>

#include "not_implemented.hpp"
#include "student_side.hpp"

namespace {

using namespace attn::exercises;

constexpr int request_fd = 3;
constexpr int reply_fd = 4;

std::string demangled(const char* name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> readable(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    return status == 0 && readable ? readable.get() : name;
}

bool send(std::uint64_t nonce, wire::FrameType type, const wire::Encoder& message) {
    return wire::write_all(reply_fd, wire::frame_bytes(nonce, type, message.bytes));
}

bool send_failure(std::uint64_t nonce, std::uint32_t index, wire::FailureKind kind, const std::string& type,
                  const std::string& what) {
    wire::Encoder message;
    message.u32(index);
    message.u32(static_cast<std::uint32_t>(kind));
    message.string(type);
    message.string(what);
    return send(nonce, wire::FrameType::failure, message);
}

// Runs one request; false when the reply cannot be sent (the checker is gone).
bool serve_one(std::uint64_t nonce, const wire::Frame& frame) {
    wire::Decoder in(frame.payload);
    const std::uint32_t index = in.u32();
    student::Call call;
    call.function = in.string();
    const std::uint32_t count = in.u32();
    for (std::uint32_t i = 0; i < count; ++i) {
        wire::Tensor tensor = in.tensor();
        call.tensors[tensor.name] = std::move(tensor);
    }
    student::Reply reply(reply_fd, nonce, index);
    try {
        student::serve(call, reply);
    } catch (const student::BadRequest& e) {
        return send_failure(nonce, index, wire::FailureKind::bad_request, "", e.what());
    } catch (const NotImplementedYet& e) {
        return send_failure(nonce, index, wire::FailureKind::not_implemented, "", e.what());
    } catch (const std::exception& e) {
        return send_failure(nonce, index, wire::FailureKind::std_exception, demangled(typeid(e).name()), e.what());
    } catch (...) {
        const std::type_info* type = abi::__cxa_current_exception_type();
        return send_failure(nonce, index, wire::FailureKind::other_exception, type ? demangled(type->name()) : "unknown", "");
    }
    wire::Encoder message;
    message.u32(index);
    message.u32(static_cast<std::uint32_t>(reply.results().size()));
    for (const auto& tensor : reply.results()) message.tensor(tensor.name, tensor.shape, tensor.values);
    return send(nonce, wire::FrameType::result, message);
}

}  // namespace

int main() {
    // Line-buffered, so that what the student prints before a crash is not lost in a buffer.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    unsigned char nonce_bytes[8];
    if (!wire::read_exactly(request_fd, nonce_bytes, sizeof nonce_bytes)) {
        std::fprintf(stderr, "This program is the student's side of `attn exercise N`: run that instead.\n");
        return 2;
    }
    std::uint64_t nonce = 0;
    for (int i = 7; i >= 0; --i) nonce = (nonce << 8) | nonce_bytes[i];
    if (!send(nonce, wire::FrameType::hello, wire::Encoder{})) return 2;
    try {
        wire::Frame frame;
        while (wire::read_frame(request_fd, nonce, frame)) {
            if (frame.type == wire::FrameType::end) return 0;
            if (frame.type != wire::FrameType::request || !serve_one(nonce, frame)) return 2;
        }
    } catch (const wire::ProtocolError& e) {
        std::fprintf(stderr, "student program: bad request from the checker: %s\n", e.what());
        return 2;
    }
    return 2;  // the checker went away without saying "end"
}
