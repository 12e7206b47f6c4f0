# cmake/libraries.cmake — the libraries another project links: attn::io, attn::attn and
# attn::fast, with the BLAS they share. Included by CMakeLists.txt; cmake/package.cmake installs them.

find_package(xtl REQUIRED)
find_package(xtensor REQUIRED)
# One BLAS for everything, linked through xtensor-blas's target (its config finds BLAS and LAPACK
# and links them to it). OpenBLAS when it is installed: the generic libblas.so alternative may be
# another BLAS, and the fast path's pool sets OpenBLAS's thread count once (attn/fast/threads.hpp).
if(NOT DEFINED BLA_VENDOR)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS QUIET)
  if(NOT BLAS_FOUND)
    unset(BLA_VENDOR)
  endif()
endif()
find_package(xtensor-blas REQUIRED)
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_LIBRARIES ${BLAS_LIBRARIES})
check_cxx_source_compiles("extern \"C\" int openblas_get_num_threads(void);
int main() { return openblas_get_num_threads() > 0 ? 0 : 1; }" ATTN_HAVE_OPENBLAS)
unset(CMAKE_REQUIRED_LIBRARIES)

# ---------------------------------------------------------------------------------------------
# Files from outside the program (include/attn: error, printable, files, npy, npy_tensor, npz; the
# sizes part of shape; src/io): the errors that report bad input, the sanitiser of text that
# reaches a terminal, regular files read and written all or none, and the .npy/.npz formats. Both
# libraries below link it; a program that only reads .npy files can link it alone.
add_library(attn_io
  src/io/error.cpp
  src/io/printable.cpp
  src/io/shape_sizes.cpp
  src/io/files.cpp
  src/io/atomic_write.cpp
  src/io/npy.cpp
  src/io/npz.cpp
  src/io/npz_write.cpp
  src/io/npy_tensor.cpp
)
add_library(attn::io ALIAS attn_io)
target_include_directories(attn_io PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:include>)
target_link_libraries(attn_io PUBLIC xtensor)  # npy_tensor.hpp: attn::DynamicTensor
attn_target_defaults(attn_io)
# .npz archives (attn/npz.hpp) are inflated by zlib, Debian's zlib1g-dev.
find_package(ZLIB REQUIRED)
target_link_libraries(attn_io PRIVATE ZLIB::ZLIB)

# ---------------------------------------------------------------------------------------------
# The library
add_library(attn
  src/lib/shape.cpp
  src/lib/matmul.cpp
  src/lib/finite.cpp
  src/lib/softmax.cpp
  src/lib/softmax_backward.cpp
  src/lib/dot_attention.cpp
  src/lib/concatenation.cpp
  src/lib/luong_attention.cpp
  src/lib/bahdanau_attention.cpp
  src/lib/linear.cpp
  src/lib/linear_backward.cpp
  src/lib/masks.cpp
  src/lib/attention_arguments.cpp
  src/lib/scaled_dot_product_attention.cpp
  src/lib/scaled_dot_product_attention_backward.cpp
  src/lib/online_softmax_attention.cpp
  src/lib/multi_head_attention.cpp
  src/lib/kv_cache.cpp
  src/lib/decoder_step.cpp
  src/lib/generation.cpp
  src/lib/dropout.cpp
  src/lib/seq2seq_transformer.cpp
  src/lib/seq2seq_transformer_backward.cpp
  src/lib/seq2seq_parameters.cpp
  src/lib/multi_head_attention_backward.cpp
  src/lib/layer_norm.cpp
  src/lib/layer_norm_backward.cpp
  src/lib/embedding.cpp
  src/lib/positions.cpp
  src/lib/rotary.cpp
  src/lib/feed_forward.cpp
  src/lib/feed_forward_backward.cpp
  src/lib/encoder_layer.cpp
  src/lib/decoder_layer.cpp
  src/lib/transformer.cpp
  src/lib/sublayer_backward.cpp
  src/lib/encoder_layer_backward.cpp
  src/lib/embedding_backward.cpp
  src/lib/cross_entropy.cpp
  src/lib/adam.cpp
  src/lib/learning_rate.cpp
  src/lib/decoder_layer_backward.cpp
  src/lib/transformer_backward.cpp
)
add_library(attn::attn ALIAS attn)
# include/ comes with attn_io; src/common holds finite_values.hpp, shared with the fast path.
target_include_directories(attn PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/common)
target_link_libraries(attn PUBLIC attn_io xtensor PRIVATE xtensor-blas)
attn_target_defaults(attn)

# ---------------------------------------------------------------------------------------------
# The float32 fast path (include/attn/fast, src/fast; docs/performance.md): its own library, so a
# program that wants only the readable lesson path does not link it. `#pragma omp simd` loops
# without OpenMP's runtime, -fno-trapping-math so that its branch-free exp and selects vectorise
# (as PyTorch is built), and OpenBLAS's thread control (openblas_set_num_threads, called once when
# its worker pool starts: attn/fast/threads.hpp) when the BLAS found above is OpenBLAS.
add_library(attn_fast
  src/fast/simd.cpp
  src/fast/machine.cpp
  src/fast/thread_pool.cpp
  src/fast/kernels.cpp
  src/fast/non_finite.cpp
  src/fast/projection.cpp
  src/fast/arguments.cpp
  src/fast/rotary.cpp
  src/fast/attention_heads.cpp
  src/fast/tile_products.cpp
  src/fast/online_softmax_update.cpp
  src/fast/tiled_attention.cpp
  src/fast/multi_head_attention.cpp
  src/fast/tiled_attention_backward.cpp
  src/fast/multi_head_attention_backward.cpp
  src/fast/encoder_layer.cpp
  src/fast/cached_attention.cpp
  src/fast/decoder.cpp
  src/fast/layer_norm_training.cpp
  src/fast/label_smoothing_loss.cpp
  src/fast/adam_update.cpp
  src/fast/seq2seq_layout.cpp
  src/fast/seq2seq_forward.cpp
  src/fast/seq2seq_dropout.cpp
  src/fast/seq2seq_backward.cpp
  src/fast/seq2seq_training.cpp
)
add_library(attn::fast ALIAS attn_fast)
# include/ comes with attn_io; finite_values.hpp (src/common): one non-finite message for both paths.
target_include_directories(attn_fast PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/common)
find_package(Threads REQUIRED)
target_link_libraries(attn_fast PUBLIC attn attn_io xtensor PRIVATE xtensor-blas Threads::Threads)
attn_target_defaults(attn_fast)
# -fno-math-errno: std::sqrt may then be one vector instruction (sqrtps), with the same correctly
# rounded results; with errno to set, GCC left Adam's loop over every parameter scalar (5 % of a
# training step at the Annotated Transformer's size). Nothing of the fast path reads errno.
target_compile_options(attn_fast PRIVATE -fopenmp-simd -fno-trapping-math -fno-math-errno)
# The tile micro-kernels and the online softmax's update (tile_products.hpp,
# online_softmax_update.hpp): a · b + c must be one fused multiply-add wherever the variant's target
# has one, in every build type (GCC forms none without optimisation), so that a Debug or sanitizer
# build computes the numbers a Release build does. Their vectors of floats stay inside each file,
# so the note on passing them between targets does not apply.
set_source_files_properties(src/fast/tile_products.cpp src/fast/online_softmax_update.cpp PROPERTIES
  COMPILE_OPTIONS "$<$<NOT:$<CONFIG:Release>>:-O2>;-ffp-contract=fast;-Wno-psabi")
if(ATTN_HAVE_OPENBLAS)
  target_compile_definitions(attn_fast PRIVATE ATTN_HAVE_OPENBLAS)
endif()
if(NOT ATTN_FAST_AVX512)
  target_compile_definitions(attn_fast PRIVATE ATTN_FAST_NO_AVX512)
endif()
