//! .npy I/O (being written).
