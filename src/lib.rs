//! Benches and examples host.
