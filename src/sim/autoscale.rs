//! The autoscaler: replica slots that are off, starting (ready `startup_s` after the
//! decision, with an empty cache), ready (routable) or draining (no new requests; the
//! replica leaves, its cache lost, when its last request ends); a decision every tick
//! (KPA: 2 s, Knative's `tick-interval`; SLO: the planner's adjustment interval); the
//! replica time billed (starting, ready and draining) and every change, for the report.
//!
//! A decision sets the wanted count (ready + starting) within [min, max]: above it,
//! starting replicas are cancelled newest first, then the highest-numbered ready ones
//! drain; below it, the lowest-numbered free slots start (as many as the slots free of
//! draining replicas allow).

pub mod kpa;
pub mod slo;

use std::collections::VecDeque;

use serde::Serialize;

use crate::config::{Autoscale, Config};

/// The KPA's decision interval (Knative's `tick-interval` default), µs.
pub const KPA_TICK_US: u64 = 2_000_000;

/// Where a replica slot is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Not running, not billed.
    Off,
    /// Loading the model; ready at the given µs.
    Starting(u64),
    /// Taking requests.
    Ready,
    /// Finishing its requests; takes no new ones.
    Draining,
}

/// What happened to a replica, as the report lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The scaler added it; it starts loading.
    Start,
    /// It finished loading and takes requests (with an empty cache).
    Ready,
    /// The scaler removed a starting one before it was ready.
    Cancel,
    /// The scaler removed it; it takes no new requests.
    Drain,
    /// Its last request ended; it is gone with its cache.
    Leave,
}

/// One change of one replica.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Change {
    /// When, s.
    pub t_s: f64,
    /// The replica (slot index).
    pub replica: u32,
    /// What happened.
    pub kind: ChangeKind,
    /// Ready replicas just after it.
    pub ready: u32,
}

/// The decider of a scaler.
#[derive(Clone, Debug)]
enum Decider {
    Kpa {
        kpa: kpa::Kpa,
        panic_us: u64,
        /// (tick µs, requests-in-flight area up to it) for the last stable window.
        history: VecDeque<(u64, u128)>,
    },
    Slo(slo::Slo),
}

/// The autoscaler's state.
#[derive(Clone, Debug)]
pub struct Scaler {
    decider: Decider,
    slots: Vec<Slot>,
    since_us: Vec<u64>,
    billed_us: u128,
    min: u32,
    max: u32,
    startup_us: u64,
    tick_us: u64,
    next_tick_us: u64,
    in_flight: u64,
    area: u128,
    area_at_us: u64,
    changes: Vec<Change>,
    panic_ticks: u64,
    mask_changed: bool,
}

impl Scaler {
    /// The scaler of `cfg`, when it autoscales: `instances` slots ready at 0.
    pub fn of(cfg: &Config) -> Option<Scaler> {
        let s_to_us = |s: f64| libm::round(s * 1e6) as u64;
        let (decider, tick_us) = match cfg.autoscale {
            Autoscale::Off => return None,
            Autoscale::Kpa => {
                let stable_us = s_to_us(cfg.kpa_stable_window_s);
                let kpa = kpa::Kpa::new(
                    cfg.kpa_target,
                    stable_us,
                    cfg.kpa_panic_threshold_pct / 100.0,
                    cfg.kpa_max_scale_up_rate,
                    cfg.kpa_max_scale_down_rate,
                );
                let panic_us = s_to_us(cfg.kpa_stable_window_s * cfg.kpa_panic_window_pct / 100.0);
                let history = VecDeque::from([(0, 0)]);
                (
                    Decider::Kpa {
                        kpa,
                        panic_us,
                        history,
                    },
                    KPA_TICK_US,
                )
            }
            Autoscale::Slo => (
                Decider::Slo(slo::Slo::new(
                    cfg.slo_ttft_ms_or_default(),
                    cfg.slo_itl_ms_or_default(),
                    cfg.slo_scale_down_pct / 100.0,
                    slo::MIN_OBSERVATIONS,
                )),
                s_to_us(cfg.slo_interval_s),
            ),
        };
        let slots_n = cfg.replica_slots() as usize;
        let mut slots = vec![Slot::Off; slots_n];
        for s in slots.iter_mut().take(cfg.instances as usize) {
            *s = Slot::Ready;
        }
        Some(Scaler {
            decider,
            slots,
            since_us: vec![0; slots_n],
            billed_us: 0,
            min: cfg.min_instances_or_default(),
            max: cfg.max_instances_or_default(),
            startup_us: s_to_us(cfg.startup_s_or_default()),
            tick_us,
            next_tick_us: tick_us,
            in_flight: 0,
            area: 0,
            area_at_us: 0,
            changes: Vec::new(),
            panic_ticks: 0,
            mask_changed: false,
        })
    }

    /// The slots' states.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// Whether replica `r` takes new requests.
    pub fn accepting(&self, r: usize) -> bool {
        self.slots[r] == Slot::Ready
    }

    /// Whether replica `r` is draining.
    pub fn draining(&self, r: usize) -> bool {
        self.slots[r] == Slot::Draining
    }

    /// Takes the flag set when the set of ready replicas changed.
    pub fn take_mask_changed(&mut self) -> bool {
        std::mem::take(&mut self.mask_changed)
    }

    /// Ready replicas now.
    pub fn ready(&self) -> u32 {
        self.count(|s| s == Slot::Ready)
    }

    fn count(&self, f: impl Fn(Slot) -> bool) -> u32 {
        self.slots.iter().filter(|&&s| f(s)).count() as u32
    }

    /// The next tick or readiness, µs.
    pub fn next_us(&self) -> u64 {
        let ready_at = self.slots.iter().filter_map(|s| match s {
            Slot::Starting(t) => Some(*t),
            _ => None,
        });
        ready_at.fold(self.next_tick_us, u64::min)
    }

    /// A request was dispatched to a replica (+1) or ended there (-1), at `now_us`.
    pub fn in_flight_moved(&mut self, now_us: u64, up: bool) {
        self.integrate(now_us);
        if up {
            self.in_flight += 1;
        } else {
            self.in_flight -= 1;
        }
    }

    /// A request's first token came, `ttft_us` after its arrival (for the SLO rule).
    pub fn first_token(&mut self, ttft_us: u64) {
        if let Decider::Slo(slo) = &mut self.decider {
            slo.first_token(ttft_us);
        }
    }

    /// A request completed: its decode time over its tokens after the first (for the SLO
    /// rule).
    pub fn completed(&mut self, decode_us: u64, decode_tokens: u64) {
        if let Decider::Slo(slo) = &mut self.decider {
            slo.completed(decode_us, decode_tokens);
        }
    }

    fn integrate(&mut self, now_us: u64) {
        self.area += self.in_flight as u128 * (now_us - self.area_at_us) as u128;
        self.area_at_us = now_us;
    }

    /// Runs what is due at `now_us` (readiness first, then a tick); returns the slots
    /// that start draining (the caller sends any idle one away at once).
    pub fn fire(&mut self, now_us: u64) -> Vec<usize> {
        for r in 0..self.slots.len() {
            if self.slots[r] == Slot::Starting(now_us) {
                self.slots[r] = Slot::Ready;
                self.mask_changed = true;
                self.note(now_us, r, ChangeKind::Ready);
            }
        }
        if now_us < self.next_tick_us {
            return Vec::new();
        }
        self.next_tick_us += self.tick_us;
        self.integrate(now_us);
        let wanted = self.decide(now_us);
        self.apply(now_us, wanted)
    }

    fn decide(&mut self, now_us: u64) -> Option<u32> {
        let ready = self.ready();
        let starting = self.count(|s| matches!(s, Slot::Starting(_)));
        let area = self.area;
        match &mut self.decider {
            Decider::Kpa {
                kpa,
                panic_us,
                history,
            } => {
                history.push_back((now_us, area));
                while history.len() > 2 && history[1].0 + kpa.stable_us <= now_us {
                    history.pop_front();
                }
                let stable = window_avg(history, now_us, area, kpa.stable_us);
                let panic = window_avg(history, now_us, area, *panic_us);
                let wanted = kpa.decide(now_us, stable, panic, ready);
                self.panic_ticks += u64::from(kpa.panicking());
                Some(wanted)
            }
            Decider::Slo(slo) => slo.decide(ready + starting, ready, starting > 0),
        }
    }

    /// Moves the fleet toward `wanted` (bounded by min and max) at `now_us`.
    fn apply(&mut self, now_us: u64, wanted: Option<u32>) -> Vec<usize> {
        let Some(wanted) = wanted else {
            return Vec::new();
        };
        let wanted = wanted.clamp(self.min, self.max);
        let mut have = self.count(|s| matches!(s, Slot::Ready | Slot::Starting(_)));
        let mut drained = Vec::new();
        while have > wanted {
            let newest = (0..self.slots.len())
                .filter_map(|r| match self.slots[r] {
                    Slot::Starting(t) => Some((t, r)),
                    _ => None,
                })
                .max();
            match newest {
                Some((_, r)) => {
                    self.stop_billing(now_us, r);
                    self.slots[r] = Slot::Off;
                    self.note(now_us, r, ChangeKind::Cancel);
                }
                None => {
                    let r = (0..self.slots.len())
                        .rev()
                        .find(|&r| self.slots[r] == Slot::Ready)
                        .expect("a ready replica above the minimum");
                    self.slots[r] = Slot::Draining;
                    self.mask_changed = true;
                    self.note(now_us, r, ChangeKind::Drain);
                    drained.push(r);
                }
            }
            have -= 1;
        }
        while have < wanted {
            let Some(r) = self.slots.iter().position(|&s| s == Slot::Off) else {
                break;
            };
            self.slots[r] = Slot::Starting(now_us + self.startup_us);
            self.since_us[r] = now_us;
            self.note(now_us, r, ChangeKind::Start);
            have += 1;
        }
        if self.startup_us == 0 {
            self.fire_ready_now(now_us);
        }
        drained
    }

    /// With no start-up delay, a started replica is ready in the same instant.
    fn fire_ready_now(&mut self, now_us: u64) {
        for r in 0..self.slots.len() {
            if self.slots[r] == Slot::Starting(now_us) {
                self.slots[r] = Slot::Ready;
                self.mask_changed = true;
                self.note(now_us, r, ChangeKind::Ready);
            }
        }
    }

    /// Draining replica `r` ended its last request at `now_us`: it leaves.
    pub fn leave(&mut self, now_us: u64, r: usize) {
        debug_assert_eq!(self.slots[r], Slot::Draining);
        self.stop_billing(now_us, r);
        self.slots[r] = Slot::Off;
        self.note(now_us, r, ChangeKind::Leave);
    }

    fn stop_billing(&mut self, now_us: u64, r: usize) {
        self.billed_us += (now_us - self.since_us[r]) as u128;
    }

    fn note(&mut self, now_us: u64, r: usize, kind: ChangeKind) {
        let ready = self.ready();
        self.changes.push(Change {
            t_s: now_us as f64 / 1e6,
            replica: r as u32,
            kind,
            ready,
        });
    }

    /// Closes the books at the run's end: every replica still up is billed to `end_us`.
    pub fn finish(&mut self, end_us: u64) -> Billing {
        let mut billed = self.billed_us;
        for (r, s) in self.slots.iter().enumerate() {
            if *s != Slot::Off {
                billed += end_us.saturating_sub(self.since_us[r]) as u128;
            }
        }
        Billing {
            replica_us: billed,
            changes: self.changes.clone(),
            panic_ticks: self.panic_ticks,
            min: self.min,
            max: self.max,
            startup_us: self.startup_us,
        }
    }
}

/// The mean requests in flight over the `window_us` before `now_us` (from the tick at or
/// after its start; the whole run so far while it is shorter).
fn window_avg(history: &VecDeque<(u64, u128)>, now_us: u64, area: u128, window_us: u64) -> f64 {
    let start = now_us.saturating_sub(window_us);
    let Some(&(t, a)) = history.iter().find(|&&(t, _)| t >= start) else {
        return 0.0;
    };
    if t >= now_us {
        return 0.0;
    }
    (area - a) as f64 / (now_us - t) as f64
}

/// The scaler's books at the end of a run.
#[derive(Clone, Debug)]
pub struct Billing {
    /// Replica time billed (starting, ready, draining), µs.
    pub replica_us: u128,
    /// Every change, in order.
    pub changes: Vec<Change>,
    /// KPA ticks decided in panic mode.
    pub panic_ticks: u64,
    /// The bounds.
    pub min: u32,
    /// The bounds.
    pub max: u32,
    /// The start-up delay, µs.
    pub startup_us: u64,
}
