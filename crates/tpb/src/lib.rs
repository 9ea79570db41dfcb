//! Library half of the `tpb` command-line tool: the command line ([`cli::run`]),
//! `.npy` I/O and command implementations.
#![warn(missing_docs)]

pub mod atomic;
pub mod cli;
pub mod cmd;
pub mod input_file;
pub mod npy;
