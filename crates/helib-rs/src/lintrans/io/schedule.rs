//! The format of a transform's [`Schedule`] in a saved transform.

use crate::error::{Error, Result};
use crate::io::{WordReader, WordWriter};
use crate::lintrans::schedule::{KeyMode, Schedule};
use crate::Context;
use std::io::{Read, Write};

/// The schedule's fields, in order.
pub(super) fn write_schedule<W: Write>(s: &Schedule, out: &mut WordWriter<W>) -> Result<()> {
    let (giant_min, giant_max) = s.giant_range();
    let mode = match s.mode() {
        KeyMode::Fast => 0,
        KeyMode::MinimalKeys => 1,
    };
    out.words(&[
        s.row() as u64,
        s.unit_step() as u64,
        s.baby_steps() as u64,
        s.offset() as u64,
        giant_min as u64,
        giant_max as u64,
        u64::from(s.uses_swap()),
        mode,
        s.babies().len() as u64,
    ])?;
    for &(swap, k) in s.babies() {
        out.words(&[u64::from(swap), k as u64])?;
    }
    Ok(())
}

/// Reads and range-checks a schedule for `context`'s rows.
pub(super) fn read_schedule<R: Read>(
    context: &Context,
    input: &mut WordReader<R>,
) -> Result<Schedule> {
    let bad = |what: &str| Error::Malformed(format!("a transform's schedule: {what}"));
    let row = context.ring_degree() / 2;
    if input.word()? != row as u64 {
        return Err(bad("the row length is not the context's"));
    }
    let unit = input.bounded("a schedule's unit step", row as u64)? as usize;
    if !unit.is_power_of_two() {
        return Err(bad("the unit step is not a power of two"));
    }
    let baby = input.bounded("a schedule's baby count", (row / unit) as u64)? as usize;
    if baby == 0 {
        return Err(bad("no baby step"));
    }
    // Every step is in (-R, R], so offsets and giant indices stay within ±2R.
    let limit = 2 * row as i64;
    let signed = |w: u64| -> Result<i64> {
        let v = w as i64;
        if (-limit..=limit).contains(&v) {
            Ok(v)
        } else {
            Err(bad("an index is out of range"))
        }
    };
    let offset = signed(input.word()?)?;
    let giant_min = signed(input.word()?)?;
    let giant_max = signed(input.word()?)?;
    if giant_min > giant_max {
        return Err(bad("the giant range is empty"));
    }
    let uses_swap = input.flag("a schedule's swap flag")?;
    let mode = match input.bounded("a schedule's key mode", 1)? {
        0 => KeyMode::Fast,
        _ => KeyMode::MinimalKeys,
    };
    let count = input.bounded("a schedule's baby pair count", 2 * baby as u64)? as usize;
    let mut babies = Vec::with_capacity(count);
    for _ in 0..count {
        let swap = input.flag("a baby pair's swap flag")?;
        let k = input.bounded("a baby index", baby as u64 - 1)? as usize;
        if babies.last().is_some_and(|&last| last >= (swap, k)) {
            return Err(bad("the baby pairs are not sorted"));
        }
        babies.push((swap, k));
    }
    if uses_swap != babies.iter().any(|&(swap, _)| swap) {
        return Err(bad("the swap flag does not match the baby pairs"));
    }
    Ok(Schedule {
        row,
        unit,
        baby,
        offset,
        giant_min,
        giant_max,
        uses_swap,
        mode,
        babies,
    })
}
