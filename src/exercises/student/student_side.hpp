// src/exercises/student/student_side.hpp — the student's program: one case in, tensors out.
//
// Why: the student's program is the student's exercise.cpp, the exercise's serve.cpp and
// student_main.cpp, and nothing of the checker. student_main reads each case `attn exercise`
// sends (a Call: what to run and its input tensors), hands it to the exercise's serve(), which
// calls the student's function and adds each returned tensor to the Reply; student_main sends the
// reply, or what the student's code threw. The checker, in the parent process, judges.
//
//   void serve(const Call& call, Reply& reply) {            // lessons/01-dot-product/exercise/serve.cpp
//       const attn::Tensor3 encoder_outputs = call.tensor<3>("encoder_outputs");
//       reply.calling("exercise::dot_attention");
//       const attn::AttentionStep step = exercise::dot_attention(encoder_outputs, call.tensor<2>("decoder_output"));
//       reply.add("scores", step.scores);  …
//   }
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "wire.hpp"

namespace attn::exercises::student {

/// A request the student's program cannot serve: the checker and this program disagree (a bug).
class BadRequest : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// One case: which of the exercise's functions to run, and its inputs by name.
struct Call {
    std::string function;
    std::map<std::string, wire::Tensor> tensors;

    bool has(const std::string& name) const { return tensors.count(name) != 0; }

    /// The input `name` as an N-dimensional tensor.
    template <std::size_t N>
    xt::xtensor<double, N> tensor(const std::string& name) const {
        const wire::Tensor& found = get(name);
        if (found.shape.size() != N) throw BadRequest("input '" + name + "' does not have " + std::to_string(N) + " dimensions");
        std::array<std::size_t, N> shape{};
        for (std::size_t d = 0; d < N; ++d) shape[d] = static_cast<std::size_t>(found.shape[d]);
        xt::xtensor<double, N> out = xt::xtensor<double, N>::from_shape(shape);
        std::copy(found.values.begin(), found.values.end(), out.begin());
        return out;
    }

    /// Every input, as tensors of any rank (for tutor/compute/named_weights.hpp).
    std::map<std::string, xt::xarray<double>> all() const {
        std::map<std::string, xt::xarray<double>> out;
        for (const auto& [name, found] : tensors) {
            std::vector<std::size_t> shape(found.shape.begin(), found.shape.end());
            xt::xarray<double> tensor = xt::xarray<double>::from_shape(shape);
            std::copy(found.values.begin(), found.values.end(), tensor.begin());
            out.emplace(name, std::move(tensor));
        }
        return out;
    }

    /// The input `name`, a single number (a size, a flag, eps).
    double number(const std::string& name) const {
        const wire::Tensor& found = get(name);
        if (found.values.size() != 1) throw BadRequest("input '" + name + "' is not a single number");
        return found.values[0];
    }

private:
    const wire::Tensor& get(const std::string& name) const {
        const auto found = tensors.find(name);
        if (found == tensors.end()) throw BadRequest("the case has no input '" + name + "'");
        return found->second;
    }
};

/// The student's results for one case, sent by student_main once serve() returns.
class Reply {
public:
    /// At most this many values per tensor: a larger one is a runaway size, not a result.
    static constexpr std::size_t max_values = std::size_t(1) << 22;

    Reply(int fd, std::uint64_t nonce, std::uint32_t case_index) : fd_(fd), nonce_(nonce), case_index_(case_index) {}

    /// Announces the student's function about to run, so that a crash or an endless loop in it
    /// is reported with its name.
    void calling(const std::string& function) {
        wire::Encoder message;
        message.u32(case_index_);
        message.string(function);
        wire::write_all(fd_, wire::frame_bytes(nonce_, wire::FrameType::calling, message.bytes));
    }

    /// Adds a tensor the student's code returned (any xtensor container of doubles).
    template <class Tensor>
    void add(const std::string& name, const Tensor& tensor) {
        if (tensor.size() > max_values) {
            throw std::length_error("your " + name + " has " + std::to_string(tensor.size()) + " values: is its shape right?");
        }
        results_.push_back({name, {tensor.shape().begin(), tensor.shape().end()}, {tensor.begin(), tensor.end()}});
    }

    const std::vector<wire::Tensor>& results() const { return results_; }
    std::uint32_t case_index() const { return case_index_; }

private:
    int fd_;
    std::uint64_t nonce_;
    std::uint32_t case_index_;
    std::vector<wire::Tensor> results_;
};

/// Each exercise's serve.cpp: runs `call` with the student's functions and adds their results.
void serve(const Call& call, Reply& reply);

}  // namespace attn::exercises::student
