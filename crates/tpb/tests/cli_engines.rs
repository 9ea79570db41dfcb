//! `tpb run` on the multi-engine model (issue 10): the examples in `examples/engines/` check
//! themselves (the pipeline passes, the race and the deadlock are reported as docs/engines.md
//! says), `.engine` and `--queue` placement, `--serial`, timing overrides, and the timeline
//! files (the Chrome trace parsed and checked for its structure; the SVG well-formed with
//! one bar per instruction).

#[path = "support/cli.rs"]
mod cli;
use cli::tpb;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/engines")
        .join(name)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

fn scratch(test: &str) -> PathBuf {
    cli::scratch("cli-eng", test)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn status(o: &Output, code: i32) -> (String, String) {
    let (out, err) = text(o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{out}\nstderr:\n{err}"
    );
    (out, err)
}

fn write(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.display().to_string()
}

#[test]
fn the_pipeline_example_runs_on_two_engines_and_checks_itself() {
    let dir = scratch("pipeline");
    let (out, _) = status(&tpb(&dir, &["run", &example("mask_pipeline.tpb")]), 0);
    for line in [
        "queues   POOL 3, DVE 4",
        "expect   2 passed",
        "races    none",
        "warnings none",
    ] {
        assert!(out.lines().any(|l| l == line), "missing {line:?}:\n{out}");
    }
    let engines: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("engines"))
        .collect();
    assert!(engines[1].trim_start().starts_with("POOL       3"), "{out}");
    assert!(engines[2].trim_start().starts_with("DVE        4"), "{out}");
    assert!(
        out.contains("critical 4 instructions") && out.contains("DVE #3 range_select (line 29)"),
        "{out}"
    );
}

#[test]
fn the_race_example_names_both_instructions_the_region_and_the_kind() {
    let dir = scratch("race");
    let o = tpb(&dir, &["run", &example("mask_pipeline_race.tpb")]);
    let (out, err) = status(&o, 1);
    // The result is still right: the model's timing happened to order the two.
    assert!(out.contains("expect   2 passed"), "{out}");
    assert!(out.contains("races    1\n"), "{out}");
    for want in [
        "RAW (read-after-write) on sbuf[p0..128]+0xa100..0xa104, 4 bytes in each of 128 partitions",
        "POOL #1 (line 18: affine_select dtypes=fp32->fp32",
        "dst=sbuf[p0..128]+0xA100:[[1,1]]) writes dst_mem_pattern",
        "DVE #2 (line 23: range_select dtypes=fp32->bf16",
        "bound1=0xa100 dst=sbuf[p0..128]+0x2000:[[1,512]]) reads bound1",
        "the model's timing alone ran them in order",
    ] {
        assert!(out.contains(want), "missing {want:?}:\n{out}");
    }
    assert_eq!(
        err.trim(),
        "tpb: error: 1 race between engines (see `races` above; --allow-races accepts them)"
    );
    // --allow-races accepts it (still reported); --serial has no engines and no races.
    let (out, _) = status(
        &tpb(
            &dir,
            &["run", &example("mask_pipeline_race.tpb"), "--allow-races"],
        ),
        0,
    );
    assert!(out.contains("races    1\n"), "{out}");
    let (out, _) = status(
        &tpb(
            &dir,
            &["run", &example("mask_pipeline_race.tpb"), "--serial"],
        ),
        0,
    );
    assert!(
        !out.contains("races") && out.contains("expect   2 passed"),
        "{out}"
    );
}

#[test]
fn the_deadlock_example_reports_each_blocked_wait_and_its_value() {
    let dir = scratch("deadlock");
    let (out, err) = status(&tpb(&dir, &["run", &example("deadlock.tpb")]), 1);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("tpb: error: deadlock at 551.7 ns: every unfinished queue waits")
            && lines[0].ends_with("(2 engines blocked)"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("  POOL #1 (line 13: iota")
            && lines[1].ends_with("waits for semaphore 1 >= 1 (semaphore is 0)"),
        "{err}"
    );
    assert!(
        lines[2].starts_with("  DVE #1 (line 14: ts_arith")
            && lines[2].ends_with("waits for semaphore 0 >= 1 (semaphore is 0)"),
        "{err}"
    );
    assert!(out.contains("ran      2 instructions"), "{out}");
}

#[test]
fn a_single_stream_wait_that_cannot_hold_is_a_deadlock_of_one_engine() {
    let dir = scratch("one-engine");
    let prog = write(
        &dir,
        "w.tpb",
        "iota src=0:[[1,4]] out=int32 dst=sbuf[p0..1]+0x0:[[1,4]] \
         wait_mode=evt_set wait_idx=9\n",
    );
    let (_, err) = status(&tpb(&dir, &["run", &prog]), 1);
    assert!(err.contains("(1 engine blocked)"), "{err}");
    assert!(
        err.contains("POOL #0 (line 1: iota")
            && err.contains("waits for event 9 set (it is clear)"),
        "{err}"
    );
    // --serial keeps today's single-stream fault.
    let (_, err) = status(&tpb(&dir, &["run", &prog, "--serial"]), 1);
    assert!(err.contains("wait can never be satisfied"), "{err}");
}

#[test]
fn engine_directives_are_checked_against_the_opcode_table() {
    let dir = scratch("engine-directive");
    let prog = write(
        &dir,
        "bad.tpb",
        ".engine pool\n\
         ts_arith src=sbuf[p0..1]+0x0:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
         dst=sbuf[p0..1]+0x100:[[1,4]]\n\
         .engine gpu\n",
    );
    for cmd in [
        vec!["run", prog.as_str()],
        vec!["asm", prog.as_str(), "-o", "x.bin"],
    ] {
        let o = tpb(&dir, &cmd);
        let (_, err) = text(&o);
        assert_ne!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!(
                "{prog}:2:1: ts_arith runs on DVE (opcode table), not on POOL as `.engine pool` \
                 at line 1 asks"
            )),
            "{cmd:?}: {err}"
        );
        assert!(
            err.contains(&format!("{prog}:3:9: unknown engine `gpu`")),
            "{err}"
        );
    }
    // The table's own engine (and `auto`) are accepted.
    let good = write(
        &dir,
        "good.tpb",
        ".engine dve\n\
         ts_arith src=sbuf[p0..1]+0x0:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
         dst=sbuf[p0..1]+0x100:[[1,4]]\n\
         .engine auto\n\
         iota src=0:[[1,4]] out=int32 dst=sbuf[p0..1]+0x200:[[1,4]]\n",
    );
    let (out, _) = status(&tpb(&dir, &["run", &good]), 0);
    assert!(out.contains("queues   POOL 1, DVE 1"), "{out}");
}

#[test]
fn queue_files_give_one_binary_per_engine() {
    let dir = scratch("queues");
    let src = std::fs::read_to_string(example("mask_pipeline.tpb")).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    // The lines after `.engine NAME` up to the blank line: that engine's queue.
    let block = |name: &str| -> String {
        lines
            .iter()
            .skip_while(|l| **l != format!(".engine {name}"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let pool = write(&dir, "pool.tpb", &block("pool"));
    let dve = write(&dir, "dve.tpb", &block("dve"));
    for (t, b) in [(&pool, "pool.bin"), (&dve, "dve.bin")] {
        status(&tpb(&dir, &["asm", t, "-o", b]), 0);
    }
    let ins = [
        format!("{}@sbuf[p0..128]+0x0:fp32", example("scores.npy")),
        format!("{}@sbuf[p0..128]+0x8000:fp32", example("scales.npy")),
        format!(
            "sbuf[p0..128]+0x2000:bf16:128x512=={}",
            example("masked.expected.npy")
        ),
    ];
    let args = [
        "run",
        "--queue",
        "dve=dve.bin",
        "--queue",
        "pool=pool.bin",
        "--in",
        &ins[0],
        "--in",
        &ins[1],
        "--reg",
        "7=100.0",
        "--expect",
        &ins[2],
    ];
    let (out, _) = status(&tpb(&dir, &args), 0);
    assert!(
        out.contains("queues   POOL 3, DVE 4") && out.contains("races    none"),
        "{out}"
    );
    // A queue file whose opcode runs elsewhere is refused.
    let o = tpb(&dir, &["run", "--queue", "pool=dve.bin"]);
    let (_, err) = status(&o, 2);
    assert!(
        err.contains("bundle #0 (imm_ld_arith) runs on DVE (opcode table), not on POOL"),
        "{err}"
    );
}

#[test]
fn timing_constants_are_overridable_and_change_the_schedule() {
    let dir = scratch("timing");
    // A slow POOL start makes DVE wait for the semaphore.
    let (out, _) = status(
        &tpb(
            &dir,
            &[
                "run",
                &example("mask_pipeline.tpb"),
                "--timing",
                "POOL_START=5000",
            ],
        ),
        0,
    );
    let dve = out
        .lines()
        .find(|l| l.trim_start().starts_with("DVE "))
        .unwrap();
    let waiting: u64 = dve.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(waiting > 0, "{out}");
    assert!(
        out.contains(
            "POOL #0 iota (line 21) → POOL #1 affine_select (line 22) → POOL #2 event_semaphore \
             (line 23) → DVE #2 event_semaphore (line 28) → DVE #3 range_select (line 29)"
        ),
        "{out}"
    );
    let file = write(&dir, "t.txt", "# slower\nPOOL_START = 5000\n");
    let (out2, _) = status(
        &tpb(
            &dir,
            &["run", &example("mask_pipeline.tpb"), "--timing-file", &file],
        ),
        0,
    );
    assert_eq!(out, out2);
    for bad in ["NOPE=1", "POOL_START", "CLOCK_MHZ_DVE_CAYMAN=0"] {
        let (_, err) = status(
            &tpb(
                &dir,
                &["run", &example("mask_pipeline.tpb"), "--timing", bad],
            ),
            2,
        );
        assert!(err.starts_with("tpb: error: --timing"), "{err}");
    }
}

/// The numbers of `tpb run`'s `roofline` line: (estimate, bound, bound by, PE µs, flops,
/// HBM µs, bytes).
fn roofline(out: &str) -> (f64, f64, String, f64, u64, f64, u64) {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("roofline "))
        .unwrap_or_else(|| panic!("no roofline line:\n{out}"));
    // estimate E µs, physical bound B µs by X (PE P µs for F flops, HBM H µs for N bytes): …
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || "(),:".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let at = |i: usize| words.get(i).copied().unwrap_or_else(|| panic!("{line}"));
    let num = |i: usize| at(i).parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
    let int = |i: usize| at(i).parse::<u64>().unwrap_or_else(|_| panic!("{line}"));
    assert_eq!(
        [0, 4, 7, 9, 14, 15, 20].map(at),
        ["estimate", "bound", "by", "PE", "flops", "HBM", "bytes"],
        "{line}"
    );
    (
        num(1),
        num(5),
        at(8).into(),
        num(10),
        int(13),
        num(16),
        int(19),
    )
}

/// The roofline line (docs/engines.md "Roofline") counts the pipeline's two 128 × 128 × 256
/// bf16 matmuls and its HBM bytes (W 128 × 128 bf16 and X 128 × 512 bf16 in, 128 × 512 fp32
/// out), names the larger bound, and the estimate stays above it when the HBM bandwidth is
/// cut a thousandfold (then HBM bounds the run by far).
#[test]
fn the_roofline_line_gives_the_pe_and_hbm_work_and_the_estimate_respects_it() {
    let dir = scratch("roofline");
    let (out, _) = status(&tpb(&dir, &["run", &example("pe_act_pipeline.tpb")]), 0);
    let (estimate, bound, by, pe_us, flops, hbm_us, bytes) = roofline(&out);
    assert_eq!(flops, 2 * 2 * 128 * 128 * 256, "{out}");
    assert_eq!(
        bytes,
        128 * 128 * 2 + 128 * 512 * 2 + 128 * 512 * 4,
        "{out}"
    );
    assert_eq!(bound, pe_us.max(hbm_us), "{out}");
    assert_eq!(by, if hbm_us > pe_us { "HBM" } else { "PE" }, "{out}");
    assert!(estimate >= bound && bound > 0.0, "{out}");
    let run = out.lines().find(|l| l.starts_with("engines")).unwrap();
    assert!(run.contains(&format!("run {estimate:.3} µs")), "{out}");
    // 425984 bytes at 375 MB/s: HBM bounds the run at about 1.1 ms.
    let (slow, _) = status(
        &tpb(
            &dir,
            &[
                "run",
                &example("pe_act_pipeline.tpb"),
                "--timing",
                "HBM_MB_PER_S_CAYMAN=375",
            ],
        ),
        0,
    );
    let (estimate, bound, by, _, _, hbm_us, _) = roofline(&slow);
    assert_eq!(by, "HBM", "{slow}");
    assert!((hbm_us - 425_984.0 / 375.0).abs() < 0.01, "{slow}");
    assert!(estimate >= bound, "{slow}");
}

#[test]
fn the_chrome_trace_has_engine_tracks_instruction_events_and_semaphore_counters() {
    let dir = scratch("json");
    // A timeline's directory must exist (issue 20 item 3: it is not created).
    std::fs::create_dir_all(dir.join("t")).unwrap();
    status(
        &tpb(
            &dir,
            &[
                "run",
                &example("mask_pipeline.tpb"),
                "--timeline",
                "t/trace.json",
            ],
        ),
        0,
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t/trace.json")).unwrap())
            .expect("valid JSON");
    assert_eq!(doc["displayTimeUnit"], "ns");
    let events = doc["traceEvents"].as_array().unwrap();
    let threads: Vec<(u64, &str)> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["args"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(threads, [(3, "POOL (GpSimd)"), (4, "DVE (VectorE)")]);
    let insts: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "instruction")
        .collect();
    assert_eq!(insts.len(), 7);
    for e in &insts {
        assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() > 0.0);
        let a = &e["args"];
        assert_eq!(a["mnemonic"], e["name"]);
        assert!(
            a["elements"].as_u64().is_some() && a["bytes"].as_u64().is_some(),
            "{e}"
        );
    }
    let range = insts.iter().find(|e| e["name"] == "range_select").unwrap();
    assert_eq!(range["tid"], 4);
    assert_eq!(range["args"]["elements"], 65536);
    assert_eq!(range["args"]["bytes"], 131072);
    assert_eq!(range["args"]["line"], 29);
    // Semaphore 0 as a counter track: 0 at the start, 1 when POOL's EventSemaphore completes.
    let sem: Vec<(f64, i64)> = events
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "semaphore 0")
        .map(|e| {
            (
                e["ts"].as_f64().unwrap(),
                e["args"]["value"].as_i64().unwrap(),
            )
        })
        .collect();
    let record = insts
        .iter()
        .find(|e| e["name"] == "event_semaphore" && e["tid"] == 3)
        .unwrap();
    let affine_end = record["ts"].as_f64().unwrap() + record["dur"].as_f64().unwrap();
    assert_eq!(sem.len(), 2, "{sem:?}");
    assert_eq!(sem[0], (0.0, 0));
    assert!(
        (sem[1].0 - affine_end).abs() < 1e-9 && sem[1].1 == 1,
        "{sem:?}"
    );
}

#[test]
fn the_svg_is_well_formed_with_one_bar_per_instruction_and_marks_races_and_waits() {
    let dir = scratch("svg");
    let (race, pipe, dead) = (
        example("mask_pipeline_race.tpb"),
        example("mask_pipeline.tpb"),
        example("deadlock.tpb"),
    );
    let cases = [
        (vec!["run", &race, "--allow-races"], 5, 1, false),
        (
            vec!["run", &pipe, "--timing", "POOL_START=5000"],
            7,
            0,
            true,
        ),
        (vec!["run", &dead], 2, 0, false),
    ];
    for (args, bars, races, waits) in cases {
        let mut args: Vec<&str> = args.to_vec();
        args.extend(["--timeline", "g.svg"]);
        let _ = tpb(&dir, &args);
        let svg = std::fs::read_to_string(dir.join("g.svg")).unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        let count = |class: &str| {
            doc.descendants()
                .filter(|n| n.attribute("class") == Some(class))
                .count()
        };
        assert_eq!(count("inst"), bars, "{args:?}");
        assert_eq!(count("race"), races, "{args:?}");
        assert_eq!(count("wait") > 0, waits, "{args:?}");
        // Every bar carries a tooltip naming its engine and instruction.
        for n in doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("inst"))
        {
            let title = n.first_element_child().unwrap();
            assert_eq!(title.tag_name().name(), "title");
            let t = title.text().unwrap();
            assert!(t.starts_with("POOL #") || t.starts_with("DVE #"), "{t}");
        }
    }
    let (_, err) = status(
        &tpb(
            &dir,
            &["run", &example("mask_pipeline.tpb"), "--timeline", "x.png"],
        ),
        2,
    );
    assert!(err.contains("must end in .json or .svg"), "{err}");
}

#[test]
fn directives_between_instructions_fall_back_to_one_stream() {
    let dir = scratch("mid");
    let prog = write(
        &dir,
        "m.tpb",
        "iota src=0:[[1,4]] out=int32 dst=sbuf[p0..1]+0x0:[[1,4]]\n\
         .expect sbuf[p0..1]+0x0:int32:1x4 == [0, 1, 2, 3]\n\
         iota src=0:[[1,4]] out=int32 dst=sbuf[p0..1]+0x100:[[1,4]]\n",
    );
    let (out, _) = status(&tpb(&dir, &["run", &prog]), 0);
    assert!(
        out.contains(
            "mode     one in-order stream (as --serial): line 2 acts before instruction #1"
        ),
        "{out}"
    );
    let (_, err) = status(&tpb(&dir, &["run", &prog, "--timeline", "t.json"]), 2);
    assert!(err.contains("--timeline needs the engine model"), "{err}");
}

/// A timeline file as text.
fn svg_of(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

// Issue 20 item 19: a deadlock shows in the timeline — each blocked engine's wait up to the
// deadlock, and a marker — in the JSON and the SVG.
#[test]
fn a_deadlock_shows_in_both_timelines() {
    let dir = scratch("deadlock-timeline");
    let dead = example("deadlock.tpb");
    let args = ["run", &dead, "--timeline", "d.json", "--timeline", "d.svg"];
    status(&tpb(&dir, &args), 1);
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("d.json")).unwrap()).unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    let blocked: Vec<&Value> = events
        .iter()
        .filter(|e| e["args"]["blocked"] == true)
        .collect();
    assert_eq!(blocked.len(), 2, "one blocked wait per stuck engine");
    let marker = events
        .iter()
        .find(|e| e["name"] == "deadlock" && e["ph"] == "i")
        .expect("a deadlock marker");
    for b in &blocked {
        assert_eq!(b["cat"], "wait");
        let end = b["ts"].as_f64().unwrap() + b["dur"].as_f64().unwrap();
        assert!((end - marker["ts"].as_f64().unwrap()).abs() < 1e-9);
        assert!(b["args"]["waits_for"]
            .as_str()
            .unwrap()
            .contains("semaphore"));
    }
    assert_eq!(marker["args"]["blocked"].as_array().unwrap().len(), 2);
    assert!(doc["otherData"]["deadlock_us"].as_f64().is_some());
    let svg = svg_of(&dir.join("d.svg"));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let count = |class: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .count()
    };
    assert_eq!(count("blocked"), 2);
    assert_eq!(count("deadlock"), 1);
    // A run that completes has neither.
    status(
        &tpb(
            &dir,
            &[
                "run",
                &example("mask_pipeline.tpb"),
                "--timeline",
                "ok.json",
            ],
        ),
        0,
    );
    let ok = std::fs::read_to_string(dir.join("ok.json")).unwrap();
    assert!(!ok.contains("\"deadlock\"") && !ok.contains("\"blocked\""));
}

/// A program of `n` POOL instructions each bumping semaphore 0, so that the semaphore
/// changes `n` times close together.
fn semaphore_steps(n: usize) -> String {
    let mut s = String::from(".gen cayman\n");
    for k in 0..n {
        s += &format!(
            "iota src={k}:[[1,4]] out=fp32 dst=sbuf[p0..1]+0x0:[[1,4]] \
             update_mode=sem_inc_complete update_idx=0\n"
        );
    }
    s
}

// Issue 20 item 19: semaphore labels in the SVG never overlap (close changes used to print
// on top of each other); a change whose label has no room keeps its dashed line.
#[test]
fn svg_semaphore_labels_do_not_overlap() {
    let dir = scratch("svg-labels");
    let prog = write(&dir, "s.tpb", &semaphore_steps(12));
    status(&tpb(&dir, &["run", &prog, "--timeline", "s.svg"]), 0);
    let svg = svg_of(&dir.join("s.svg"));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let lines = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("sync"))
        .count();
    assert_eq!(lines, 12);
    let mut labels: Vec<(f64, f64, f64)> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("sync-label"))
        .map(|n| {
            let x: f64 = n.attribute("x").unwrap().parse().unwrap();
            let y: f64 = n.attribute("y").unwrap().parse().unwrap();
            // 10-pixel sans-serif: no character is wider than 6 px on average.
            (y, x, x + 6.0 * n.text().unwrap().chars().count() as f64)
        })
        .collect();
    assert!(!labels.is_empty());
    labels.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for w in labels.windows(2) {
        if w[0].0 == w[1].0 {
            assert!(w[0].2 <= w[1].1, "labels overlap: {w:?}");
        }
    }
}

// Issue 20 item 6: the SVG's size is bounded: past 20,000 instructions, a row draws one bar
// per pixel column.
#[test]
fn a_long_run_draws_a_bounded_svg() {
    let dir = scratch("svg-bounded");
    let prog = write(&dir, "l.tpb", &semaphore_steps(25_000));
    status(&tpb(&dir, &["run", &prog, "--timeline", "l.svg"]), 0);
    let svg = svg_of(&dir.join("l.svg"));
    assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let count = |class: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .count()
    };
    assert!(count("inst") <= 900, "{}", count("inst"));
    assert!(count("sync") <= 900, "{}", count("sync"));
    // Every instruction is still accounted for in the bars' tooltips.
    let total: usize = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("inst"))
        .map(|n| {
            let t = n.first_element_child().unwrap().text().unwrap();
            t.split_once(" instructions")
                .and_then(|(a, _)| a.rsplit(' ').next()?.parse().ok())
                .unwrap_or(1)
        })
        .sum();
    assert_eq!(total, 25_000);
}

// Issue 29 item 4: control characters (and the code points XML forbids) in the program's
// file name or its source lines cannot break the SVG: it stays well-formed XML, and each is
// shown as an escape (`\u{1}`). (XML 1.0 §2.2 Char: no C0 control but tab, newline and
// carriage return, no U+FFFE/U+FFFF, not even as a character reference.)
#[test]
fn control_characters_in_names_keep_the_svg_well_formed() {
    let dir = scratch("svg-controls");
    let name = "k\u{1}\u{1b}[31m\u{7f}\u{fffe}<&>\".tpb";
    write(
        &dir,
        name,
        "iota src=0:[[1,4]] multiplier=4 out=int32 dst=sbuf[p0..1]+0x0:[[1,4]] # \u{7}\u{8}\n",
    );
    status(&tpb(&dir, &["run", name, "--timeline", "c.svg"]), 0);
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let all: String = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(
        all.contains("k\\u{1}\\u{1b}[31m\\u{7f}\\u{fffe}<&>\""),
        "{all}"
    );
    assert!(
        !all.contains(['\u{1}', '\u{7}', '\u{8}', '\u{1b}', '\u{fffe}']),
        "{all:?}"
    );
}
