// Ejercicio 2 — atención de Luong con la puntuación general.
//
// Implementa exercise::luong_general_attention aquí abajo: los pasos 2 a 5 de
// lessons/02-luong/README.es.md (projected, scores, weights, context), para un batch entero.
// Después ejecuta
//
//     ./tutor exercise 2 --lang es
//
// para comprobarla con el ejemplo resuelto de la lección y con la biblioteca sobre entradas
// aleatorias. ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista
// siguiente; `./tutor exercise 2 --hint` muestra una al momento, y `./tutor exercise 2 --reset`
// te da una copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Formas: B batch · S posiciones de origen · H dimensión oculta.
// W_a se guarda como nn.Linear(H, H, bias=False).weight lo guarda: la fila i produce la componente
// de salida i, así que (W_a h̄_s)[i] = Σ_j W_a[i, j] · h̄_s[j]. Los pasos 4 y 5 son el softmax y la
// media ponderada de la lección 1.
// Útil: attn::Tensor3::from_shape({B, S, H}) crea un tensor (B, S, H) sin inicializar; x(b, s, h)
// lee un elemento; std::exp está en <cmath>. De la biblioteca, usa solo sus tipos: una llamada a
// attn::luong_general_attention, o a cualquier otra de sus funciones, se rechaza antes de ejecutar
// tu código.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::LuongGeneralStep luong_general_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                               const attn::Matrix& W_a) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::LuongGeneralStep step;
    step.projected = attn::Tensor3::from_shape({B, S, H});  // TODO: projected[b, s, i] = Σ_j W_a[i, j] · encoder_outputs[b, s, j]
    step.scores = attn::Matrix::from_shape({B, S});         // TODO: score[b, s] = Σ_i decoder_output[b, i] · projected[b, s, i]
    step.weights = attn::Matrix::from_shape({B, S});        // TODO: softmax de cada fila de las puntuaciones
    step.context = attn::Matrix::from_shape({B, H});        // TODO: context[b, h] = Σ_s weights[b, s] · encoder_outputs[b, s, h]
    (void)decoder_output;
    (void)W_a;
    throw attn::exercises::NotImplementedYet("lección 2: exercise::luong_general_attention aún no está implementada — "
                                             "edita lessons/02-luong/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
