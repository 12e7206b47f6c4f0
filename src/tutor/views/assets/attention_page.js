(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('attention-data').textContent);
  var weights = data.weights, queries = data.queryTokens, keys = data.keyTokens;
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#e67300', '#17becf',
                 '#8c564b', '#e377c2', '#5f5f5f', '#9a9a00', '#393b79', '#637939'];
  var ramp = RAMP_STOPS;
  var rowHeight = 34, lineAreaWidth = 300, svgNS = 'http://www.w3.org/2000/svg';
  var state = { head: data.selectedHead, focus: null, pinned: false };
  // The page's words in the language attn ran in: templates whose {1}, {2} ... say() fills.
  var words = data.words;
  function say(template) {
    var values = arguments;
    return template.replace(/\{(\d)\}/g, function (all, n) { return String(values[Number(n)]); });
  }
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
      status.textContent = say(words.status, state.head);
    } else if (focus.side === 'query') {
      status.textContent = say(words.queryFocus, queries[focus.index]);
    } else {
      status.textContent = say(words.keyFocus, keys[focus.index]);
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
      caption.textContent = say(words.head, head);
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
          td.title = say(words.cell, head, q, queries[q], k, keys[k], String(w));
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
    button.textContent = say(words.head, head);
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
