//! (in progress) engine
