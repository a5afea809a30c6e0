//! Knative's pod autoscaler (KPA), its decision as `Scale` in
//! `pkg/autoscaler/scaling/autoscaler.go` (knative/serving at commit 00a4a55c) with the
//! defaults of knative.dev/docs/serving/autoscaling/kpa-specific: every tick (2 s) the
//! averages of requests in flight over the stable window (60 s) and the panic window
//! (10 % of it) give
//!
//! ```text
//! dspc = ceil(stable / target),  dppc = ceil(panic / target)
//! max_up = ceil(max_scale_up_rate x ready),  max_down = floor(ready / max_scale_down_rate)
//! desired_stable = clamp(dspc, max_down, max_up), desired_panic likewise
//! over = dppc / ready >= panic_threshold      (ready counted as at least 1)
//! ```
//!
//! Over the threshold starts (or extends) panic mode at this tick; panic mode ends at the
//! first tick not over it more than a stable window after the last tick that was. In
//! panic mode the decision is max(desired_stable, desired_panic), and never below the
//! highest decision of this panic (it does not scale down); otherwise `desired_stable`.
//!
//! At the start of a run the windows' averages are over the time since 0 s, as Knative's
//! `WindowAverage` (`pkg/autoscaler/aggregation/bucketing.go`) averages over the buckets
//! since its first write rather than a full window of zeros; with `scale-down-delay` 0 s
//! (its default) the first tick (2 s) may scale down.

/// The KPA's settings (µs and ratios) and its panic state.
#[derive(Clone, Debug)]
pub struct Kpa {
    /// Target requests in flight per replica.
    pub target: f64,
    /// The stable window, µs.
    pub stable_us: u64,
    /// Panic when `dppc / ready` reaches this ratio (2.0 = 200 %).
    pub panic_threshold: f64,
    /// `max-scale-up-rate`.
    pub max_scale_up_rate: f64,
    /// `max-scale-down-rate`.
    pub max_scale_down_rate: f64,
    panic_since_us: Option<u64>,
    max_panic_pods: u32,
}

impl Kpa {
    /// A KPA not panicking.
    pub fn new(
        target: f64,
        stable_us: u64,
        panic_threshold: f64,
        max_scale_up_rate: f64,
        max_scale_down_rate: f64,
    ) -> Kpa {
        Kpa {
            target,
            stable_us,
            panic_threshold,
            max_scale_up_rate,
            max_scale_down_rate,
            panic_since_us: None,
            max_panic_pods: 0,
        }
    }

    /// Whether the last decision was made in panic mode.
    pub fn panicking(&self) -> bool {
        self.panic_since_us.is_some()
    }

    /// The replicas wanted at `now_us`, from the windows' averages of requests in flight
    /// and the ready replicas.
    pub fn decide(&mut self, now_us: u64, stable_avg: f64, panic_avg: f64, ready: u32) -> u32 {
        let ready = ready.max(1) as f64;
        let max_up = libm::ceil(self.max_scale_up_rate * ready);
        let max_down = libm::floor(ready / self.max_scale_down_rate);
        let dspc = libm::ceil(stable_avg / self.target);
        let dppc = libm::ceil(panic_avg / self.target);
        let stable = dspc.max(max_down).min(max_up) as u32;
        let panic = dppc.max(max_down).min(max_up) as u32;
        let over = dppc / ready >= self.panic_threshold;
        if over {
            self.panic_since_us = Some(now_us);
        } else if self
            .panic_since_us
            .is_some_and(|t| t + self.stable_us < now_us)
        {
            self.panic_since_us = None;
            self.max_panic_pods = 0;
        }
        if self.panic_since_us.is_none() {
            return stable;
        }
        self.max_panic_pods = self.max_panic_pods.max(stable.max(panic));
        self.max_panic_pods
    }
}

#[cfg(test)]
mod tests {
    use super::Kpa;

    fn kpa() -> Kpa {
        Kpa::new(10.0, 60_000_000, 2.0, 1000.0, 2.0)
    }

    /// Scale-down is bounded by the rate: 8 ready, nothing in flight, at most halved.
    #[test]
    fn scale_down_rate_bounds_one_decision() {
        let mut k = kpa();
        assert_eq!(k.decide(2_000_000, 0.0, 0.0, 8), 4);
    }
}
