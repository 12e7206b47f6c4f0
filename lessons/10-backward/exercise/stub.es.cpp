// Ejercicio 10 — la pasada hacia atrás: el gradiente del softmax, después el de la atención de
// producto escalar escalado.
//
// Implementa las dos funciones de aquí abajo (lessons/10-backward/README.es.md):
// softmax_backward_rows, el gradiente de una fila del softmax dada su salida y el gradiente de su
// salida, y attention_backward, los gradientes de Q, K y V dado el gradiente de la salida de la
// atención. Después ejecuta
//
//     ./tutor exercise 10 --lang es
//
// para comprobarlas con la pasada hacia atrás de la biblioteca (comprobada a su vez con el
// autograd de PyTorch) y con diferencias finitas centradas del forward de la biblioteca.
// ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista siguiente;
// `./tutor exercise 10 --hint` muestra una al momento, y `./tutor exercise 10 --reset` te da una
// copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Formas: B batch · T consultas · S claves · d_k anchura de consulta y clave · d_v anchura del
// valor.
// Útil: attn::Tensor3::from_shape({B, T, S}) crea un tensor sin inicializar; x(b, t, s) lee y
// escribe un elemento; std::sqrt está en <cmath>, std::numeric_limits<double>::infinity() en
// <limits>. De la biblioteca puedes llamar a attn::softmax_last_axis (una fila solo de −∞ da
// ceros); una llamada a cualquier otra de sus funciones se rechaza antes de ejecutar tu código.
#include <cmath>
#include <limits>

#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace exercise {

attn::Matrix softmax_backward_rows(const attn::Matrix& weights, const attn::Matrix& grad_weights) {
    // POR HACER: para cada fila r, con P = weights y dP = grad_weights,
    //   dS(r, s) = P(r, s) · (dP(r, s) − Σ_j dP(r, j) · P(r, j))
    (void)weights;
    (void)grad_weights;
    throw attn::exercises::NotImplementedYet("lección 10: exercise::softmax_backward_rows aún no está implementada — "
                                             "edita lessons/10-backward/exercise/exercise.cpp");
}

AttentionGradients attention_backward(const attn::Tensor3& query, const attn::Tensor3& key, const attn::Tensor3& value,
                                      const std::optional<attn::Tensor3>& mask, const attn::Tensor3& grad_output) {
    AttentionGradients g;
    // POR HACER:
    //   g.weights = softmax sobre s de query(t) · key(s) / √d_k, −∞ donde mask(b, t, s) es 0 (B, T, S)
    //   g.grad_weights = dO Vᵀ (B, T, S);  g.grad_scores = el backward del softmax de cada fila (B, T, S)
    //   g.grad_value = Pᵀ dO (B, S, d_v)
    //   g.grad_query = dS K / √d_k (B, T, d_k);  g.grad_key = dSᵀ Q / √d_k (B, S, d_k)
    (void)query;
    (void)key;
    (void)value;
    (void)mask;
    (void)grad_output;
    throw attn::exercises::NotImplementedYet("lección 10: exercise::attention_backward aún no está implementada — "
                                             "edita lessons/10-backward/exercise/exercise.cpp");
    return g;
}

}  // namespace exercise
