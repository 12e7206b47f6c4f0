// Ejercicio 4 — autoatención causal por producto escalar escalado.
//
// Implementa exercise::scaled_dot_product_attention aquí abajo: los pasos 2 a 5 de
// lessons/04-causal-self-attention/README.es.md (scores, masked_scores, weights, output), para un
// batch entero, con la máscara causal cuando `causal` es true. Después ejecuta
//
//     ./tutor exercise 4 --lang es
//
// para comprobarla con los ejemplos resueltos de la lección y con la biblioteca sobre entradas
// aleatorias. ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista
// siguiente; `./tutor exercise 4 --hint` muestra una al momento, y `./tutor exercise 4 --reset`
// te da una copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Formas: B batch · T consultas · S claves · d_k dimensión de consulta/clave · d_v dimensión de
// valor. T y S pueden ser distintos.
// Útil: attn::Tensor3::from_shape({B, T, S}) crea un tensor sin inicializar; x(b, t, s) lee un
// elemento; std::exp y std::sqrt están en <cmath>, std::numeric_limits<double>::infinity() en
// <limits>. De la biblioteca, usa solo sus tipos: una llamada a attn::scaled_dot_product_attention,
// o a cualquier otra de sus funciones, se rechaza antes de ejecutar tu código.
#include <cmath>
#include <limits>

#include "exercise.hpp"

namespace exercise {

attn::ScaledDotProductAttentionResult scaled_dot_product_attention(const attn::Tensor3& Q, const attn::Tensor3& K,
                                                                   const attn::Tensor3& V, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), d_v = V.shape(2);
    attn::ScaledDotProductAttentionResult result;
    result.scores = attn::Tensor3::from_shape({B, T, S});         // TODO: Σ_i Q[b, t, i] · K[b, s, i], dividido por √d_k
    result.masked_scores = attn::Tensor3::from_shape({B, T, S});  // TODO: las puntuaciones, con −∞ donde causal y s > t
    result.weights = attn::Tensor3::from_shape({B, T, S});        // TODO: softmax de cada fila (sobre s) de masked_scores
    result.output = attn::Tensor3::from_shape({B, T, d_v});       // TODO: output[b, t, j] = Σ_s weights[b, t, s] · V[b, s, j]
    (void)causal;
    throw attn::exercises::NotImplementedYet("lección 4: exercise::scaled_dot_product_attention aún no está implementada — "
                                             "edita lessons/04-causal-self-attention/exercise/exercise.cpp");
    return result;
}

}  // namespace exercise
