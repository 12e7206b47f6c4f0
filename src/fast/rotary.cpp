// RoPE on the fast path (rotary.hpp): the tables once per call, then an in-place rotation.
#include "rotary.hpp"

#include <algorithm>
#include <cmath>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn::fast::detail {

namespace {

constexpr std::size_t rows_per_task = 64;  // enough work per task to pay for handing it out

void check_positions(const std::string& function, const char* name, const std::vector<std::int64_t>& positions,
                     std::size_t count, const char* letter) {
    if (positions.empty()) return;
    if (positions.size() != count) {
        throw ShapeError(function + ": rope." + name + " has " + std::to_string(positions.size()) +
                         " values but must be (" + letter + ") = (" + std::to_string(count) + "): one per row");
    }
    for (std::size_t t = 0; t < positions.size(); ++t) {
        if (positions[t] < 0) {
            throw InputError(function + ": rope." + name + "[" + std::to_string(t) + "] = " +
                             std::to_string(positions[t]) + " is negative; positions count from 0");
        }
    }
}

// a' = a cos φ − b sin φ, b' = b cos φ + a sin φ for one head's row, pair i being (a[i·step],
// b[i·step]): halves has a = row, b = row + d_k/2, step 1; pairs has a = row, b = row + 1, step 2.
inline void rotate_row(float* a, float* b, std::size_t step, const float* cos, const float* sin, std::size_t pairs) {
    for (std::size_t i = 0; i < pairs; ++i) {
        const float first = a[i * step], second = b[i * step];
        a[i * step] = first * cos[i] - second * sin[i];
        b[i * step] = second * cos[i] + first * sin[i];
    }
}

}  // namespace

void check_rotary_options(const std::string& function, const RotaryOptions& rope, std::size_t T, std::size_t S,
                          std::size_t d_k) {
    try {
        attn::rotary_frequencies(d_k, rope.base);  // d_k even and ≥ 2, base finite and > 0
    } catch (const InputError& e) {
        throw InputError(function + ": with RoPE (options.rope), " + e.what());
    }
    check_positions(function, "query_positions", rope.query_positions, T, "T");
    check_positions(function, "key_positions", rope.key_positions, S, "S");
}

RotaryTable rotary_table(const std::vector<std::int64_t>& positions, std::size_t count, std::size_t d_k, double base,
                         WorkerPool& pool) {
    const Vector theta = attn::rotary_frequencies(d_k, base);  // (d_k/2), double
    RotaryTable table;
    table.positions = count;
    table.pairs = d_k / 2;
    table.cos.resize(count * table.pairs);
    table.sin.resize(count * table.pairs);
    pool.run((count + rows_per_task - 1) / rows_per_task, [&](std::size_t task, std::size_t) {
        const std::size_t end = std::min(count, (task + 1) * rows_per_task);
        for (std::size_t t = task * rows_per_task; t < end; ++t) {
            const double position = positions.empty() ? double(t) : double(positions[t]);
            for (std::size_t i = 0; i < table.pairs; ++i) {
                const double angle = position * theta(i);  // in double: p · θ_i keeps its digits
                table.cos[t * table.pairs + i] = static_cast<float>(std::cos(angle));
                table.sin[t * table.pairs + i] = static_cast<float>(std::sin(angle));
            }
        }
    });
    return table;
}

void rotate_heads(float* x, std::size_t rows, std::size_t D, std::size_t heads, const RotaryTable& table,
                  RopeLayout layout, WorkerPool& pool) {
    const std::size_t d_k = D / heads, pairs = table.pairs;
    const std::size_t second = layout == RopeLayout::halves ? pairs : 1, step = layout == RopeLayout::halves ? 1 : 2;
    pool.run((rows + rows_per_task - 1) / rows_per_task, [&](std::size_t task, std::size_t) {
        const std::size_t end = std::min(rows, (task + 1) * rows_per_task);
        for (std::size_t r = task * rows_per_task; r < end; ++r) {
            const std::size_t t = r % table.positions;
            const float* cos = table.cos.data() + t * pairs;
            const float* sin = table.sin.data() + t * pairs;
            for (std::size_t head = 0; head < heads; ++head) {
                float* row = x + r * D + head * d_k;
                rotate_row(row, row + second, step, cos, sin, pairs);
            }
        }
    });
}

}  // namespace attn::fast::detail
