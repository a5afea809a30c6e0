//! (in progress) params
