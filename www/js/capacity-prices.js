// www/js/capacity-prices.js: the "compare GPUs" mode's presets and their prices. One checkbox per
// preset (with hardware) of the engine's model, each with its own price of a GPU-hour, filled with
// the preset's list price (the simulator's, which `kvfleet plan --plan-mix A,B` uses for a preset
// given without `=USD`). The choice is carried in the link as `plan_mix=`, written as the CLI's
// `--plan-mix` value: the checked presets, each with `=USD` when its price is not the list price
// (`plan_mix=llama3-8b-h100=2.5,llama3-8b-mi300x`). In this mode the single price field (for the
// "fewest replicas" plan) is hidden.

/** Highest price of one GPU-hour, US dollars (the simulator's MAX_GPU_HOUR_USD). */
export const MAX_GPU_HOUR_USD = 10000;

/** "llama3-8b" of "llama3-8b-h100": a mix is of one model. */
export function modelOf(name) {
  return String(name).split('-').slice(0, 2).join('-');
}

/** "h100" of "llama3-8b-h100": the preset's GPU, its name without the model. */
export function gpuOf(name) {
  return String(name).split('-').slice(2).join('-') || String(name);
}

/** A preset's list price of a GPU-hour (the simulator's, from the presets' list). */
function listUsd(presets, name) {
  return presets.find((p) => p.name === name)?.hardware?.gpu_hour_usd ?? null;
}

/** A price as an input shows it: "3.49", "2.5". */
const shown = (usd) => String(Number(usd.toFixed(4)));

/** One preset's checkbox and its price input, each in a label of its own (the price's names the preset for a screen reader). */
function presetRow(name, usd) {
  const row = document.createElement('span');
  row.className = 'cap-field cap-mix-box';
  const label = document.createElement('label');
  const box = document.createElement('input');
  Object.assign(box, { type: 'checkbox', value: name, checked: true });
  box.dataset.testid = 'cap-mix-preset';
  const price = document.createElement('input');
  Object.assign(price, { type: 'number', min: '0', step: 'any', inputMode: 'decimal', value: shown(usd), placeholder: shown(usd) });
  price.className = 'cap-mix-usd';
  price.dataset.testid = 'cap-mix-price';
  price.dataset.preset = name;
  price.dataset.list = String(usd);
  price.title = `${name}: dollars per GPU-hour (its list price: $${usd.toFixed(2)}; empty: the list price)`;
  const priced = document.createElement('label');
  const who = document.createElement('span');
  who.className = 'sr-only';
  who.textContent = `${name} at `;
  priced.append(who, '$', price);
  label.append(box, ` ${name}`);
  row.append(label, priced);
  return row;
}

/** One checkbox and price per preset (with hardware) of the engine's model, all checked at their list prices when the model changes; a kept model keeps its choice. */
export function fillMixPresets(els, presets, engine) {
  const hw = presets.filter((p) => p.hardware);
  const model = modelOf(hw.some((p) => p.name === engine) ? engine : hw[0]?.name ?? '');
  const names = hw.map((p) => p.name).filter((n) => modelOf(n) === model);
  const boxes = [...els.mixBoxes.querySelectorAll('input[type=checkbox]')];
  if (boxes.map((b) => b.value).join() === names.join()) return;
  els.mixBoxes.replaceChildren(...names.map((n) => presetRow(n, listUsd(hw, n))));
}

/** The checked presets with their prices ({preset, gpu_hour_usd}), in the model's order; throws a plain message naming a bad price. */
export function chosenPresets(els) {
  const out = [];
  for (const box of els.mixBoxes.querySelectorAll('input[type=checkbox]:checked')) {
    const input = box.closest('.cap-mix-box').querySelector('[data-testid=cap-mix-price]');
    const text = input.value.trim();
    const usd = text === '' ? Number(input.dataset.list) : Number(text);
    if (!Number.isFinite(usd) || usd < 0 || usd > MAX_GPU_HOUR_USD) {
      const err = new Error(`Price of ${box.value}: enter a number of dollars per GPU-hour from 0 to ${MAX_GPU_HOUR_USD}, or leave it empty for its list price ($${Number(input.dataset.list).toFixed(2)})`);
      err.input = input;
      throw err;
    }
    out.push({ preset: box.value, gpu_hour_usd: usd });
  }
  return out;
}

/** The link's `plan_mix` value for the mode on screen (null outside "compare GPUs"), as `--plan-mix` takes it. */
export function mixLink(els) {
  if (els.mode.value !== 'mix') return null;
  const parts = [];
  for (const box of els.mixBoxes.querySelectorAll('input[type=checkbox]:checked')) {
    const input = box.closest('.cap-mix-box').querySelector('[data-testid=cap-mix-price]');
    const text = input.value.trim();
    const usd = Number(text);
    parts.push(text === '' || !Number.isFinite(usd) || usd === Number(input.dataset.list) ? box.value : `${box.value}=${text}`);
  }
  return parts.join(',');
}

/**
 * Sets the mode, boxes and prices a link's `plan_mix` names (the presets of the engine's model
 * offered); returns a sentence for what it could not use, or '' when it used all of it.
 */
export function applyMixLink(els, text) {
  const offered = [...els.mixBoxes.querySelectorAll('input[type=checkbox]')];
  const names = offered.map((b) => b.value);
  const asked = new Map();
  const bad = [];
  for (const part of String(text).split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, usd] = part.split('=').map((s) => s.trim());
    const price = usd === undefined ? null : Number(usd);
    if (!names.includes(name) || (price !== null && !(usd !== '' && Number.isFinite(price) && price >= 0 && price <= MAX_GPU_HOUR_USD))) bad.push(part);
    else asked.set(name, usd ?? null);
  }
  if (asked.size) {
    for (const box of offered) {
      box.checked = asked.has(box.value);
      const input = box.closest('.cap-mix-box').querySelector('[data-testid=cap-mix-price]');
      if (asked.get(box.value) != null) input.value = asked.get(box.value);
    }
  }
  if (!bad.length) return '';
  return `The link's plan_mix has ${bad.map((b) => `“${b.slice(0, 40)}”`).join(', ')}, not used: it takes presets of the engine's model`
    + ` (${names.join(', ')}), each with an optional price from 0 to ${MAX_GPU_HOUR_USD} dollars per GPU-hour, as PRESET=USD.`;
}

/** Opens the mode and choice a link's `plan_mix` names (a part it cannot use is said in the form's error), and calls `onLink` when the mode, presets or prices change. */
export function wireMixLink(cap, link, onLink) {
  const { els } = cap;
  if (link) {
    els.mode.value = 'mix';
    cap.showMode();
    const note = applyMixLink(els, link);
    if (note) cap.showError(note);
  }
  for (const [el, ev] of [[els.mode, 'change'], [els.mixBoxes, 'input']]) el.addEventListener(ev, () => onLink?.());
}
