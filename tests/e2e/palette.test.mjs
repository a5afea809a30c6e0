// tests/e2e/palette.test.mjs: the policy palette and styles of www/js/format.js (no browser). Every policy
// of POLICY_ORDER has a colour in both themes with at least 3:1 contrast against that theme's panel, the
// colours stay apart in normal vision, no two policies share a dash pattern or a marker (so lines stay
// apart where colours do not: eleven hues cannot all survive every colour-vision deficiency), and the
// closest pairs under simulated deuteranopia and protanopia are reported.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POLICY_ORDER, POLICY_LIGHT, POLICY_DARK, POLICY_STYLE } from '../../www/js/format.js';

const PANEL = { light: '#ffffff', dark: '#171b22' };   // --panel in www/css/style.css

const rgb = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16) / 255);
const lin = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const luminance = (h) => { const [r, g, b] = rgb(h).map(lin); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };

// Machado, Oliveira and Fernandes (2009), severity 1, on linear RGB.
const CVD = {
  deutan: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
  protan: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
};
function lab(h, kind) {
  let c = rgb(h).map(lin);
  if (kind) c = CVD[kind].map((row) => Math.min(1, Math.max(0, row[0] * c[0] + row[1] * c[1] + row[2] * c[2])));
  const [r, g, b] = c;
  const f = (t) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const X = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, Y = 0.2126 * r + 0.7152 * g + 0.0722 * b, Z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
}
const dE = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

function closest(palette, kind) {
  let best = [Infinity];
  for (let i = 0; i < POLICY_ORDER.length; i++) for (let j = i + 1; j < POLICY_ORDER.length; j++) {
    const [p, q] = [POLICY_ORDER[i], POLICY_ORDER[j]];
    const d = dE(lab(palette[p], kind), lab(palette[q], kind));
    if (d < best[0]) best = [d, p, q];
  }
  return best;
}

test('every policy has a colour in both themes, 3:1 against the panel, apart in normal vision', () => {
  assert.equal(POLICY_ORDER.length, 11);
  for (const [theme, palette] of [['light', POLICY_LIGHT], ['dark', POLICY_DARK]]) {
    assert.deepEqual(Object.keys(palette).sort(), [...POLICY_ORDER].sort(), `${theme}: one colour per policy`);
    assert.equal(new Set(Object.values(palette)).size, POLICY_ORDER.length, `${theme}: no colour twice`);
    for (const p of POLICY_ORDER) {
      const c = contrast(palette[p], PANEL[theme]);
      assert.ok(c >= 3, `${theme} ${p} ${palette[p]}: contrast ${c.toFixed(2)} against ${PANEL[theme]}`);
    }
    const [d, p, q] = closest(palette);
    assert.ok(d >= 20, `${theme}: ${p} and ${q} only ${d.toFixed(1)} apart (CIE76)`);
    for (const kind of Object.keys(CVD)) {
      const [dk, pk, qk] = closest(palette, kind);
      console.log(`${theme} ${kind}: closest ${pk}/${qk} ${dk.toFixed(1)} (told apart by dash and marker)`);
    }
  }
});

test('no two policies share a dash pattern or a marker', () => {
  assert.deepEqual(Object.keys(POLICY_STYLE).sort(), [...POLICY_ORDER].sort());
  const dashes = POLICY_ORDER.map((p) => JSON.stringify(POLICY_STYLE[p].dash));
  const markers = POLICY_ORDER.map((p) => { const s = POLICY_STYLE[p]; return `${s.point}/${s.rotation || 0}/${s.hollow ? 'hollow' : 'filled'}`; });
  assert.equal(new Set(dashes).size, POLICY_ORDER.length, `dashes: ${dashes}`);
  assert.equal(new Set(markers).size, POLICY_ORDER.length, `markers: ${markers}`);
});
