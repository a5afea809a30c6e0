//! A Dynamo-planner-style rule on SLO signals: the aggregated planner's load-based
//! scaling in `components/src/dynamo/planner/core/load_scaling.py` (ai-dynamo/dynamo at
//! commit 0c6da1ec; defaults `ttft_ms` 500, `itl_ms` 50,
//! `load_adjustment_interval_seconds` 5, `load_scaling_down_sensitivity` 80,
//! `load_min_observations` 5). Every interval, the first at one interval after the start
//! (`initial_tick` in `core/state_machine.py`):
//!
//! ```text
//! each ready replica adds one observation (one forward-pass sample per engine a tick)
//! fewer than 5 observations so far: observe only  (`has_sufficient_data` in
//!                                                   `core/perf_model/base.py`)
//! while a scale-up is still starting: observe only
//! no first token and no completion in the interval: no decision
//! TTFT > ttft target  or  ITL > itl target          -> wanted = current + 1
//! TTFT < pct x ttft target  and  ITL < pct x itl target, both observed -> wanted = current - 1
//! ```
//!
//! Simplified: the planner estimates each engine's next TTFT and ITL from a regression
//! of its forward passes (scale up when every engine is over, down when every engine,
//! re-estimated with one replica fewer, is under); here the fleet's observed means over
//! the interval stand in for the estimates: the mean TTFT of the first tokens that came
//! in it (observed when the token comes, as a frontend's TTFT metric is, so a fleet whose
//! requests stall before completing is still seen), and the decode time over the tokens
//! after the first of the requests completed in it (0 when none completed: the TTFT
//! alone decides).

/// Observations the planner's regression needs before its first decision (Dynamo's
/// `load_min_observations` default).
pub const MIN_OBSERVATIONS: u64 = 5;

/// The rule's targets and the interval's observations.
#[derive(Clone, Debug)]
pub struct Slo {
    min_observations: u64,
    observations: u64,
    ttft_us: f64,
    itl_us: f64,
    down_share: f64,
    ttft_sum_us: u64,
    first_tokens: u64,
    completed: u64,
    decode_us: u64,
    decode_tokens: u64,
}

impl Slo {
    /// The rule for the targets (ms), the scale-down share (0.8 = 80 %) and the
    /// observations needed before the first decision.
    pub fn new(ttft_ms: f64, itl_ms: f64, down_share: f64, min_observations: u64) -> Slo {
        Slo {
            min_observations,
            observations: 0,
            ttft_us: ttft_ms * 1000.0,
            itl_us: itl_ms * 1000.0,
            down_share,
            ttft_sum_us: 0,
            first_tokens: 0,
            completed: 0,
            decode_us: 0,
            decode_tokens: 0,
        }
    }

    /// One request's first token, `ttft_us` after its arrival.
    pub fn first_token(&mut self, ttft_us: u64) {
        self.ttft_sum_us += ttft_us;
        self.first_tokens += 1;
    }

    /// One completed request's decode time over its tokens after the first.
    pub fn completed(&mut self, decode_us: u64, decode_tokens: u64) {
        self.completed += 1;
        self.decode_us += decode_us;
        self.decode_tokens += decode_tokens;
    }

    /// The replicas wanted at the end of an interval with `current` wanted now (ready
    /// and starting) and `ready` replicas observed; `None` when it holds. Starts the next
    /// interval.
    pub fn decide(&mut self, current: u32, ready: u32, starting: bool) -> Option<u32> {
        self.observations += u64::from(ready);
        let (firsts, done, ttft_sum, decode_us, tokens) = (
            self.first_tokens,
            self.completed,
            self.ttft_sum_us,
            self.decode_us,
            self.decode_tokens,
        );
        self.first_tokens = 0;
        self.completed = 0;
        self.ttft_sum_us = 0;
        self.decode_us = 0;
        self.decode_tokens = 0;
        if self.observations < self.min_observations || starting || firsts + done == 0 {
            return None;
        }
        let ttft = if firsts == 0 {
            0.0
        } else {
            ttft_sum as f64 / firsts as f64
        };
        let itl = if tokens == 0 {
            0.0
        } else {
            decode_us as f64 / tokens as f64
        };
        // Down only on both signals observed: an interval with no first token (a queue
        // that admits nothing) or no completion says nothing about that one.
        let both = firsts > 0 && done > 0;
        if ttft > self.ttft_us || itl > self.itl_us {
            Some(current + 1)
        } else if both
            && ttft < self.down_share * self.ttft_us
            && itl < self.down_share * self.itl_us
        {
            Some(current.saturating_sub(1))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Slo;

    /// Targets 500 ms and 50 ms, 80 %: a mean TTFT of 600 ms is over (up one); 300 ms with
    /// an ITL of 30 ms is under both 400 ms and 40 ms (down one); 450 ms is between (hold).
    #[test]
    fn over_up_under_down_between_holds() {
        let mut s = Slo::new(500.0, 50.0, 0.8, 0);
        for ttft_us in [500_000, 700_000] {
            s.first_token(ttft_us);
            s.completed(3_000_000, 100);
        }
        assert_eq!(s.decide(3, 3, false), Some(4));
        s.first_token(300_000);
        s.completed(3_000_000, 100);
        assert_eq!(s.decide(4, 4, false), Some(3));
        s.first_token(450_000);
        s.completed(3_000_000, 100);
        assert_eq!(s.decide(3, 3, false), None);
        assert_eq!(s.decide(3, 3, false), None, "nothing observed: hold");
        s.first_token(900_000);
        assert_eq!(
            s.decide(3, 3, true),
            None,
            "a scale-up still starting: observe only"
        );
    }

    /// TTFT is read at the first token: an interval in which requests got their first
    /// token 2 s late and none completed (they are all still decoding) is over the target.
    #[test]
    fn first_tokens_decide_without_a_completion() {
        let mut s = Slo::new(500.0, 50.0, 0.8, 0);
        s.first_token(2_000_000);
        s.first_token(1_000_000);
        assert_eq!(s.decide(2, 2, false), Some(3), "mean TTFT 1.5 s > 500 ms");
        // Fast first tokens and no completion: no ITL seen, so no scale-down.
        s.first_token(100_000);
        assert_eq!(s.decide(3, 3, false), None);
        // Completions with a slow ITL and no first token: up on the ITL alone.
        s.completed(6_000_000, 100);
        assert_eq!(s.decide(3, 3, false), Some(4), "60 ms per token > 50 ms");
    }

    /// No decision before 5 observations, one per ready replica an interval: with 2 ready
    /// replicas and a fast fleet (TTFT 100 ms, ITL 10 ms, under 80 % of both targets) the
    /// intervals ending at 5 s and 10 s have 2 and 4 observations (hold); the one ending at
    /// 15 s has 6 and scales down to 1. With 1 ready replica the first decision is the
    /// fifth interval's (25 s).
    #[test]
    fn no_decision_before_the_regression_has_five_observations() {
        for (ready, first_decision) in [(2u32, 3usize), (1, 5)] {
            let mut s = Slo::new(500.0, 50.0, 0.8, 5);
            let decisions: Vec<Option<u32>> = (0..first_decision)
                .map(|_| {
                    s.first_token(100_000);
                    s.completed(1_000_000, 100);
                    s.decide(ready, ready, false)
                })
                .collect();
            let mut expected = vec![None; first_decision - 1];
            expected.push(Some(ready - 1));
            assert_eq!(decisions, expected, "{ready} ready");
        }
    }
}
