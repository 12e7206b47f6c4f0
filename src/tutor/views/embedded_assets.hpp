// tutor/views/embedded_assets.hpp — the files compiled into the program at build time.
//
// Why: a page's CSS and JavaScript are files (src/tutor/views/assets/) that a reader opens and an
// editor checks, yet `attn` must need nothing beside itself at run time. CMake turns each into a
// char array (cmake/embed_asset.cmake) in the build folder; NAME_size counts its bytes, without
// the terminating zero.
//
//   std::string css(attn::assets::attention_page_css, attn::assets::attention_page_css_size);
#pragma once

#include <cstddef>

namespace attn::assets {

extern const char attention_page_css[];  // src/tutor/views/assets/attention_page.css
extern const std::size_t attention_page_css_size;
extern const char attention_page_js[];   // src/tutor/views/assets/attention_page.js
extern const std::size_t attention_page_js_size;

}  // namespace attn::assets
