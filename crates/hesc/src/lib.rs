//! Homomorphic encryption for stochastic computing (HESC).
