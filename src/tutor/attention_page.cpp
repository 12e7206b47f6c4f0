#include "tutor/attention_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attn/error.hpp"
#include "tutor/heatmap.hpp"
#include "tutor/terminal.hpp"

namespace attn::tutor {

namespace {

// The page's style: large type and strong contrast, because it is shown on projectors.
const char* const page_style = R"page(
:root { --ink: #111; --muted: #3d3d3d; --head: #1f77b4; font-size: 20px; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1rem 2rem 3rem; max-width: 1500px; background: #fff; color: var(--ink);
       font-family: "DejaVu Sans", "Segoe UI", Arial, sans-serif; line-height: 1.35; }
h1 { font-size: 1.7rem; margin: .2rem 0 .5rem; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin: 1.4rem 0 .3rem; }
.notes { border-left: 6px solid #e0a000; background: #fff6dc; padding: .4rem .9rem; margin: .4rem 0 1rem; }
.notes p { margin: .25rem 0; }
.help { color: var(--muted); font-size: .85rem; margin: .2rem 0 .7rem; }
#head-buttons { display: flex; flex-wrap: wrap; gap: .4rem; margin: .4rem 0 .3rem; }
.head-button { font: inherit; font-size: .9rem; padding: .2rem .7rem; border: 3px solid var(--head); border-radius: .4rem;
               background: #fff; color: var(--ink); cursor: pointer; }
.head-button[aria-pressed="true"] { background: var(--head); color: #fff; font-weight: bold; }
#status { font-size: .9rem; color: var(--muted); min-height: 1.4em; margin: .2rem 0 .6rem; }
#head-view { display: flex; align-items: flex-start; }
.column { display: flex; flex-direction: column; }
.column-caption { font-size: .8rem; color: var(--muted); height: 1.6rem; padding: 0 .5rem; }
#query-column .column-caption { text-align: right; }
.token { height: 34px; display: flex; align-items: center; gap: .5rem; padding: 0 .5rem; font-size: 1.1rem;
         white-space: nowrap; cursor: pointer; border-radius: .3rem; }
#query-column .token { justify-content: flex-end; }
.token .text { max-width: 14em; overflow: hidden; text-overflow: ellipsis; }
.token.focused { background: #ffe08a; font-weight: bold; }
.token .weight { font-size: .8rem; color: #222; font-variant-numeric: tabular-nums; min-width: 3.4em; }
#query-column .token .weight { text-align: right; }
#lines { flex: none; margin-top: 1.6rem; }
#lines line.faded { display: none; }
#heatmaps { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure.heatmap { margin: 0; padding: .4rem .5rem; border: 3px solid transparent; border-radius: .5rem; cursor: pointer;
                 max-width: 100%; overflow-x: auto; }
figure.heatmap.selected { border-color: var(--head); }
figure.heatmap figcaption { font-weight: bold; color: var(--head); margin-bottom: .2rem; }
table { border-collapse: collapse; font-size: .7rem; }
th { font-weight: normal; color: #222; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
th.key { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; max-height: 7em; padding: .2rem 0; }
th.query { text-align: right; max-width: 8em; padding-right: .3rem; }
td.cell { min-width: 2.4rem; height: 2.1rem; text-align: center; font-variant-numeric: tabular-nums; border: 1px solid #fff; }
figure.compact td.cell { min-width: 9px; height: 9px; padding: 0; font-size: 0; border: 0; }
figure.compact th { font-size: .55rem; }
)page";

// The page's behaviour. It reads the JSON in #attention-data and builds everything with DOM
// calls: token text only ever goes through textContent and title, never through innerHTML.
const char* const page_script = R"page(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('attention-data').textContent);
  var weights = data.weights, queries = data.queryTokens, keys = data.keyTokens;
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#e67300', '#17becf',
                 '#8c564b', '#e377c2', '#5f5f5f', '#9a9a00', '#393b79', '#637939'];
  var ramp = [[0, [247, 251, 255]], [0.25, [198, 219, 239]], [0.5, [107, 174, 214]],
              [0.75, [33, 113, 181]], [1, [8, 48, 107]]];
  var rowHeight = 34, lineAreaWidth = 300, svgNS = 'http://www.w3.org/2000/svg';
  var state = { head: data.selectedHead, focus: null, pinned: false };
  var queryRows = [], keyRows = [], buttons = [], figures = [];

  function colourOf(head) { return palette[head % palette.length]; }
  function rampColour(w) {
    for (var i = 1; i < ramp.length; i++) {
      if (w <= ramp[i][0] || i === ramp.length - 1) {
        var a = ramp[i - 1], b = ramp[i], f = Math.min(1, Math.max(0, (w - a[0]) / (b[0] - a[0])));
        return 'rgb(' + [0, 1, 2].map(function (c) { return Math.round(a[1][c] + f * (b[1][c] - a[1][c])); }).join(',') + ')';
      }
    }
  }

  function makeToken(column, text, side, index) {
    var row = document.createElement('div');
    row.className = 'token';
    row.setAttribute('data-side', side);
    row.setAttribute('data-index', String(index));
    row.title = text;
    var label = document.createElement('span');
    label.className = 'text';
    label.textContent = text;
    var badge = document.createElement('span');
    badge.className = 'weight';
    if (side === 'query') { row.appendChild(badge); row.appendChild(label); } else { row.appendChild(label); row.appendChild(badge); }
    row.addEventListener('mouseenter', function () { if (!state.pinned) setFocus({ side: side, index: index }); });
    row.addEventListener('mouseleave', function () { if (!state.pinned) setFocus(null); });
    row.addEventListener('click', function () {
      var same = state.focus && state.focus.side === side && state.focus.index === index;
      state.pinned = !(state.pinned && same);
      setFocus(state.pinned ? { side: side, index: index } : null);
    });
    column.appendChild(row);
    return row;
  }

  function drawLines() {
    var svg = document.getElementById('lines'), matrix = weights[state.head];
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var pairs = [];
    for (var q = 0; q < queries.length; q++) for (var k = 0; k < keys.length; k++) pairs.push([q, k]);
    // The strongest lines last, so that they are drawn on top.
    pairs.sort(function (a, b) { return matrix[a[0]][a[1]] - matrix[b[0]][b[1]]; });
    var fragment = document.createDocumentFragment();
    pairs.forEach(function (pair) {
      var line = document.createElementNS(svgNS, 'line');
      line.setAttribute('class', 'attention-line');
      line.setAttribute('x1', '2');
      line.setAttribute('y1', String((pair[0] + 0.5) * rowHeight));
      line.setAttribute('x2', String(lineAreaWidth - 2));
      line.setAttribute('y2', String((pair[1] + 0.5) * rowHeight));
      line.setAttribute('stroke', colourOf(state.head));
      // Weight in both opacity and width, so that strong lines carry across a projected room.
      line.setAttribute('stroke-width', String(2 + 5 * matrix[pair[0]][pair[1]]));
      line.setAttribute('stroke-linecap', 'round');
      line.setAttribute('stroke-opacity', String(matrix[pair[0]][pair[1]]));
      line.setAttribute('data-query', String(pair[0]));
      line.setAttribute('data-key', String(pair[1]));
      line.setAttribute('data-weight', String(matrix[pair[0]][pair[1]]));
      fragment.appendChild(line);
    });
    svg.appendChild(fragment);
  }

  function setFocus(focus) {
    state.focus = focus;
    var matrix = weights[state.head];
    var lines = document.querySelectorAll('#lines line');
    for (var i = 0; i < lines.length; i++) {
      var q = Number(lines[i].getAttribute('data-query')), k = Number(lines[i].getAttribute('data-key'));
      var mine = !focus || (focus.side === 'query' ? q === focus.index : k === focus.index);
      lines[i].classList.toggle('faded', !mine);
    }
    queryRows.forEach(function (row, q) {
      row.classList.toggle('focused', !!focus && focus.side === 'query' && focus.index === q);
      row.querySelector('.weight').textContent = focus && focus.side === 'key' ? matrix[q][focus.index].toFixed(4) : '';
    });
    keyRows.forEach(function (row, k) {
      row.classList.toggle('focused', !!focus && focus.side === 'key' && focus.index === k);
      row.querySelector('.weight').textContent = focus && focus.side === 'query' ? matrix[focus.index][k].toFixed(4) : '';
    });
    var status = document.getElementById('status');
    if (!focus) {
      status.textContent = 'head ' + state.head + ' of ' + weights.length + ' \u00b7 ' + queries.length + ' queries \u00d7 ' +
                           keys.length + ' keys \u00b7 hover over a token (click to keep it)';
    } else if (focus.side === 'query') {
      status.textContent = 'query \u201c' + queries[focus.index] + '\u201d: its weights over the keys (they sum to 1)';
    } else {
      status.textContent = 'key \u201c' + keys[focus.index] + '\u201d: the weight each query gives it';
    }
  }

  function selectHead(head) {
    state.head = head;
    document.documentElement.style.setProperty('--head', colourOf(head));
    buttons.forEach(function (button, h) { button.setAttribute('aria-pressed', h === head ? 'true' : 'false'); });
    figures.forEach(function (figure, h) { figure.classList.toggle('selected', h === head); });
    drawLines();
    setFocus(state.focus);
  }

  function buildHeatmaps() {
    var box = document.getElementById('heatmaps');
    var compact = Math.max(queries.length, keys.length) > 16;
    weights.forEach(function (matrix, head) {
      var figure = document.createElement('figure');
      figure.className = 'heatmap' + (compact ? ' compact' : '');
      figure.style.setProperty('--head', colourOf(head));
      figure.setAttribute('data-head', String(head));
      var caption = document.createElement('figcaption');
      caption.textContent = 'head ' + head;
      figure.appendChild(caption);
      var table = document.createElement('table'), header = document.createElement('tr');
      header.appendChild(document.createElement('th'));
      keys.forEach(function (key) {
        var th = document.createElement('th');
        th.className = 'key';
        th.textContent = key;
        th.title = key;
        header.appendChild(th);
      });
      table.appendChild(header);
      matrix.forEach(function (row, q) {
        var tr = document.createElement('tr'), th = document.createElement('th');
        th.className = 'query';
        th.textContent = queries[q];
        th.title = queries[q];
        tr.appendChild(th);
        row.forEach(function (w, k) {
          var td = document.createElement('td');
          td.className = 'cell';
          td.style.background = rampColour(w);
          td.style.color = w > 0.45 ? '#fff' : '#111';
          td.textContent = compact ? '' : w.toFixed(2);
          td.title = 'head ' + head + ' \u00b7 query ' + q + ' \u201c' + queries[q] + '\u201d \u2192 key ' + k +
                     ' \u201c' + keys[k] + '\u201d: ' + String(w);
          tr.appendChild(td);
        });
        table.appendChild(tr);
      });
      figure.appendChild(table);
      figure.addEventListener('click', function () { selectHead(head); });
      box.appendChild(figure);
      figures.push(figure);
    });
  }

  var buttonBox = document.getElementById('head-buttons');
  weights.forEach(function (matrix, head) {
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'head-button';
    button.style.setProperty('--head', colourOf(head));
    button.setAttribute('data-head', String(head));
    button.textContent = 'head ' + head;
    button.addEventListener('click', function () { selectHead(head); });
    buttonBox.appendChild(button);
    buttons.push(button);
  });
  var queryColumn = document.getElementById('query-column'), keyColumn = document.getElementById('key-column');
  queries.forEach(function (text, q) { queryRows.push(makeToken(queryColumn, text, 'query', q)); });
  keys.forEach(function (text, k) { keyRows.push(makeToken(keyColumn, text, 'key', k)); });
  var svg = document.getElementById('lines');
  svg.setAttribute('width', String(lineAreaWidth));
  svg.setAttribute('height', String(Math.max(queries.length, keys.length) * rowHeight));
  buildHeatmaps();
  document.addEventListener('keydown', function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'ArrowRight') selectHead((state.head + 1) % weights.length);
    if (event.key === 'ArrowLeft') selectHead((state.head + weights.length - 1) % weights.length);
  });
  selectHead(state.head);
  document.body.setAttribute('data-ready', 'true');
})();
)page";

// Light blue to dark blue (ColorBrewer's "Blues"), the ramp the page's script uses too.
struct RampStop {
    double at;
    int red, green, blue;
};
const RampStop ramp_stops[] = {{0.0, 247, 251, 255}, {0.25, 198, 219, 239}, {0.5, 107, 174, 214},
                               {0.75, 33, 113, 181}, {1.0, 8, 48, 107}};

std::string ramp_colour(double weight) {
    weight = std::clamp(weight, 0.0, 1.0);
    std::size_t upper = 1;
    while (upper + 1 < std::size(ramp_stops) && weight > ramp_stops[upper].at) ++upper;
    const RampStop& a = ramp_stops[upper - 1];
    const RampStop& b = ramp_stops[upper];
    const double f = (weight - a.at) / (b.at - a.at);
    auto mix = [f](int from, int to) { return static_cast<int>(std::lround(from + f * (to - from))); };
    char text[24];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", mix(a.red, b.red), mix(a.green, b.green), mix(a.blue, b.blue));
    return text;
}

std::string fixed(double value, int decimals) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string significant(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.7g", value);
    return text;
}

void check_drawable(const AttentionHeads& heads, std::size_t head, const char* head_option_hint) {
    const std::size_t h = heads.weights.shape(0), T = heads.weights.shape(1), S = heads.weights.shape(2);
    if (T > max_drawn_tokens || S > max_drawn_tokens) {
        throw InputError("there are " + std::to_string(T) + " queries and " + std::to_string(S) +
                         " keys; a picture of attention stays readable up to " + std::to_string(max_drawn_tokens) +
                         " of each: draw a slice, e.g. weights[:, :, :" + std::to_string(max_drawn_tokens) +
                         ", :" + std::to_string(max_drawn_tokens) + "] saved with numpy.save");
    }
    if (heads.query_tokens.size() != T || heads.key_tokens.size() != S) {
        throw InputError("the tokens do not fit the weights: " + std::to_string(heads.query_tokens.size()) +
                         " query tokens and " + std::to_string(heads.key_tokens.size()) + " key tokens for T = " +
                         std::to_string(T) + " and S = " + std::to_string(S));
    }
    if (head >= h) {
        throw InputError(std::string("there is no head ") + std::to_string(head) + head_option_hint + ": the weights have " +
                         std::to_string(h) + (h == 1 ? " head (0)" : " heads (0 to " + std::to_string(h - 1) + ")"));
    }
}

// Columns of a title before it is shortened with "…".
constexpr std::size_t longest_title = 90;

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
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // Nothing may be fetched: the page works offline because it never asks for anything.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">\n"
        "<title>Attention: " + html_escape(heading) + "</title>\n<style>" + page_style + "</style>\n</head>\n<body>\n"
        "<h1>" + html_escape(heading) + "</h1>\n";
    if (!text.notes.empty()) {
        html += "<div class=\"notes\">\n";
        for (const auto& note : text.notes) html += "<p>" + html_escape(note) + "</p>\n";
        html += "</div>\n";
    }
    html +=
        "<noscript><p><strong>This page draws its pictures with JavaScript: allow scripts for this file.</strong></p></noscript>\n"
        "<h2>Head view</h2>\n"
        "<p class=\"help\">Each line joins a query (left) to a key (right); the darker the line, the larger the weight. "
        "Hover over a token to see only its lines and their weights; choose a head with the buttons or the \u2190 \u2192 keys.</p>\n"
        "<div id=\"head-buttons\" role=\"group\" aria-label=\"heads\"></div>\n"
        "<p id=\"status\"></p>\n"
        "<div id=\"head-view\">\n"
        "<div class=\"column\" id=\"query-column\"><div class=\"column-caption\">queries</div></div>\n"
        "<svg id=\"lines\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"attention lines\"></svg>\n"
        "<div class=\"column\" id=\"key-column\"><div class=\"column-caption\">keys</div></div>\n"
        "</div>\n"
        "<h2>The weights of every head</h2>\n"
        "<p class=\"help\">Rows are queries, columns are keys; each row sums to 1. Hover over a cell for its exact weight; "
        "click a grid to show that head above.</p>\n"
        "<div id=\"heatmaps\"></div>\n"
        "<script id=\"attention-data\" type=\"application/json\">{\"selectedHead\":" + std::to_string(selected_head) +
        ",\n\"queryTokens\":" + json_list(heads.query_tokens) + ",\n\"keyTokens\":" + json_list(heads.key_tokens) +
        ",\n\"weights\":" + weights_json(heads.weights) + "}</script>\n"
        "<script>" + page_script + "</script>\n</body>\n</html>\n";
    return html;
}

std::string render_heatmap_svg(const AttentionHeads& heads, std::size_t head, const std::string& title) {
    check_drawable(heads, head, "");
    const std::string heading = shorten_label(title, longest_title);
    const std::size_t T = heads.weights.shape(1), S = heads.weights.shape(2);
    const std::size_t larger = std::max(T, S);
    const double cell = larger <= 12 ? 56 : larger <= 24 ? 36 : larger <= 64 ? 16 : 9;
    const bool values_fit = cell >= 36;
    // Labels as large as the rows allow; small cells stand their key labels upright so they do not overlap.
    const double font = std::clamp(cell * 0.7, 7.0, 18.0), char_width = 0.62 * font, margin = 24;
    const bool upright = cell < 36;
    constexpr std::size_t longest_label = 18;  // columns; longer tokens end in …

    std::vector<std::string> rows, columns;
    std::size_t row_chars = 1, column_chars = 1;
    for (const auto& token : heads.query_tokens) {
        rows.push_back(shorten_label(token, longest_label));
        row_chars = std::max(row_chars, visible_width(rows.back()));
    }
    for (const auto& token : heads.key_tokens) {
        columns.push_back(shorten_label(token, longest_label));
        column_chars = std::max(column_chars, visible_width(columns.back()));
    }
    // Key labels run up and to the right at 45° (upright when cells are small): they need height
    // above the grid and, slanted, room beyond it.
    const double label_length = char_width * static_cast<double>(column_chars);
    const double diagonal = upright ? 0.0 : 0.7071 * label_length;
    const double left = margin + char_width * static_cast<double>(row_chars) + 10;
    const double top = margin + 64 + (upright ? label_length : diagonal) + 10;
    const double grid_width = cell * static_cast<double>(S), grid_height = cell * static_cast<double>(T);
    const double title_width = 2 * margin + 0.65 * 22 * static_cast<double>(visible_width(heading));
    const double width = std::max({left + grid_width + diagonal + margin, title_width, 420.0});
    const double height = top + grid_height + 80;

    auto number = [](double value) { return fixed(value, 1); };
    std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" +
                      number(height) + "\" viewBox=\"0 0 " + number(width) + " " + number(height) +
                      "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n"
                      "<title>" + html_escape(title) + " \u00b7 head " + std::to_string(head) + "</title>\n"
                      "<defs><linearGradient id=\"ramp\">";
    for (const auto& stop : ramp_stops) {
        svg += "<stop offset=\"" + fixed(stop.at, 2) + "\" stop-color=\"" + ramp_colour(stop.at) + "\"/>";
    }
    svg += "</linearGradient></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    svg += "<text x=\"" + number(margin) + "\" y=\"" + number(margin + 18) + "\" font-size=\"22\" font-weight=\"bold\" fill=\"#111\">" +
           html_escape(heading) + "</text>\n";
    svg += "<text x=\"" + number(margin) + "\" y=\"" + number(margin + 46) + "\" font-size=\"15\" fill=\"#3d3d3d\">head " +
           std::to_string(head) + " of " + std::to_string(heads.weights.shape(0)) +
           " \u00b7 rows: queries \u00b7 columns: keys \u00b7 each row sums to 1</text>\n";
    for (std::size_t s = 0; s < S; ++s) {
        const double x = left + cell * (static_cast<double>(s) + 0.5) + (upright ? font * 0.35 : 0.0), y = top - 8;
        svg += "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" font-size=\"" + number(font) +
               "\" fill=\"#111\" transform=\"rotate(" + (upright ? "-90 " : "-45 ") + number(x) + " " + number(y) + ")\">" + html_escape(columns[s]) +
               "</text>\n";
    }
    for (std::size_t t = 0; t < T; ++t) {
        const double y = top + cell * (static_cast<double>(t) + 0.5);
        svg += "<text x=\"" + number(left - 10) + "\" y=\"" + number(y) + "\" dy=\"0.35em\" font-size=\"" + number(font) +
               "\" text-anchor=\"end\" fill=\"#111\">" + html_escape(rows[t]) + "</text>\n";
    }
    for (std::size_t t = 0; t < T; ++t) {
        for (std::size_t s = 0; s < S; ++s) {
            const double w = heads.weights(head, t, s);
            const double x = left + cell * static_cast<double>(s), y = top + cell * static_cast<double>(t);
            svg += "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(cell) + "\" height=\"" +
                   number(cell) + "\" fill=\"" + ramp_colour(w) + "\" stroke=\"#ffffff\"><title>" +
                   html_escape(heads.query_tokens[t]) + " \u2192 " + html_escape(heads.key_tokens[s]) + ": " + significant(w) +
                   "</title></rect>\n";
            if (values_fit) {
                svg += "<text x=\"" + number(x + cell / 2) + "\" y=\"" + number(y + cell / 2) +
                       "\" dy=\"0.35em\" text-anchor=\"middle\" font-size=\"" + number(cell >= 56 ? 16 : 12) + "\" fill=\"" +
                       (w > 0.45 ? "#ffffff" : "#111111") + "\">" + fixed(w, 2) + "</text>\n";
            }
        }
    }
    const double legend_y = top + grid_height + 30;
    svg += "<rect x=\"" + number(left) + "\" y=\"" + number(legend_y) + "\" width=\"200\" height=\"14\" fill=\"url(#ramp)\" "
           "stroke=\"#999999\"/>\n";
    svg += "<text x=\"" + number(left) + "\" y=\"" + number(legend_y + 34) + "\" font-size=\"14\" fill=\"#111\">0</text>\n";
    svg += "<text x=\"" + number(left + 200) + "\" y=\"" + number(legend_y + 34) +
           "\" font-size=\"14\" text-anchor=\"end\" fill=\"#111\">1</text>\n";
    svg += "<text x=\"" + number(left + 100) + "\" y=\"" + number(legend_y + 34) +
           "\" font-size=\"14\" text-anchor=\"middle\" fill=\"#3d3d3d\">weight</text>\n</svg>\n";
    return svg;
}

}  // namespace attn::tutor
