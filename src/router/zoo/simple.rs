//! The simple load balancers: `least_loaded` (fewest requests in flight, the lower index
//! on ties) and `p2c` (power of two choices: two distinct replicas drawn from the router's
//! seeded stream, the one with fewer in flight wins, the lower index on ties).

use super::{argmin, in_flight, term, Fleet, Judged, Row};
use crate::rng::Rng;

fn load_rows(fleet: &Fleet) -> Vec<Row> {
    fleet
        .views
        .iter()
        .map(|v| Row {
            cost: in_flight(v) as f64,
            terms: vec![term("in_flight", in_flight(v) as f64)],
            ..Row::default()
        })
        .collect()
}

/// The replica with the fewest requests in flight.
pub fn least_loaded(fleet: &Fleet) -> Judged {
    let rows = load_rows(fleet);
    Judged {
        chosen: argmin(rows.iter().map(|r| r.cost)),
        rule: None,
        rows,
    }
}

/// Two distinct replicas drawn uniformly (one draw below n, one below n - 1 shifted past
/// the first), the one with fewer in flight wins; one replica needs no draw.
pub fn two_distinct(rng: &mut Rng, n: usize) -> (usize, usize) {
    if n < 2 {
        return (0, 0);
    }
    let a = rng.below(n as u64) as usize;
    let mut b = rng.below(n as u64 - 1) as usize;
    if b >= a {
        b += 1;
    }
    (a, b)
}

/// Power of two choices.
pub fn p2c(fleet: &Fleet, rng: &mut Rng) -> Judged {
    let mut rows = load_rows(fleet);
    let (a, b) = two_distinct(rng, rows.len());
    for (r, row) in rows.iter_mut().enumerate() {
        row.excluded = r != a && r != b;
    }
    let (lo, hi) = (a.min(b), a.max(b));
    let chosen = if rows[hi].cost < rows[lo].cost {
        hi
    } else {
        lo
    };
    Judged {
        chosen,
        rule: None,
        rows,
    }
}
