// Exercise 8 — where is each word? The sinusoidal table and RoPE.
//
// Implement the three functions below: sinusoidal_positions, the table of positions that the
// Transformer adds to its embeddings; rotary_angles, the angle RoPE turns each pair of features
// by at each position; and rotary_embedding, RoPE itself, which turns the features of queries
// and keys instead of adding to them, in both of the layouts models use
// (lessons/08-positions/README.md). Then run
//
//     ./tutor exercise 8
//
// to check them against the library on tables of several sizes and on random heads in both
// layouts. Stuck? A run whose numbers changed and still fail shows the next hint;
// `./tutor exercise 8 --hint` shows one at once, and `./tutor exercise 8 --reset` gives you a
// fresh copy of this file (yours is kept as a backup).
//
// Shapes: T positions · D = d_model model width · B batch · h heads · d_k per-head width (even).
// Useful: attn::Matrix::from_shape({T, D}) and attn::Tensor4::from_shape({B, h, T, d_k}) make
// uninitialised tensors; pe(p, c) and x(batch, head, t, f) read and write an element;
// std::sin, std::cos and std::pow are in <cmath>. From the library, use only its types (and
// attn::RopeLayout): a call to attn::sinusoidal_positions, attn::rotary_angles,
// attn::rotary_embedding or any other of its functions is refused before your code runs.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::Matrix sinusoidal_positions(std::size_t T, std::size_t d_model) {
    attn::Matrix pe = attn::Matrix::from_shape({T, d_model});
    // TODO, for each position p = 0 … T − 1 and each column c (pair i = c / 2):
    //   the angle p / 10000^(2i / d_model)
    //   pe(p, c) = its sine when c is even, its cosine when c is odd
    throw attn::exercises::NotImplementedYet("lesson 8: exercise::sinusoidal_positions is not implemented yet — "
                                             "edit lessons/08-positions/exercise/exercise.cpp");
    return pe;
}

attn::Matrix rotary_angles(const std::vector<std::int64_t>& positions, std::size_t d_k, double base) {
    attn::Matrix angles = attn::Matrix::from_shape({positions.size(), d_k / 2});
    // TODO, for each position t and each pair i = 0 … d_k/2 − 1:
    //   θ_i = base^(−2i / d_k), and angles(t, i) = positions[t] · θ_i
    (void)base;
    throw attn::exercises::NotImplementedYet("lesson 8: exercise::rotary_angles is not implemented yet — "
                                             "edit lessons/08-positions/exercise/exercise.cpp");
    return angles;
}

attn::Tensor4 rotary_embedding(const attn::Tensor4& x, const std::vector<std::int64_t>& positions,
                               attn::RopeLayout layout, double base) {
    const std::size_t B = x.shape(0), h = x.shape(1), T = x.shape(2), d_k = x.shape(3);
    attn::Tensor4 out = attn::Tensor4::from_shape({B, h, T, d_k});
    // TODO, for every batch, head and t, and each pair i = 0 … d_k/2 − 1:
    //   the angle φ = rotary_angles(positions, d_k, base)(t, i)
    //   the pair's two features: (i, i + d_k/2) with attn::RopeLayout::halves,
    //                            (2i, 2i + 1)   with attn::RopeLayout::pairs
    //   with a and b their values in x: a' = a cos φ − b sin φ, b' = b cos φ + a sin φ, into out
    (void)positions;
    (void)layout;
    (void)base;
    throw attn::exercises::NotImplementedYet("lesson 8: exercise::rotary_embedding is not implemented yet — "
                                             "edit lessons/08-positions/exercise/exercise.cpp");
    return out;
}

}  // namespace exercise
