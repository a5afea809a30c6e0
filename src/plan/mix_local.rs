//! The mix search's local moves, which reach mixes of three or more presets: from the
//! cheapest answer so far, every move "one replica of X fewer and one of Y more" and "one
//! of X fewer" that lowers the price (or keeps it and lowers the replicas) and lands on a
//! mix of three or more presets is evaluated; the cheapest that meets becomes the answer,
//! until none does. Mixes of at most two presets are left to the pair walks, whose
//! staircases hold the cheapest of each pair under the monotone assumption.

use super::mix_fleet::{cheaper, mix_price};
use super::mix_walk::Walk;

/// The moves from `c` worth evaluating: lower price, or equal price and fewer replicas,
/// at least one replica, and three or more presets with replicas.
fn moves(walk: &Walk, c: &[u32]) -> Vec<Vec<u32>> {
    let n = c.len();
    let price = |x: &[u32]| mix_price(walk.presets, x).1;
    let total = |x: &[u32]| x.iter().sum::<u32>();
    let mut out = Vec::new();
    for x in (0..n).filter(|&x| c[x] > 0) {
        let mut fewer = c.to_vec();
        fewer[x] -= 1;
        for y in (0..n).filter(|&y| y != x) {
            let mut swap = fewer.clone();
            swap[y] += 1;
            out.push(swap);
        }
        out.push(fewer);
    }
    out.retain(|m| {
        let lower = price(m) < price(c) || (price(m) == price(c) && total(m) < total(c));
        let presets = m.iter().filter(|&&k| k > 0).count();
        lower && total(m) >= 1 && presets >= 3
    });
    out
}

/// From `start` (a mix that meets), the local moves taken, in order; the last is the
/// answer (none taken: `start` stays the answer).
pub(super) fn local_search(walk: &mut Walk, start: &[u32]) -> Result<Vec<Vec<u32>>, String> {
    let mut path = Vec::new();
    let mut at = start.to_vec();
    loop {
        let mut best: Option<Vec<u32>> = None;
        for m in moves(walk, &at) {
            if walk.meets(&m)? && best.as_ref().is_none_or(|b| cheaper(walk.presets, &m, b)) {
                best = Some(m);
            }
        }
        let Some(next) = best else {
            return Ok(path);
        };
        path.push(next.clone());
        at = next;
    }
}
