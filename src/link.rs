//! One decode replica's inbound KV link: transfers are served first come, first served,
//! each taking its wire time once the link is free. It keeps the busy time scheduled so
//! far, from which the busy time up to any instant follows: the transfers not yet done
//! always form one contiguous block ending when the link falls free.

/// The state of one link.
#[derive(Clone, Debug, Default)]
pub struct Link {
    /// When the last scheduled transfer ends, µs.
    free_us: u64,
    /// Where the current contiguous run of transfers began, µs.
    block_start_us: u64,
    /// Wire time of every transfer scheduled so far, µs.
    scheduled_us: u64,
}

impl Link {
    /// Schedules a transfer of `wire_us` offered at `now_us`; returns its (start, end).
    pub fn schedule(&mut self, now_us: u64, wire_us: u64) -> (u64, u64) {
        if now_us > self.free_us || self.scheduled_us == 0 {
            self.block_start_us = now_us;
        }
        let start_us = now_us.max(self.free_us);
        self.free_us = start_us + wire_us;
        self.scheduled_us += wire_us;
        (start_us, self.free_us)
    }

    /// Busy time from the first transfer up to `t_us`, µs, for any `t_us` not before the
    /// latest `schedule` call's `now_us` (the simulator samples only forward in time).
    pub fn busy_until(&self, t_us: u64) -> u64 {
        let ahead = self.free_us.saturating_sub(t_us.max(self.block_start_us));
        self.scheduled_us - ahead
    }

    /// Wire time of every transfer scheduled so far, µs.
    pub fn scheduled_us(&self) -> u64 {
        self.scheduled_us
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfers_queue_and_busy_time_counts_only_the_past() {
        let mut l = Link::default();
        // 100 µs offered at 10: on the wire 10..110.
        assert_eq!(l.schedule(10, 100), (10, 110));
        // 50 µs offered at 20 waits: 110..160.
        assert_eq!(l.schedule(20, 50), (110, 160));
        assert_eq!(l.busy_until(20), 10);
        assert_eq!(l.busy_until(110), 100);
        assert_eq!(l.busy_until(130), 120);
        assert_eq!(l.busy_until(500), 150);
        // After an idle gap: 30 µs offered at 1000, on the wire 1000..1030.
        assert_eq!(l.schedule(1000, 30), (1000, 1030));
        assert_eq!(l.busy_until(1000), 150);
        assert_eq!(l.busy_until(1015), 165);
        assert_eq!(l.busy_until(2000), 180);
    }
}
