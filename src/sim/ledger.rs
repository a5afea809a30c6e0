//! The conservation law, kept as the run goes: every request that arrives ends exactly
//! once (completed, rejected or timed out). A run that ends with a request unaccounted
//! for names it and where it is stuck, instead of reporting fewer requests silently.

use serde::Serialize;

use super::Simulation;
use crate::engine::Stuck;

/// Which arrived requests have ended, one bit each (ids are arrival positions).
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    ended: Vec<u64>,
    count: u64,
    /// Requests reported ended a second time (a bug: the first few are kept).
    twice: Vec<u32>,
}

/// Requests a report lists by name when the law is broken; the counts are whole.
const LISTED: usize = 20;

impl Ledger {
    /// Marks request `id` ended.
    pub fn end(&mut self, id: u32) {
        let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
        if self.ended.len() <= word {
            self.ended.resize(word + 1, 0);
        }
        if self.ended[word] & bit != 0 {
            if self.twice.len() < LISTED {
                self.twice.push(id);
            }
            return;
        }
        self.ended[word] |= bit;
        self.count += 1;
    }

    /// Requests ended (each once).
    pub fn count(&self) -> u64 {
        self.count
    }
}

/// A request that arrived and never ended, and where the run left it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InFlight {
    /// Request id.
    pub id: u32,
    /// The replica holding it (for a transfer, its destination; at the router, the
    /// router's number).
    pub replica: u32,
    /// `waiting` (or `waiting on an idle replica`), `running`, `held for transfer`,
    /// `on the link` or `at the router` (queued for, or on, a router core).
    #[cfg_attr(
        target_arch = "wasm32",
        tsify(
            type = "\"waiting\" | \"waiting on an idle replica\" | \"running\" | \"held for transfer\" | \"on the link\" | \"at the router\""
        )
    )]
    #[cfg_attr(
        feature = "schema",
        schemars(
            with = "String",
            extend("enum" = ["waiting", "waiting on an idle replica", "running", "held for transfer", "on the link", "at the router"])
        )
    )]
    pub state: &'static str,
}

/// The broken law, for the report (`unended`): absent when every request ended exactly
/// once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Unended {
    /// Requests that arrived and never ended.
    pub count: u64,
    /// Requests reported ended twice (their ids; the first few).
    pub ended_twice: Vec<u32>,
    /// The first of the requests that never ended, with where each was left.
    pub in_flight: Vec<InFlight>,
}

impl Unended {
    /// One sentence naming what broke, for the report's warnings.
    pub fn sentence(&self) -> String {
        let mut s = String::new();
        if self.count > 0 {
            let listed: Vec<String> = self
                .in_flight
                .iter()
                .map(|x| format!("#{} {} (replica {})", x.id, x.state, x.replica))
                .collect();
            s += &format!(
                "{} request(s) arrived and never ended (simulator bug): {}",
                self.count,
                listed.join(", ")
            );
            let more = self.count.saturating_sub(self.in_flight.len() as u64);
            if more > 0 {
                s += &format!(" and {more} more");
            }
            s += ". ";
        }
        if !self.ended_twice.is_empty() {
            let ids: Vec<String> = self.ended_twice.iter().map(|i| format!("#{i}")).collect();
            s += &format!(
                "Request(s) {} ended twice (simulator bug). ",
                ids.join(", ")
            );
        }
        s.trim_end().to_string()
    }
}

impl Simulation<'_> {
    /// The requests the run did not end exactly once (call once the run is done).
    pub(crate) fn unended(&self) -> Option<Unended> {
        let count = self.arrived - self.ledger.count();
        if count == 0 && self.ledger.twice.is_empty() {
            return None;
        }
        let mut in_flight = Vec::new();
        for rep in &self.replicas {
            rep.stuck(|Stuck { id, state }| {
                in_flight.push(InFlight {
                    id,
                    replica: rep.index(),
                    state,
                })
            });
        }
        if let Some(d) = self.disagg.as_ref() {
            d.on_the_wire(|id, to| {
                in_flight.push(InFlight {
                    id,
                    replica: to,
                    state: "on the link",
                })
            });
        }
        if let Some(c) = self.router_cpu.as_ref() {
            c.held(|k, id| {
                in_flight.push(InFlight {
                    id,
                    replica: k,
                    state: "at the router",
                })
            });
        }
        in_flight.sort_by_key(|x| x.id);
        in_flight.truncate(LISTED);
        Some(Unended {
            count,
            ended_twice: self.ledger.twice.clone(),
            in_flight,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_id_counts_once_and_a_second_end_is_kept() {
        let mut l = Ledger::default();
        for id in [0, 63, 64, 200] {
            l.end(id);
        }
        assert_eq!(l.count(), 4);
        l.end(64);
        l.end(3);
        assert_eq!(l.count(), 5);
        assert_eq!(l.twice, [64]);
    }

    #[test]
    fn the_sentence_names_each_request_and_where_it_is() {
        let u = Unended {
            count: 2,
            ended_twice: vec![7],
            in_flight: vec![InFlight {
                id: 2,
                replica: 1,
                state: "waiting",
            }],
        };
        assert_eq!(
            u.sentence(),
            "2 request(s) arrived and never ended (simulator bug): #2 waiting (replica 1) and 1 more. \
             Request(s) #7 ended twice (simulator bug)."
        );
    }
}
