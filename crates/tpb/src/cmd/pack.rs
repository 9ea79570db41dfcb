//! `tpb pack`: the compiler's access-pattern packer (seed 001) on the command line.
//!
//! ```text
//! $ tpb pack --gen cayman --space sbuf --partitions 0..128 --offset 0x400 --dims "[[64,2],[1,64]]" --nd 4
//! descriptor:          TENSOR4D sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]
//! num_active_channels: 128
//! active_dims:         3 (limit 5)
//! slots:               [Pattern[2], Pattern[1], fill, fill]
//! bytes:               00 04 00 00 01 00 40 00 01 00 01 00 40 00 02 00 01 00 01 00
//! ```
//!
//! `--dims` is outermost first (as NKI writes `Pattern[1..]`) unless `--innermost-first`;
//! `--explicit` packs without dropping or compacting (decisions §1.5 GOTCHA); `--json`
//! prints one JSON object instead.

use super::input::parse_gen;
use super::{say, CliError};
use serde_json::json;
use std::process::ExitCode;
use tpb_isa::geometry::Space;
use tpb_isa::pack::{pack, pack_explicit, parse_dims, AccessPattern, Dim, DimOrder, Packed};
use tpb_isa::wire::field::parse_int;
use tpb_isa::wire::Field;
use tpb_isa::Gen;

/// Arguments of `tpb pack`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Generation (sunda, cayman, mariana, maverick; also v2..v5, trn1..trn3).
    #[arg(long = "gen", default_value = "cayman", value_parser = parse_gen)]
    pub gen: Gen,
    /// On-chip memory: sbuf or psum.
    #[arg(long, default_value = "sbuf", value_parser = parse_space)]
    pub space: Space,
    /// Partitions touched: `START..END` (END exclusive) or a single `P`. Pattern[0]'s num is
    /// END - START and becomes num_active_channels.
    #[arg(long, default_value = "0..128")]
    pub partitions: String,
    /// Pattern[0]'s step (must be >= 0; not encoded in the descriptor).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    pub partition_step: i64,
    /// Byte offset within the start partition (decimal, 0x hex or 0b binary).
    #[arg(long, default_value = "0", value_parser = parse_offset)]
    pub offset: u64,
    /// Free dims as `[[step,num],...]`, outermost first (see --innermost-first).
    #[arg(long, default_value = "[]", allow_hyphen_values = true)]
    pub dims: String,
    /// Descriptor dimensionality N of TENSOR{N}D (1..=4).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=4))]
    pub nd: u8,
    /// `--dims` is given innermost first (slot order) instead of outermost first.
    #[arg(long)]
    pub innermost_first: bool,
    /// Keep every dim in the slot it is given (no num==1 dropping, no compaction).
    #[arg(long)]
    pub explicit: bool,
    /// Print a JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

fn parse_space(s: &str) -> Result<Space, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "sbuf" => Ok(Space::Sbuf),
        "psum" => Ok(Space::Psum),
        _ => Err(format!("unknown space `{s}`; expected sbuf or psum")),
    }
}

fn parse_offset(s: &str) -> Result<u64, String> {
    parse_int(s)
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| format!("offset `{s}` is not a non-negative integer"))
}

/// Parses `START..END` or `P` into (start, count); the count may be out of range (the
/// packer reports that).
fn parse_partitions(s: &str) -> Result<(u32, i64), CliError> {
    let bad = || {
        CliError::Msg(format!(
            "--partitions `{s}`: expected `START..END` (END exclusive) or a single partition `P`"
        ))
    };
    let int = |v: &str| parse_int(v).ok_or_else(bad);
    let (start, count) = match s.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (int(a)?, int(b)?);
            (a, b - a)
        }
        None => (int(s)?, 1),
    };
    let start = u32::try_from(start).map_err(|_| bad())?;
    let count = i64::try_from(count).map_err(|_| bad())?;
    Ok((start, count))
}

fn hex(b: &[u8]) -> String {
    tpb_isa::hex::encode_with(b, " ")
}

fn report<const N: usize>(args: &Args, ap: &AccessPattern) -> Result<ExitCode, CliError> {
    let packed: Packed<N> = if args.explicit {
        pack_explicit::<N>(args.gen, ap)
    } else {
        pack::<N>(args.gen, ap)
    }
    .map_err(|e| CliError::Msg(e.to_string()))?;
    let t = &packed.tensor;
    let text = t.to_text(args.gen);
    let bytes = packed.bytes();
    if args.json {
        let v = json!({
            "gen": args.gen.name(),
            "type": format!("TENSOR{N}D"),
            "nd": N,
            "mode": if args.explicit { "explicit" } else { "compact" },
            "text": text,
            "start_addr": t.start_addr.0,
            "start_addr_hex": format!("{:#010x}", t.start_addr.0),
            "step_elem": t.step_elem.to_vec(),
            "num_elem": t.num_elem.to_vec(),
            "num_active_channels": packed.num_active_channels,
            "active_dims": packed.active_dims,
            "slot_source": packed.slot_source.to_vec(),
            "bytes": tpb_isa::hex::encode(&bytes),
        });
        say!("{v}")?;
    } else {
        let sources: Vec<String> = packed
            .slot_source
            .iter()
            .map(|s| match s {
                Some(d) => format!("Pattern[{d}]"),
                None => "fill".to_string(),
            })
            .collect();
        say!("descriptor:          TENSOR{N}D {text}")?;
        say!("num_active_channels: {}", packed.num_active_channels)?;
        say!(
            "active_dims:         {} (limit {})",
            packed.active_dims,
            N + 1
        )?;
        say!("slots:               [{}]", sources.join(", "))?;
        say!("bytes:               {}", hex(&bytes))?;
    }
    debug_assert_eq!(bytes.len(), <tpb_isa::wire::Tensor<N> as Field>::SIZE);
    Ok(ExitCode::SUCCESS)
}

/// Runs `tpb pack`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let (start, count) = parse_partitions(&args.partitions)?;
    let dims = parse_dims(&args.dims).map_err(|e| CliError::Msg(format!("--dims: {e}")))?;
    let order = if args.innermost_first {
        DimOrder::InnermostFirst
    } else {
        DimOrder::OutermostFirst
    };
    let mut ap = AccessPattern::new(args.space, start, count, args.offset).with_free(dims, order);
    ap.partition = Dim::new(args.partition_step, count);
    match args.nd {
        1 => report::<1>(&args, &ap),
        2 => report::<2>(&args, &ap),
        3 => report::<3>(&args, &ap),
        _ => report::<4>(&args, &ap),
    }
}
