//! Numerics (being written).
