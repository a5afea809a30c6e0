//! What the router knows of the fleet: the requests it has dispatched (counted from
//! dispatch to completion), and later the stale snapshots and the offline pass.

pub mod inflight;

pub use inflight::Inflight;
