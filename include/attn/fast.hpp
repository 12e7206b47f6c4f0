// attn/fast.hpp — the float32 fast path (CMake target attn::fast), all of it:
//
//   attn/fast/tensor.hpp               the float32 Vector, Matrix, Tensor3, Tensor4
//   attn/fast/threads.hpp              the worker pool: set_threads, threads
//   attn/fast/machine.hpp              what it runs on: CPU, cores, kernels, the sgemm rate
//   attn/fast/multi_head_attention.hpp multi_head_attention: weights kept, or lesson 7's tiled
//                                      online softmax when need_weights is false
//   attn/fast/multi_head_attention_backward.hpp  its float32 backward, tiled (FlashAttention-2):
//                                      multi_head_attention_for_training, multi_head_attention_backward
//   attn/fast/encoder_layer.hpp        transformer_encoder_layer (always tiled)
//   attn/fast/decoder.hpp              IncrementalDecoder: generating tokens with a K/V cache
//                                      (self- and cross-attention, grouped-query attention)
//
// How it is built and what it measures: docs/performance.md.
#pragma once

#include "attn/fast/decoder.hpp"
#include "attn/fast/encoder_layer.hpp"
#include "attn/fast/machine.hpp"
#include "attn/fast/multi_head_attention.hpp"
#include "attn/fast/multi_head_attention_backward.hpp"
#include "attn/fast/tensor.hpp"
#include "attn/fast/threads.hpp"
