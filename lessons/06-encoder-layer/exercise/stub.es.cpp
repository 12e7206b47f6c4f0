// Ejercicio 6 — la capa codificadora del Transformer.
//
// Implementa las dos funciones de aquí abajo: layer_norm, la nn.LayerNorm de PyTorch (pasos 1 y 2
// de lessons/06-encoder-layer/README.es.md), y transformer_encoder_layer, una capa de un
// codificador Transformer, post-norm y pre-norm (pasos 3 a 8). Después ejecuta
//
//     ./tutor exercise 6 --lang es
//
// para comprobarlas con los ejemplos resueltos de la lección y con la biblioteca sobre entradas
// aleatorias. ¿Atascado? Una ejecución cuyos números cambian y siguen fallando muestra la pista
// siguiente; `./tutor exercise 6 --hint` muestra una al momento, y `./tutor exercise 6 --reset`
// te da una copia nueva de este archivo (la tuya se guarda como copia de seguridad).
//
// Lo que importa en este ejercicio es la normalización y el orden de las normalizaciones y las
// conexiones residuales: llama a attn::multi_head_attention de la biblioteca (lección 5,
// attn/multi_head_attention.hpp) y a attn::feed_forward (attn/feed_forward.hpp) para las dos
// subcapas, y a tu propia layer_norm para las normalizaciones. as_rows y as_tensor, aquí abajo,
// cambian de (B, T, D) a las filas (B·T, D) que toman layer_norm y feed_forward, y al revés. De la
// biblioteca, usa solo las dos subcapas (y aquello de lo que están hechas: attn::linear,
// attn::softmax_last_axis, attn::split_heads, attn::merge_heads, attn::relu, attn::gelu) y sus
// tipos: una llamada a attn::layer_norm, attn::annotated_layer_norm, attn::transformer_encoder_layer
// o a cualquier otra de sus funciones se rechaza antes de ejecutar tu código.
//
// Formas: B batch · T posiciones · D dimensión del modelo · h cabezas (options.heads) · F dimensión
// interna de la red feed-forward.
// Útil: attn::Vector::from_shape({N}) y attn::Matrix::from_shape({N, D}) crean tensores sin
// inicializar; x(n, d) lee un elemento; std::sqrt está en <cmath>; a + b suma dos tensores de la
// misma forma.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace {

// (B, T, D) → (B·T, D): cada posición, una fila; los mismos números en el mismo orden.
[[maybe_unused]] attn::Matrix as_rows(const attn::Tensor3& x) {
    attn::Matrix rows = attn::Matrix::from_shape({x.shape(0) * x.shape(1), x.shape(2)});
    std::copy(x.begin(), x.end(), rows.begin());
    return rows;
}

// (B·T, width) → (B, T, width).
[[maybe_unused]] attn::Tensor3 as_tensor(const attn::Matrix& rows, std::size_t B, std::size_t T) {
    attn::Tensor3 x = attn::Tensor3::from_shape({B, T, rows.shape(1)});
    std::copy(rows.begin(), rows.end(), x.begin());
    return x;
}

}  // namespace

namespace exercise {

attn::LayerNormStep layer_norm(const attn::Matrix& x, const attn::Vector& weight, const attn::Vector& bias, double eps) {
    const std::size_t N = x.shape(0), D = x.shape(1);
    attn::LayerNormStep step;
    step.mean = attn::Vector::from_shape({N});           // TODO: la media de cada fila
    step.variance = attn::Vector::from_shape({N});       // TODO: la media de las desviaciones al cuadrado respecto a ella (÷ D)
    step.normalized = attn::Matrix::from_shape({N, D});  // TODO: (x − mean) / √(variance + eps)
    step.output = attn::Matrix::from_shape({N, D});      // TODO: normalized · weight(d) + bias(d), componente a componente
    (void)weight;
    (void)bias;
    (void)eps;
    throw attn::exercises::NotImplementedYet("lección 6: exercise::layer_norm aún no está implementada — "
                                             "edita lessons/06-encoder-layer/exercise/exercise.cpp");
    return step;
}

attn::EncoderLayerStep transformer_encoder_layer(const attn::Tensor3& x, const attn::EncoderLayerWeights& weights,
                                                 const attn::EncoderLayerOptions& options) {
    attn::EncoderLayerStep step;
    // TODO, en este orden (norm1(y): tu layer_norm de as_rows(y) con weights.norm1_weight,
    // weights.norm1_bias y options.eps, de vuelta a (B, T, D); norm2 igual):
    //   step.attention_input     x (post-norm), o norm1(x) (pre-norm: options.norm_first)
    //   step.attention           attn::multi_head_attention con attention_input como query, key y value,
    //                            weights.attention, options.heads, options.attention_mask
    //   step.attention_residual  x + la salida de la subcapa de atención
    //   step.after_attention     norm1(attention_residual) (post-norm), o attention_residual (pre-norm)
    //   step.ffn_input           after_attention (post-norm), o norm2(after_attention) (pre-norm)
    //   step.ffn_hidden, step.ffn_output   attn::feed_forward sobre as_rows(ffn_input), options.activation
    //   step.ffn_residual        after_attention + ffn_output
    //   step.output              norm2(ffn_residual) (post-norm), o ffn_residual (pre-norm)
    (void)x;
    (void)weights;
    (void)options;
    throw attn::exercises::NotImplementedYet("lección 6: exercise::transformer_encoder_layer aún no está implementada — "
                                             "edita lessons/06-encoder-layer/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
