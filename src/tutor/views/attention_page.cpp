#include "tutor/views/attention_page.hpp"

#include <cstdio>
#include <stdexcept>

#include "attn/error.hpp"
#include "tutor/views/attention_picture.hpp"
#include "tutor/views/embedded_assets.hpp"
#include "tutor/views/heatmap.hpp"
#include "tutor/language.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

namespace {

// The page's style and behaviour are files (assets/attention_page.css and .js, embedded at build
// time: cmake/embed_assets.cmake). The script reads the JSON in #attention-data and builds
// everything with DOM calls: token text only ever goes through textContent and title, never
// through innerHTML. Its colour ramp is the one the SVG uses (attention_picture.hpp): the asset
// says RAMP_STOPS where the stops go.
const std::string& page_style() {
    static const std::string style(assets::attention_page_css, assets::attention_page_css_size);
    return style;
}

const std::string& page_script() {
    static const std::string script = [] {
        std::string text(assets::attention_page_js, assets::attention_page_js_size);
        const std::string placeholder = "RAMP_STOPS";
        const std::size_t at = text.find(placeholder);
        if (at == std::string::npos) throw std::logic_error("assets/attention_page.js has no RAMP_STOPS for the colour ramp");
        const std::size_t line_start = text.rfind('\n', at) + 1;  // npos + 1 == 0 on the first line
        text.replace(at, placeholder.size(), ramp_javascript(at - line_start));
        return text;
    }();
    return script;
}

}  // namespace

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        char escape[8];
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            std::snprintf(escape, sizeof escape, "\\u%04x", c);
            out += escape;
        } else if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
                   (static_cast<unsigned char>(text[i + 2]) == 0xA8 || static_cast<unsigned char>(text[i + 2]) == 0xA9)) {
            // U+2028 and U+2029 end a line in older JavaScript parsers.
            out += static_cast<unsigned char>(text[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
            i += 2;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::string weights_json(const Tensor3& weights) {
    std::string out = "[";
    for (std::size_t h = 0; h < weights.shape(0); ++h) {
        out += h ? ",\n[" : "\n[";
        for (std::size_t t = 0; t < weights.shape(1); ++t) {
            out += t ? ",[" : "[";
            for (std::size_t s = 0; s < weights.shape(2); ++s) out += (s ? "," : "") + significant(weights(h, t, s));
            out += "]";
        }
        out += "]";
    }
    return out + "]";
}

// The words the page's script writes, in the tutor's language: templates whose {1}, {2} … it fills
// (the head, a token …), with the page's fixed sizes already in place.
std::string page_words_json(const AttentionHeads& heads) {
    const std::size_t h = heads.weights.shape(0), T = heads.weights.shape(1), S = heads.weights.shape(2);
    const std::string sizes = trn("{1} query", "{1} queries", T, {std::to_string(T)}) + " \u00d7 " +
                              trn("{1} key", "{1} keys", S, {std::to_string(S)});
    return "{\"head\":" + json_string(tr("head {1}")) +
           ",\"status\":" + json_string(trf("head {1} of {2} \u00b7 {3} \u00b7 hover over a token (click to keep it)",
                                           {"{1}", std::to_string(h), sizes})) +
           ",\"queryFocus\":" + json_string(tr("query \u201c{1}\u201d: its weights over the keys (they sum to 1)")) +
           ",\"keyFocus\":" + json_string(tr("key \u201c{1}\u201d: the weight each query gives it")) +
           ",\"cell\":" + json_string(tr("head {1} \u00b7 query {2} \u201c{3}\u201d \u2192 key {4} \u201c{5}\u201d: {6}")) + "}";
}

std::string render_attention_page(const AttentionHeads& heads, const PageText& text, std::size_t selected_head) {
    check_drawable(heads, selected_head, " (--head)");
    // A long sentence would fill the first screen; its tokens are all in the head view anyway.
    const std::string heading = shorten_label(text.title, longest_title);
    auto json_list = [](const std::vector<std::string>& items) {
        std::string out = "[";
        for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + json_string(items[i]);
        return out + "]";
    };
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"" + current_language() + "\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // Nothing may be fetched: the page works offline because it never asks for anything.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">\n"
        "<title>" + html_escape(trf("Attention: {1}", {heading})) + "</title>\n<style>\n" + page_style() + "</style>\n</head>\n<body>\n"
        "<h1>" + html_escape(heading) + "</h1>\n";
    if (!text.notes.empty()) {
        html += "<div class=\"notes\">\n";
        for (const auto& note : text.notes) html += "<p>" + html_escape(note) + "</p>\n";
        html += "</div>\n";
    }
    html += "<noscript><p><strong>" + tr("This page draws its pictures with JavaScript: allow scripts for this file.") +
            "</strong></p></noscript>\n"
            "<h2>" + tr("Head view") + "</h2>\n"
            "<p class=\"help\">" +
            tr("Each line joins a query (left) to a key (right); the darker the line, the larger the weight. Hover over a token "
               "to see only its lines and their weights; choose a head with the buttons or the \u2190 \u2192 keys.") +
            "</p>\n"
            "<div id=\"head-buttons\" role=\"group\" aria-label=\"" + tr("heads") + "\"></div>\n"
            "<p id=\"status\"></p>\n"
            "<div id=\"head-view\">\n"
            "<div class=\"column\" id=\"query-column\"><div class=\"column-caption\">" + tr("queries") + "</div></div>\n"
            "<svg id=\"lines\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" + tr("attention lines") +
            "\"></svg>\n"
            "<div class=\"column\" id=\"key-column\"><div class=\"column-caption\">" + tr("keys") + "</div></div>\n"
            "</div>\n"
            "<h2>" + tr("The weights of every head") + "</h2>\n"
            "<p class=\"help\">" +
            tr("Rows are queries, columns are keys; each row sums to 1. Hover over a cell for its exact weight; click a grid "
               "to show that head above.") +
            "</p>\n"
            "<div id=\"heatmaps\"></div>\n"
            "<script id=\"attention-data\" type=\"application/json\">{\"selectedHead\":" + std::to_string(selected_head) +
            ",\n\"queryTokens\":" + json_list(heads.query_tokens) + ",\n\"keyTokens\":" + json_list(heads.key_tokens) +
            ",\n\"words\":" + page_words_json(heads) + ",\n\"weights\":" + weights_json(heads.weights) + "}</script>\n"
        "<script>\n" + page_script() + "</script>\n</body>\n</html>\n";
    return html;
}

}  // namespace attn::tutor
