//! Integer and float arguments as `tpb.UsageError`, never `OverflowError` or `TypeError`
//! from a conversion (issue 20 item 16): every argument mistake is a `tpb.Error`, naming the
//! argument and its value.

use crate::errors::{raise, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

/// An integer type an argument converts to, with its range.
pub trait IntArg: Sized {
    /// The smallest value.
    const MIN: i128;
    /// The largest value.
    const MAX: i128;
    /// The value, known to be in range.
    fn from_i128(v: i128) -> Self;
}

macro_rules! int_arg {
    ($($t:ty),*) => {$(
        impl IntArg for $t {
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
            fn from_i128(v: i128) -> Self {
                v as $t
            }
        }
    )*};
}

int_arg!(u8, u16, u32, u64, i32, i64, usize, i128);

/// A Python integer (or an object with `__index__`) as `T`, naming `argument` and the
/// range `T` holds when it does not fit.
pub fn int<T: IntArg>(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<T> {
    let not_int = || {
        raise(
            ErrorKind::Usage,
            format!("{argument}: expected an integer, not {}", type_name(obj)),
        )
    };
    if obj.is_instance_of::<PyFloat>() {
        return Err(not_int());
    }
    // A Python int is its own index (no `__index__` call: a shape or mask converts many).
    let index = if obj.is_instance_of::<PyInt>() {
        obj.clone()
    } else {
        obj.call_method0("__index__").map_err(|_| not_int())?
    };
    match index.extract::<i128>() {
        Ok(v) if (T::MIN..=T::MAX).contains(&v) => Ok(T::from_i128(v)),
        Ok(v) if v < 0 && T::MIN == 0 => Err(raise(
            ErrorKind::Usage,
            format!("{argument}={v} is negative"),
        )),
        _ => Err(raise(
            ErrorKind::Usage,
            format!("{argument}={index} is outside {}..={}", T::MIN, T::MAX),
        )),
    }
}

/// A list of integers (a shape), each as `T`.
pub fn ints<T: IntArg>(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<T>> {
    let items = obj.try_iter().map_err(|_| {
        raise(
            ErrorKind::Usage,
            format!(
                "{argument}: expected a sequence of integers, not {}",
                type_name(obj)
            ),
        )
    })?;
    items
        .enumerate()
        .map(|(k, item)| int(&item?, &format!("{argument}[{k}]")))
        .collect()
}

/// An access pattern: `[step, num]` pairs.
pub fn pattern(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<[i64; 2]>> {
    let items = obj.try_iter().map_err(|_| {
        raise(
            ErrorKind::Usage,
            format!(
                "{argument}: expected [step, num] pairs, not {}",
                type_name(obj)
            ),
        )
    })?;
    items
        .enumerate()
        .map(|(k, item)| {
            let pair: Vec<i64> = ints(&item?, &format!("{argument}[{k}]"))?;
            <[i64; 2]>::try_from(pair).map_err(|p| {
                raise(
                    ErrorKind::Usage,
                    format!("{argument}[{k}]: expected a [step, num] pair, not {p:?}"),
                )
            })
        })
        .collect()
}

/// A real number as f64; an integer too large for a double is an error, not an
/// `OverflowError`.
pub fn float(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<f64> {
    if obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() {
        return obj.extract::<f64>().map_err(|_| {
            raise(
                ErrorKind::Usage,
                format!("{argument}={obj} is too large for a float"),
            )
        });
    }
    obj.call_method0("__float__")
        .and_then(|f| f.extract::<f64>())
        .map_err(|_| {
            raise(
                ErrorKind::Usage,
                format!("{argument}: expected a number, not {}", type_name(obj)),
            )
        })
}

/// Whether `obj` is a Python int (not a bool: `True` is not a register value).
pub fn is_int(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>()
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// [`int`] of an optional argument (`None` or absent: `default`). Functions that take one
/// spell the default in their `text_signature`, so `inspect.signature` shows it.
pub fn int_or<T: IntArg>(
    obj: Option<&Bound<'_, PyAny>>,
    argument: &str,
    default: T,
) -> PyResult<T> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => int(o, argument),
        None => Ok(default),
    }
}
