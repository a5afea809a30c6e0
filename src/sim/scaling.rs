//! The autoscaler's events in the run: its readiness and ticks (`on_scale`), the routers
//! told which replicas take requests, and a drained replica leaving with its cache.

use super::Simulation;

impl Simulation<'_> {
    /// Tells the routers which replicas take requests (an autoscaled fleet's ready ones).
    pub(super) fn with_accepting(mut self) -> Self {
        self.share_accepting();
        self
    }

    pub(super) fn share_accepting(&mut self) {
        let Some(scaler) = self.scaler.as_ref() else {
            return;
        };
        let mask: Vec<bool> = (0..scaler.slots().len())
            .map(|r| scaler.accepting(r))
            .collect();
        for router in &mut self.routers {
            router.set_accepting(&mask);
        }
    }

    /// The autoscaler's readiness or tick at `t`: the routers learn the new ready set,
    /// and a replica told to drain with nothing in flight leaves at once.
    pub(super) fn on_scale(&mut self, t: u64) {
        self.advance_clock(t);
        self.events += 1;
        let scaler = self.scaler.as_mut().expect("an autoscaler");
        let drained = scaler.fire(t);
        if scaler.take_mask_changed() {
            self.share_accepting();
        }
        for r in drained {
            self.leave_if_idle(r);
        }
    }

    /// A draining replica with nothing waiting or running leaves: its cache is lost
    /// (the fleet's index and the routers forget it).
    pub(super) fn leave_if_idle(&mut self, r: usize) {
        let Some(scaler) = self.scaler.as_mut() else {
            return;
        };
        let rep = &self.replicas[r];
        if !scaler.draining(r) || rep.waiting() + rep.running() > 0 {
            return;
        }
        scaler.leave(self.now_us, r);
        self.replicas[r].cache_mut().clear();
        self.sync_index(r);
        for router in &mut self.routers {
            router.forget(r);
        }
    }
}
