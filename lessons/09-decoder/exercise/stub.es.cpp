// Ejercicio 9 — el decodificador: atención cruzada y un paso de decodificación con caché y
// atención de consultas agrupadas.
//
// Implementa las dos funciones de aquí abajo (lessons/09-decoder/README.es.md): cross_attention,
// la atención del decodificador sobre la salida del codificador (la memoria), y
// cached_decoding_step, un paso de la generación de tokens con una caché KV cuyas cabezas K/V
// comparten grupos de cabezas de consulta. Después ejecuta
//
//     ./tutor exercise 9 --lang es
//
// para comprobarlas con la biblioteca sobre decodificadores, memorias y cachés aleatorios con
// semilla. ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista
// siguiente; `./tutor exercise 9 --hint` muestra una al momento, y `./tutor exercise 9 --reset`
// te da una copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Formas: B batch · T posiciones del decodificador · S posiciones de la memoria · D anchura del
// modelo · h cabezas de consulta · g cabezas K/V (g divide a h) · d_k = D / h · P posiciones en
// caché · n tokens nuevos.
// Útil: attn::Tensor4::from_shape({B, h, T, S}) crea un tensor sin inicializar; x(b, j, t, s)
// lee y escribe un elemento; std::sqrt está en <cmath>, std::numeric_limits<double>::infinity()
// en <limits>. De la biblioteca puedes llamar a attn::linear (x Wᵀ + b), attn::split_heads,
// attn::merge_heads (lección 5) y attn::softmax_last_axis (una fila solo de −∞ da ceros); una
// llamada a cualquier otra de sus funciones se rechaza antes de ejecutar tu código.
#include <cmath>
#include <limits>

#include "attn/linear.hpp"
#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace exercise {

CrossAttentionResult cross_attention(const attn::Tensor3& tgt, const attn::Tensor3& memory,
                                     const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                     const attn::Matrix& memory_mask) {
    CrossAttentionResult r;
    // POR HACER:
    //   q del decodificador (tgt), k y v de la memoria, cada una proyectada (x Wᵀ + b) y
    //   partida en cabezas de d_k = D / heads
    //   scores(b, j, t, s) = q_j(t) · k_j(s) / √d_k, −∞ donde memory_mask(b, s) es 0
    //   r.weights = el softmax sobre s; después los pesos de cada cabeza · v_j, las cabezas
    //   unidas, y r.output = ese contexto W_oᵀ + b_o (weights.w_o; weights.b_o puede faltar)
    (void)tgt;
    (void)memory;
    (void)weights;
    (void)heads;
    (void)memory_mask;
    throw attn::exercises::NotImplementedYet("lección 9: exercise::cross_attention aún no está implementada — "
                                             "edita lessons/09-decoder/exercise/exercise.cpp");
    return r;
}

DecodingStep cached_decoding_step(const attn::Tensor4& q, const attn::Tensor4& k, const attn::Tensor4& v,
                                  const attn::Tensor4& k_cache, const attn::Tensor4& v_cache) {
    DecodingStep r;
    // POR HACER:
    //   r.k_cache, r.v_cache: la caché (B, g, P, d_k) con k, v (B, g, n, d_k) añadidas: (B, g, P + n, d_k)
    //   para cada cabeza de consulta j, su cabeza K/V j / (h / g), y cada consulta nueva i (posición P + i):
    //     puntuaciones sobre las claves s = 0 … P + n − 1 de la caché ampliada, q · k / √d_k, −∞ si s > P + i
    //   r.weights = el softmax sobre s, (B, h, n, P + n); r.context = pesos · los valores, (B, h, n, d_k)
    (void)q;
    (void)k;
    (void)v;
    (void)k_cache;
    (void)v_cache;
    throw attn::exercises::NotImplementedYet("lección 9: exercise::cached_decoding_step aún no está implementada — "
                                             "edita lessons/09-decoder/exercise/exercise.cpp");
    return r;
}

}  // namespace exercise
