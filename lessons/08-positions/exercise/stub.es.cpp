// Ejercicio 8 — ¿dónde está cada palabra? La tabla sinusoidal y RoPE.
//
// Implementa las tres funciones de aquí abajo: sinusoidal_positions, la tabla de posiciones que
// el Transformer suma a sus embeddings; rotary_angles, el ángulo que RoPE gira cada par de
// características en cada posición; y rotary_embedding, RoPE en sí, que gira las características
// de consultas y claves en lugar de sumarles algo, en las dos disposiciones que usan los modelos
// (lessons/08-positions/README.es.md). Después ejecuta
//
//     ./tutor exercise 8 --lang es
//
// para comprobarlas con la biblioteca en tablas de varios tamaños y en cabezas aleatorias con las
// dos disposiciones. ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la
// pista siguiente; `./tutor exercise 8 --hint` muestra una al momento, y
// `./tutor exercise 8 --reset` te da una copia nueva de este archivo (la tuya se guarda como copia
// de seguridad).
//
// Formas: T posiciones · D = d_model ancho del modelo · B lote · h cabezas · d_k ancho por cabeza
// (par). Útil: attn::Matrix::from_shape({T, D}) y attn::Tensor4::from_shape({B, h, T, d_k}) crean
// tensores sin inicializar; pe(p, c) y x(batch, head, t, f) leen y escriben un elemento;
// std::sin, std::cos y std::pow están en <cmath>. De la biblioteca usa solo sus tipos (y
// attn::RopeLayout): una llamada a attn::sinusoidal_positions, attn::rotary_angles,
// attn::rotary_embedding o a cualquier otra de sus funciones se rechaza antes de que se ejecute
// tu código.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::Matrix sinusoidal_positions(std::size_t T, std::size_t d_model) {
    attn::Matrix pe = attn::Matrix::from_shape({T, d_model});
    // TODO, para cada posición p = 0 … T − 1 y cada columna c (el par i = c / 2):
    //   el ángulo p / 10000^(2i / d_model)
    //   pe(p, c) = su seno cuando c es par, su coseno cuando c es impar
    throw attn::exercises::NotImplementedYet("lección 8: exercise::sinusoidal_positions aún no está implementada — "
                                             "edita lessons/08-positions/exercise/exercise.cpp");
    return pe;
}

attn::Matrix rotary_angles(const std::vector<std::int64_t>& positions, std::size_t d_k, double base) {
    attn::Matrix angles = attn::Matrix::from_shape({positions.size(), d_k / 2});
    // TODO, para cada posición t y cada par i = 0 … d_k/2 − 1:
    //   θ_i = base^(−2i / d_k), y angles(t, i) = positions[t] · θ_i
    (void)base;
    throw attn::exercises::NotImplementedYet("lección 8: exercise::rotary_angles aún no está implementada — "
                                             "edita lessons/08-positions/exercise/exercise.cpp");
    return angles;
}

attn::Tensor4 rotary_embedding(const attn::Tensor4& x, const std::vector<std::int64_t>& positions,
                               attn::RopeLayout layout, double base) {
    const std::size_t B = x.shape(0), h = x.shape(1), T = x.shape(2), d_k = x.shape(3);
    attn::Tensor4 out = attn::Tensor4::from_shape({B, h, T, d_k});
    // TODO, para cada batch, head y t, y cada par i = 0 … d_k/2 − 1:
    //   el ángulo φ = rotary_angles(positions, d_k, base)(t, i)
    //   las dos características del par: (i, i + d_k/2) con attn::RopeLayout::halves,
    //                                    (2i, 2i + 1)   con attn::RopeLayout::pairs
    //   con a y b sus valores en x: a' = a cos φ − b sin φ, b' = b cos φ + a sin φ, en out
    (void)positions;
    (void)layout;
    (void)base;
    throw attn::exercises::NotImplementedYet("lección 8: exercise::rotary_embedding aún no está implementada — "
                                             "edita lessons/08-positions/exercise/exercise.cpp");
    return out;
}

}  // namespace exercise
