// attn/error.hpp — the two kinds of error the library reports.
//
// Why: a student's mistake (a wrong shape, a malformed file) must end in a message that names the
// tensor and the shapes involved, never in xtensor's terse "Incompatible dimension of arrays".
// The library checks its arguments itself and throws one of these; the CLI turns them into exit 2.
//
//   try { attn::dot_attention(encoder_outputs, decoder_output); }
//   catch (const attn::ShapeError& e) { std::cerr << e.what(); }
//   // "dot_attention: decoder_output has shape (2, 4) but encoder_outputs has shape (2, 2, 3): ..."
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

/// Bad input from outside the program: a file, a value, an option. Exit code 2 in the CLI.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message);
};

/// Arguments whose shapes do not fit together; the message names each argument and its shape.
class ShapeError : public InputError {
public:
    explicit ShapeError(const std::string& message);
};

}  // namespace attn
