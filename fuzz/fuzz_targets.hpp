// fuzz/fuzz_targets.hpp — what each libFuzzer harness does with one input, shared with the test
// that replays every saved finding (tests/test_fuzz_regressions.cpp).
//
// Each function feeds `input` to one reader and checks, beyond "no crash and no undefined
// behaviour" (the sanitizers' part), that the outcome is one the program promises: a result or an
// attn::InputError, any text it produced printable (no control byte, no ESC: printable_text was
// not bypassed), a document's error starting with its file name. A broken promise throws
// std::logic_error, which libFuzzer reports as a crash and saves the input, and Catch2 as a failure.
//
//   attn::fuzz::npy_input(std::string("\x93NUMPY\x01\x00...", n));
#pragma once

#include <string>

namespace attn::fuzz {

/// attn::parse_npy, and a round trip of what it accepts through encode_npy.
void npy_input(const std::string& input);

/// attn::parse_npz (zip directory, zlib inflate bounded by each member's .npy header, CRC-32):
/// every member it accepts holds as many values as its shape says.
void npz_input(const std::string& input);

/// tutor::parse_tensor_literal on the text of a lesson block.
void tensor_literal_input(const std::string& input);

/// tutor::parse_lesson_document, then render_markdown (colour off and on) of every prose segment.
void lesson_document_input(const std::string& input);

/// tutor::parse_tokens, the reader of --tokens files.
void tokens_input(const std::string& input);

/// Throws std::logic_error unless every byte of `text` may be printed: no C0 control byte other
/// than a line feed or a tab, no DEL.
void require_printable(const std::string& text, const char* what);

}  // namespace attn::fuzz
