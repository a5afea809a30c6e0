//! (in progress) metrics
