// Ejercicio 7 — atención a gran escala: el softmax en línea.
//
// Implementa exercise::online_softmax_attention aquí abajo: el softmax(Q Kᵀ / √d_k) V de la
// lección 4 calculado como lo hace lessons/07-online-softmax/README.es.md, las claves bloque a
// bloque, guardando para cada consulta un máximo m (la mayor puntuación vista hasta ahora), una
// suma l y un acumulador, y registrando en la traza el estado tras cada bloque. Después ejecuta
//
//     ./tutor exercise 7 --lang es
//
// para comprobarla con los dos ejemplos resueltos de la lección y, bloque a bloque, con la traza de
// la biblioteca sobre entradas aleatorias. ¿Atascado? Una ejecución cuyos números cambian y siguen
// fallando muestra la pista siguiente; `./tutor exercise 7 --hint` muestra una al momento, y
// `./tutor exercise 7 --reset` te da una copia nueva de este archivo (la tuya se guarda como copia
// de seguridad).
//
// Formas: B batch · T consultas · S claves · d_k dimensión de consulta/clave · d_v dimensión de
// valor. T y S pueden ser distintos, y no tienen por qué ser múltiplos de los bloques: el último
// bloque de cada eje puede ser más pequeño. Los bucles sobre los bloques y el lugar de cada bloque
// en la traza ya están escritos aquí abajo.
// Útil: attn::Vector::from_shape({n}) y attn::Matrix::from_shape({n, d}) crean tensores sin
// inicializar, .fill(valor) fija todos sus elementos; x(b, t, i) lee un elemento; std::exp y
// std::sqrt están en <cmath>, std::numeric_limits<double>::infinity() en <limits>. De la
// biblioteca, usa solo sus tipos: una llamada a attn::online_softmax_attention, o a cualquier otra
// de sus funciones, se rechaza antes de ejecutar tu código.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exercise.hpp"

namespace exercise {

attn::OnlineSoftmaxResult online_softmax_attention(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V,
                                                   std::size_t query_tile, std::size_t key_tile, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), d_v = V.shape(2);
    attn::OnlineSoftmaxResult result;
    result.output = attn::Tensor3::from_shape({B, T, d_v});  // TODO: acumulador / l, una sola vez, tras el último bloque de claves
    throw attn::exercises::NotImplementedYet("lección 7: exercise::online_softmax_attention aún no está implementada — "
                                             "edita lessons/07-online-softmax/exercise/exercise.cpp");

    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t first_query = 0; first_query < T; first_query += query_tile) {
            const std::size_t queries = std::min(query_tile, T - first_query);
            // TODO: el estado de estas consultas antes de ninguna clave: m = −∞, l = 0, acumulador
            // (queries, d_v) = 0.

            for (std::size_t first_key = 0; first_key < S; first_key += key_tile) {
                const std::size_t keys = std::min(key_tile, S - first_key);
                attn::OnlineSoftmaxTile tile;
                tile.batch = b;
                tile.first_query = first_query;
                tile.query_count = queries;
                tile.first_key = first_key;
                tile.key_count = keys;
                tile.rescale = attn::Vector::from_shape({queries});
                tile.exponentials = attn::Matrix::from_shape({queries, keys});
                tile.rescale.fill(1.0);        // lo que conserva un bloque saltado
                tile.exponentials.fill(0.0);
                tile.skipped = false;  // TODO: con `causal`, salta el bloque cuando todas sus claves
                                       // están en el futuro de todas sus consultas
                (void)causal;
                if (!tile.skipped) {
                    // TODO, para cada consulta i del bloque (la consulta t = first_query + i):
                    //   las puntuaciones del bloque q_t · k_s / √d_k, −∞ donde causal y s > t
                    //   m_new = max(m_old, las puntuaciones del bloque); tile.rescale(i) = e^(m_old − m_new)
                    //   l y el acumulador multiplicados por él, después e^(score − m_new) sumado a l y
                    //   e^(score − m_new) · v_s al acumulador; tile.exponentials(i, j) = e^(score − m_new)
                }
                // TODO: cuenta el bloque en result.tiles_computed o en result.tiles_skipped, y guarda
                // el estado tras él: tile.running_max, tile.running_sum, tile.accumulator.
                result.trace.push_back(tile);
            }
            // TODO: la salida de estas consultas.
        }
    }
    return result;
}

}  // namespace exercise
