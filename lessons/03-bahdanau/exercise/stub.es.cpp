// Ejercicio 3 — atención de Bahdanau (aditiva).
//
// Implementa exercise::bahdanau_attention aquí abajo: los pasos 2 a 6 de
// lessons/03-bahdanau/README.es.md (concatenated, preactivation, hidden, scores, weights, context),
// para un batch entero. Después ejecuta
//
//     ./tutor exercise 3 --lang es
//
// para comprobarla con el ejemplo resuelto de la lección y con la biblioteca sobre entradas
// aleatorias. ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista
// siguiente; `./tutor exercise 3 --hint` muestra una al momento, y `./tutor exercise 3 --reset`
// te da una copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Formas: B batch · S posiciones de origen · H dimensión oculta.
// W1 y w2 se guardan como nn.Linear guarda su peso, (out, in): la fila i produce la unidad
// de salida i. Los pasos 5 y 6 son el softmax y la media ponderada de la lección 1. El paso 8 de la
// lección muestra un fallo que hay que evitar.
// Útil: attn::Tensor3::from_shape({B, S, 2 * H}) crea un tensor sin inicializar; x(b, s, j) lee un
// elemento; std::exp y std::tanh están en <cmath>. De la biblioteca, usa solo sus tipos: una
// llamada a attn::bahdanau_attention, o a cualquier otra de sus funciones, se rechaza antes de
// ejecutar tu código.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::BahdanauStep bahdanau_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                      const attn::Matrix& W1, const attn::Vector& b1, const attn::Matrix& w2,
                                      const attn::Vector& b2) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::BahdanauStep step;
    step.concatenated = attn::Tensor3::from_shape({B, S, 2 * H});   // TODO: [h̄_s ; h_t] — encoder_outputs[b, s, ·] y después decoder_output[b, ·]
    step.preactivation = attn::Tensor3::from_shape({B, S, 2 * H});  // TODO: Σ_j W1[i, j] · concatenated[b, s, j] + b1[i]
    step.hidden = attn::Tensor3::from_shape({B, S, 2 * H});         // TODO: tanh de cada preactivación
    step.scores = attn::Matrix::from_shape({B, S});                 // TODO: Σ_i w2[0, i] · hidden[b, s, i] + b2[0]
    step.weights = attn::Matrix::from_shape({B, S});                // TODO: softmax de cada fila de las puntuaciones
    step.context = attn::Matrix::from_shape({B, H});                // TODO: context[b, h] = Σ_s weights[b, s] · encoder_outputs[b, s, h]
    (void)decoder_output;
    (void)W1;
    (void)b1;
    (void)w2;
    (void)b2;
    throw attn::exercises::NotImplementedYet("lección 3: exercise::bahdanau_attention aún no está implementada — "
                                             "edita lessons/03-bahdanau/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
