// The page of `attn view` as a student sees it, in headless Chromium (run by view_test.sh).
//
// Why: the head view is JavaScript drawing SVG, so only a browser can say that it works. This
// checks, offline and with every request other than the file itself refused:
//   - the page draws one line per (query, key) pair of the selected head, each as opaque as its weight;
//   - choosing another head (button or arrow key) draws that head's lines instead;
//   - hovering over a token keeps only its lines and shows its weights;
//   - there is a heatmap per head whose cells give the exact weight on hover;
//   - tokens such as </script> or " stay text (a page of hostile tokens, through --weights --tokens);
//   - the console shows no error, and nothing is fetched.
// It saves screenshots of the page and of the SVG heatmap in --out.
//
//   node view_test.mjs --attn build/attn --chromium /usr/bin/chromium --out build/browser
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const options = { attn: 'build/attn', chromium: '/usr/bin/chromium', out: 'build/browser' };
for (let i = 2; i + 1 < process.argv.length; i += 2) options[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const out = path.resolve(options.out);
fs.mkdirSync(out, { recursive: true });

let checks = 0;
const failures = [];
function check(condition, what) {
  checks += 1;
  if (!condition) failures.push(what);
}

function attn(...args) {
  return execFileSync(path.resolve(options.attn), args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

// A float32 .npy file, as numpy.save writes it.
function writeNpy(file, shape, values) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), Buffer.from(new Float32Array(values).buffer)]));
}

// --- The pages ---------------------------------------------------------------------------------
const sentence = 'El perro va caminando sobre el pasto';
const sentencePage = path.join(out, 'sentence.html');
const sentenceSvg = path.join(out, 'sentence.svg');
attn('view', '--sentence', sentence, '--heads', '8', '--d-model', '64', '--seed', '1', '--html', sentencePage, '--svg', sentenceSvg);

const hostileTokens = ['</script><script>window.injected = true</script>', '"', '<img src=x onerror="window.injected=true">', '&amp; \u2028'];
const hostileWeights = path.join(out, 'hostile.npy');
const hostileTokensFile = path.join(out, 'hostile-tokens.txt');
const hostilePage = path.join(out, 'hostile.html');
// Two heads of 4 x 4: head 0 looks at the next token, head 1 spreads evenly.
const next = [0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0];
writeNpy(hostileWeights, [1, 2, 4, 4], [...next, ...new Array(16).fill(0.25)]);
fs.writeFileSync(hostileTokensFile, hostileTokens.join('\n') + '\n');
attn('view', '--weights', hostileWeights, '--tokens', hostileTokensFile, '--html', hostilePage);

// --- The browser -------------------------------------------------------------------------------
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: options.chromium,
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync'],
});
const fetched = [];
await context.route('**/*', (route) => {
  const url = route.request().url();
  if (url.startsWith('file:')) return route.continue();
  fetched.push(url);
  return route.abort();
});

async function open(file) {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 5000 });
  return { page, errors };
}

// Every drawn line: its pair, its weight and how it is drawn.
function drawnLines(page) {
  return page.$$eval('#lines line', (lines) => lines.map((line) => ({
    query: Number(line.getAttribute('data-query')),
    key: Number(line.getAttribute('data-key')),
    opacity: Number(line.getAttribute('stroke-opacity')),
    colour: line.getAttribute('stroke'),
    hidden: getComputedStyle(line).display === 'none',
  })));
}

function sameAsHead(lines, matrix) {
  const pairs = new Set(lines.map((line) => `${line.query},${line.key}`));
  return pairs.size === lines.length &&
         lines.every((line) => Math.abs(line.opacity - matrix[line.query][line.key]) < 1e-6);
}

try {
  const started = Date.now();
  {
    const { page, errors } = await open(sentencePage);
    const data = await page.$eval('#attention-data', (element) => JSON.parse(element.textContent));
    const T = data.queryTokens.length, S = data.keyTokens.length;
    check(T === 7 && S === 7 && data.weights.length === 8, `the sentence page holds 8 heads of 7 x 7 (got ${data.weights.length} of ${T} x ${S})`);
    check(JSON.stringify(data.queryTokens) === JSON.stringify(sentence.split(' ')), 'the tokens are the sentence\'s words');

    const head0 = await drawnLines(page);
    check(head0.length === T * S, `head 0: one line per (query, key) pair: ${head0.length} lines for ${T * S} pairs`);
    check(sameAsHead(head0, data.weights[0]), 'head 0: each line is as opaque as its weight');
    check(await page.getAttribute('.head-button[data-head="0"]', 'aria-pressed') === 'true', 'head 0 is selected first');
    await page.screenshot({ path: path.join(out, 'view.png'), fullPage: true });

    await page.click('.head-button[data-head="3"]');
    const head3 = await drawnLines(page);
    check(head3.length === T * S, `head 3: one line per pair: ${head3.length} lines`);
    check(sameAsHead(head3, data.weights[3]), 'head 3: the lines follow head 3\'s weights');
    check(head3[0].colour !== head0[0].colour, 'head 3 draws in its own colour');
    check(!sameAsHead(head3, data.weights[0]), 'switching heads changes the lines');
    check(await page.getAttribute('figure.heatmap.selected', 'data-head') === '3', 'head 3\'s heatmap is marked');

    await page.keyboard.press('ArrowRight');
    check(sameAsHead(await drawnLines(page), data.weights[4]), 'the right arrow key selects the next head');

    // Hovering over "caminando" (query 3) keeps its 7 lines and writes its weights by the keys.
    await page.hover('#query-column .token[data-index="3"]');
    const focused = (await drawnLines(page)).filter((line) => !line.hidden);
    check(focused.length === S && focused.every((line) => line.query === 3), `hover: only query 3's ${S} lines stay (got ${focused.length})`);
    const shown = await page.$$eval('#key-column .token .weight', (badges) => badges.map((badge) => Number(badge.textContent)));
    const sum = shown.reduce((a, b) => a + b, 0);
    check(shown.length === S && Math.abs(sum - 1) < 0.002, `hover: the keys show query 3's weights, summing to 1 (got ${sum})`);
    check(Math.abs(shown[0] - data.weights[4][3][0]) < 5e-5, 'hover: the weights shown are the selected head\'s');
    await page.screenshot({ path: path.join(out, 'view-hover.png') });
    await page.mouse.move(5, 5);
    check((await drawnLines(page)).every((line) => !line.hidden), 'leaving the token shows every line again');

    const cells = await page.$$eval('figure.heatmap', (figures) => figures.map((figure) => figure.querySelectorAll('td.cell').length));
    check(cells.length === 8 && cells.every((count) => count === T * S), `a heatmap of ${T * S} cells per head (got ${cells})`);
    const title = await page.getAttribute('figure.heatmap[data-head="2"] tr:nth-child(2) td.cell:nth-of-type(2)', 'title');
    check(title !== null && title.endsWith(': ' + String(data.weights[2][0][1])), `a cell's title gives its exact weight (got ${title})`);
    await page.click('figure.heatmap[data-head="6"]');
    check(sameAsHead(await drawnLines(page), data.weights[6]), 'clicking a heatmap selects its head');
    check(errors.length === 0, `the sentence page logs no error: ${errors.join(' | ')}`);
    await page.close();
  }
  {
    const { page, errors } = await open(hostilePage);
    const texts = await page.$$eval('#query-column .token .text', (spans) => spans.map((span) => span.textContent));
    check(JSON.stringify(texts) === JSON.stringify(hostileTokens), `hostile tokens stay text: ${JSON.stringify(texts)}`);
    check(await page.evaluate(() => window.injected === undefined), 'no token ran as script');
    check(await page.$$eval('img', (images) => images.length) === 0, 'no token became an element');
    const lines = await drawnLines(page);
    check(lines.length === 16 && sameAsHead(lines, [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]]),
          'the weights file page draws head 0\'s 16 lines');
    check(errors.length === 0, `the hostile page logs no error: ${errors.join(' | ')}`);
    await page.close();
  }
  {
    const page = await context.newPage();
    await page.goto(pathToFileURL(sentenceSvg).href);
    check(await page.$$eval('rect', (rects) => rects.length) === 49 + 2, 'the SVG heatmap has 49 cells');
    await page.screenshot({ path: path.join(out, 'heatmap-svg.png') });
    await page.close();
  }
  check(fetched.length === 0, `nothing was fetched from the network: ${fetched.join(', ')}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (failures.length) {
    console.error(`browser test: FAILED ${failures.length} of ${checks} checks:\n  - ${failures.join('\n  - ')}`);
    process.exitCode = 1;
  } else {
    console.log(`browser test: passed ${checks} checks in ${seconds} s; screenshots in ${out}`);
  }
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
