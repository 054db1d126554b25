//! Cached encryption for BGV: Rache, Smuche and a secure online/offline encryptor.
