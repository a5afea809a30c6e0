//! Report: summary, per-replica table and columnar series; JSON and the text report.
use serde::Serialize;
/// The whole result of one run (filled in by the simulator).
#[derive(Clone, Debug, Serialize)]
pub struct Report {}
