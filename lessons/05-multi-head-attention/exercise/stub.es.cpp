// Ejercicio 5 — atención multicabeza.
//
// Implementa las tres funciones de aquí abajo para un batch entero: split_heads (paso 3 de
// lessons/05-multi-head-attention/README.es.md), merge_heads (paso 6) y multi_head_attention
// (pasos 2 a 7: proyecciones, cabezas, puntuaciones, pesos, contexto, proyección de salida) con la
// máscara de relleno del paso 9. Después ejecuta
//
//     ./tutor exercise 5 --lang es
//
// para comprobarlas con el ejemplo resuelto y el batch con relleno de la lección y con la
// biblioteca sobre entradas aleatorias. ¿Atascado? Una ejecución cuyos números cambian y siguen
// fallando muestra la pista siguiente; `./tutor exercise 5 --hint` muestra una al momento, y
// `./tutor exercise 5 --reset` te da una copia nueva de este archivo (la tuya se guarda como copia
// de seguridad).
//
// Formas: B batch · T consultas · S claves · D dimensión del modelo · h cabezas · d_k = D / h por
// cabeza.
// Útil: attn::linear(x, W, b) (attn/linear.hpp) calcula x Wᵀ + b sobre el último eje de un tensor
// (B, T, D), con W guardada (out, in) como aquí; attn::softmax_last_axis(t)
// (attn/softmax.hpp) hace el softmax sobre el último eje de un tensor (B, h, T, S) y da pesos cero
// a una fila que es toda −∞. attn::Tensor4::from_shape({B, h, T, d_k}) crea un tensor sin
// inicializar; x(b, j, t, i) lee un elemento; std::sqrt está en <cmath>,
// std::numeric_limits<double>::infinity() en <limits>. De la biblioteca, usa solo attn::linear,
// attn::softmax_last_axis y sus tipos: una llamada a attn::split_heads, attn::multi_head_attention o
// a cualquier otra de sus funciones se rechaza antes de ejecutar tu código.
#include <cmath>
#include <limits>

#include "attn/linear.hpp"
#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace exercise {

attn::Tensor4 split_heads(const attn::Tensor3& x, std::size_t heads) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2), d_k = D / heads;
    attn::Tensor4 out = attn::Tensor4::from_shape({B, heads, T, d_k});  // TODO: out(b, j, t, i) = x(b, t, j·d_k + i)
    throw attn::exercises::NotImplementedYet("lección 5: exercise::split_heads aún no está implementada — "
                                             "edita lessons/05-multi-head-attention/exercise/exercise.cpp");
    return out;
}

attn::Tensor3 merge_heads(const attn::Tensor4& x) {
    const std::size_t B = x.shape(0), heads = x.shape(1), T = x.shape(2), d_k = x.shape(3);
    attn::Tensor3 out = attn::Tensor3::from_shape({B, T, heads * d_k});  // TODO: out(b, t, j·d_k + i) = x(b, j, t, i)
    throw attn::exercises::NotImplementedYet("lección 5: exercise::merge_heads aún no está implementada — "
                                             "edita lessons/05-multi-head-attention/exercise/exercise.cpp");
    return out;
}

attn::MultiHeadAttentionResult multi_head_attention(const attn::Tensor3& query, const attn::Tensor3& key,
                                                    const attn::Tensor3& value,
                                                    const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                                    const std::optional<attn::Matrix>& attention_mask) {
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), D = query.shape(2), d_k = D / heads;
    attn::MultiHeadAttentionResult r;
    r.q = attn::Tensor3::from_shape({B, T, D});                  // TODO: query W_qᵀ + b_q; k y v igual a partir de key y value
    r.k = attn::Tensor3::from_shape({B, S, D});
    r.v = attn::Tensor3::from_shape({B, S, D});
    r.q_heads = attn::Tensor4::from_shape({B, heads, T, d_k});   // TODO: split_heads de q, k y v
    r.k_heads = attn::Tensor4::from_shape({B, heads, S, d_k});
    r.v_heads = attn::Tensor4::from_shape({B, heads, S, d_k});
    r.scores = attn::Tensor4::from_shape({B, heads, T, S});      // TODO: Σ_i q_heads(b, j, t, i) · k_heads(b, j, s, i), entre √d_k
    r.weights = attn::Tensor4::from_shape({B, heads, T, S});     // TODO: −∞ donde attention_mask(b, s) == 0, y luego softmax sobre s
    r.context_heads = attn::Tensor4::from_shape({B, heads, T, d_k});  // TODO: Σ_s weights(b, j, t, s) · v_heads(b, j, s, i)
    r.context = attn::Tensor3::from_shape({B, T, D});            // TODO: merge_heads(context_heads)
    r.output = attn::Tensor3::from_shape({B, T, D});             // TODO: context W_oᵀ + b_o si hay weights.w_o; si no, el contexto
    (void)value;
    (void)weights;
    (void)attention_mask;
    throw attn::exercises::NotImplementedYet("lección 5: exercise::multi_head_attention aún no está implementada — "
                                             "edita lessons/05-multi-head-attention/exercise/exercise.cpp");
    return r;
}

}  // namespace exercise
