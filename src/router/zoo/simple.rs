//! The simple load balancers: `least_loaded` (fewest requests in flight) and `p2c` (power
//! of two choices: two distinct replicas drawn from the router's seeded stream, the one
//! with fewer in flight wins). Neither has a source that states a tie rule; equals are
//! broken by the run's tie rule (seeded random among them by default, so that a tie does
//! not always favour the low indices; or the lower index).

use super::{in_flight, term, Fleet, Judged, Row};
use crate::rng::Rng;
use crate::router::Ties;

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
pub fn least_loaded(fleet: &Fleet, ties: &mut Ties) -> Judged {
    let rows = load_rows(fleet);
    Judged {
        chosen: ties.argmin(rows.iter().map(|r| r.cost)),
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

/// Power of two choices (a tie between the two goes by the tie rule).
pub fn p2c(fleet: &Fleet, rng: &mut Rng, ties: &mut Ties) -> Judged {
    let mut rows = load_rows(fleet);
    let (a, b) = two_distinct(rng, rows.len());
    for (r, row) in rows.iter_mut().enumerate() {
        row.excluded = r != a && r != b;
    }
    let (lo, hi) = (a.min(b), a.max(b));
    let chosen = match rows[hi].cost.total_cmp(&rows[lo].cost) {
        std::cmp::Ordering::Less => hi,
        std::cmp::Ordering::Greater => lo,
        std::cmp::Ordering::Equal => ties.among([lo, hi]).unwrap_or(lo),
    };
    Judged {
        chosen,
        rule: None,
        rows,
    }
}
