// Ejercicio 11 — las piezas del paso de entrenamiento: teacher forcing, la pérdida suavizada,
// Adam con su calendario de calentamiento, y el bucle que las junta.
//
// Implementa las cinco funciones de aquí abajo (lessons/11-training/README.es.md; exercise.hpp
// dice exactamente qué devuelve cada una): teacher_forcing, la entrada del decoder y los
// objetivos a partir de tgt; smoothed_cross_entropy, la pérdida con suavizado de etiquetas y su
// gradiente; noam_rate, la tasa de aprendizaje de un paso; adam_update, una actualización de Adam
// con corrección del sesgo; y train, el bucle que ejecuta el backward de cada lote y una
// actualización. Después ejecuta
//
//     ./tutor exercise 11 --lang es
//
// para comprobarlas con la pérdida, el Adam y el calendario de la biblioteca (comprobados a su vez
// con PyTorch). ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista
// siguiente; `./tutor exercise 11 --hint` muestra una al momento, y `./tutor exercise 11 --reset`
// te da una copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Formas: B secuencias · L símbolos · N filas (una por posición predicha) · V vocabulario ·
// P parámetros · K actualizaciones.
// Útil: attn::Matrix::from_shape({N, V}) crea una matriz sin inicializar (m.fill(0.0) la pone a
// cero); m(n, c) lee y escribe un elemento; std::exp, std::log, std::sqrt y std::pow están en
// <cmath>, std::max y std::fill en <algorithm>. No hace falta ninguna función de la biblioteca:
// una llamada a una de ellas se rechaza antes de ejecutar tu código.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace exercise {

TeacherForcing teacher_forcing(const Tokens& tgt) {
    TeacherForcing split;
    // TODO: para cada secuencia de tgt, el decoder lee todos los símbolos menos el último, y la
    // posición t se puntúa con el símbolo que sigue al que lee:
    //   split.decoder_input: sequence[0 … L − 2];  split.targets: sequence[1 … L − 1]
    (void)tgt;
    throw attn::exercises::NotImplementedYet("lección 11: exercise::teacher_forcing aún no está implementada — "
                                             "edita lessons/11-training/exercise/exercise.cpp");
    return split;
}

SmoothedLoss smoothed_cross_entropy(const attn::Matrix& logits, const std::vector<int>& targets, int padding,
                                    double smoothing) {
    // TODO: counted = las filas cuyo objetivo no es `padding`. Para cada fila contada n:
    //   log p = el log softmax de la fila (resta antes el máximo de la fila: los logits pueden ser grandes)
    //   q[n, c] = 1 − ε en targets[n], 0 en `padding`, ε / (V − 2) en las demás
    //   loss += Σ_c q · (log q − log p) sobre las c con q > 0
    //   grad_logits[n, c] = (p[n, c] − q[n, c]) / counted
    // Filas cuyo objetivo es padding: q y grad_logits todo 0. Al final, loss /= counted.
    (void)logits;
    (void)targets;
    (void)padding;
    (void)smoothing;
    throw attn::exercises::NotImplementedYet("lección 11: exercise::smoothed_cross_entropy aún no está implementada — "
                                             "edita lessons/11-training/exercise/exercise.cpp");
}

double noam_rate(std::size_t step, std::size_t d_model, double factor, std::size_t warmup) {
    // TODO: factor · d_model^(−1/2) · min(step^(−1/2), step · warmup^(−3/2)), leyendo el paso 0 como 1
    (void)step;
    (void)d_model;
    (void)factor;
    (void)warmup;
    throw attn::exercises::NotImplementedYet("lección 11: exercise::noam_rate aún no está implementada — "
                                             "edita lessons/11-training/exercise/exercise.cpp");
}

void adam_update(std::vector<double>& parameters, const std::vector<double>& gradients, AdamMemory& memory,
                 double learning_rate) {
    // TODO: da tamaño a memory.m y memory.v con ceros si están vacíos; t = memory.steps_taken + 1;
    // para cada i: m ← 0.9 m + 0.1 g;  v ← 0.98 v + 0.02 g²;
    //   θ ← θ − learning_rate · (m / (1 − 0.9ᵗ)) / (√(v / (1 − 0.98ᵗ)) + 1e-9)
    // y después cuenta la actualización en memory.steps_taken.
    (void)parameters;
    (void)gradients;
    (void)memory;
    (void)learning_rate;
    throw attn::exercises::NotImplementedYet("lección 11: exercise::adam_update aún no está implementada — "
                                             "edita lessons/11-training/exercise/exercise.cpp");
}

TrainingLog train(std::vector<double> parameters, const std::vector<Backward>& batches, const Schedule& schedule) {
    TrainingLog log;
    AdamMemory memory;
    std::vector<double> gradients(parameters.size(), 0.0);  // el búfer del gradiente (el .grad de cada parámetro)
    // TODO: para k = 1 … batches.size():
    //   batches[k − 1](parameters, gradients) suma el gradiente de ese lote al búfer;
    //   rate = noam_rate(k − 1, schedule.d_model, schedule.factor, schedule.warmup);
    //   adam_update(parameters, gradients, memory, rate);
    //   guarda en log la tasa, el búfer y los parámetros.
    (void)batches;
    (void)schedule;
    throw attn::exercises::NotImplementedYet("lección 11: exercise::train aún no está implementada — "
                                             "edita lessons/11-training/exercise/exercise.cpp");
    return log;
}

}  // namespace exercise
