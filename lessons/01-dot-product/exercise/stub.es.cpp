// Ejercicio 1 — atención por producto escalar.
//
// Implementa exercise::dot_attention aquí abajo: los tres pasos de
// lessons/01-dot-product/README.es.md (scores, weights, context), para un batch entero. Después
// ejecuta
//
//     ./tutor exercise 1 --lang es
//
// para comprobarla con el ejemplo resuelto de la lección y con la biblioteca sobre entradas
// aleatorias. ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista
// siguiente; `./tutor exercise 1 --hint` muestra una al momento, y `./tutor exercise 1 --reset`
// te da una copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Formas: B batch · S posiciones de origen · H dimensión oculta.
// Útil: attn::Matrix::from_shape({B, S}) crea una matriz (B, S) sin inicializar; x(b, s, h) lee
// un elemento; std::exp está en <cmath>. De la biblioteca, usa solo sus tipos: una llamada a
// attn::dot_attention, o a cualquier otra de sus funciones, se rechaza antes de ejecutar tu código.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::AttentionStep step;
    step.scores = attn::Matrix::from_shape({B, S});    // TODO: score[b, s] = Σ_h encoder_outputs[b, s, h] · decoder_output[b, h]
    step.weights = attn::Matrix::from_shape({B, S});   // TODO: softmax de cada fila de las puntuaciones
    step.context = attn::Matrix::from_shape({B, H});   // TODO: context[b, h] = Σ_s weights[b, s] · encoder_outputs[b, s, h]
    (void)decoder_output;
    throw attn::exercises::NotImplementedYet("lección 1: exercise::dot_attention aún no está implementada — "
                                             "edita lessons/01-dot-product/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
