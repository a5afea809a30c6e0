//! (in progress) cache
