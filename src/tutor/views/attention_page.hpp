// tutor/views/attention_page.hpp — attention weights as a web page (a head view like bertviz's and a
// heatmap per head) and as an SVG heatmap for slides, and the escaping both need.
//
// Why: bertviz's most reported failures are a blank page without internet access (its scripts
// come from a CDN) and no way to save a picture. This page is one file with every style, script
// and number inline and a Content-Security-Policy that forbids the network, so it opens the same
// in a classroom without Wi-Fi, from an e-mail attachment or years later. The SVG is a picture a
// slide or a paper can hold.
//
// Token text comes from students' files and sentences, so it is never trusted: HTML text is
// escaped (html_escape), and the data the script reads is JSON with <, > and & written as \u
// escapes (json_string), so a token such as </script> or " stays a token.
//
//   attn::tutor::PageText text{"El perro va", {"Untrained weights: seed 1."}};
//   std::string html = attn::tutor::render_attention_page(heads, text);
//   attn::write_files_atomically({{"out.html", html}});   // attn/files.hpp: all or none
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tutor/views/attention_view.hpp"

namespace attn::tutor {

/// Beyond this many queries or keys, one line per pair is a grey blur and the page gets slow.
constexpr std::size_t max_drawn_tokens = 128;

/// What the page says above the pictures.
struct PageText {
    std::string title;               // the sentence, or the weights file's name
    std::vector<std::string> notes;  // where the weights come from (one paragraph each)
};

/// Text safe inside HTML or XML elements and quoted attributes: & < > " ' escaped.
std::string html_escape(const std::string& text);

/// A JSON string literal, quotes included, that is also safe inside a <script> element:
/// < > & and U+2028, U+2029 become \u escapes, as do control characters.
std::string json_string(const std::string& text);

/// The weights as nested JSON arrays [head][query][key], 7 significant digits (float32's).
std::string weights_json(const Tensor3& weights);

/// The self-contained HTML page: head selector, head view, one heatmap per head, the exact
/// weight of each cell on hover. `selected_head` is shown first. InputError past max_drawn_tokens
/// or when selected_head is not below h.
std::string render_attention_page(const AttentionHeads& heads, const PageText& text, std::size_t selected_head = 0);

/// One head's weights as an SVG heatmap with the tokens on both axes, the values in the cells
/// (when they fit) and a legend. InputError past max_drawn_tokens or when head is not below h.
std::string render_heatmap_svg(const AttentionHeads& heads, std::size_t head, const std::string& title);

}  // namespace attn::tutor
