//! (in progress) router
