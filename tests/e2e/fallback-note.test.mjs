// tests/e2e/fallback-note.test.mjs: url-state.js's fallbackNote, in Node (no browser): a link value the
// page drops names what the page runs with instead in the control's own words, so an unset minimum
// replica count reads "1" (its default), not "unbounded", and an unset cache still reads "unbounded".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fallbackNote } from '../../www/js/url-state.js';

const minInstances = { name: 'min_instances', label: 'Fewest replicas', kind: 'optional_int' };
const kvBlocks = { name: 'kv_blocks', label: 'Cache per replica', kind: 'optional_int' };
const defaults = { min_instances: null, kv_blocks: null, instances: 4 };

test('an unset setting in a fallback note reads as its control does: no minimum replica count is 1', () => {
  assert.equal(
    fallbackNote(minInstances, 'was not valid: got 0', null, defaults),
    "The link's value for Fewest replicas (min_instances) was not valid: got 0. Using the default, 1.",
  );
  assert.equal(
    fallbackNote(kvBlocks, 'was not valid: got -3', null, defaults),
    "The link's value for Cache per replica (kv_blocks) was not valid: got -3. Using the default, unbounded.",
  );
});

test('a set value in a fallback note is written as the link writes it, named as the default only when it is', () => {
  const instances = { name: 'instances', label: 'Replicas', kind: 'int' };
  assert.equal(fallbackNote(instances, 'was not valid: got -5', 4, defaults),
    "The link's value for Replicas (instances) was not valid: got -5. Using the default, 4.");
  assert.equal(fallbackNote(instances, 'was rejected by the simulator: too many', 8, defaults),
    "The link's value for Replicas (instances) was rejected by the simulator: too many. Using 8 instead.");
});
