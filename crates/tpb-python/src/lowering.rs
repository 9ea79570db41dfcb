//! `tpb._tpb.Lowering`: the one native entry of every NKI call (issue 26 item 3).
//!
//! A call's Python definition (`python/tpb/nki/isa.py`) registers its parameters with the
//! kind each one's type declares; calling the `Lowering` converts every argument by its
//! kind — the same converters for every call, each error a `tpb.UsageError` naming the call
//! and the parameter (a wrong kind of value a `tpb._errors.KindError`, so that the call can
//! try its legacy forms) — labels the instructions with the kernel line, `name=` and
//! `engine=`, and runs the call's Rust lowering (`tpb_nki::call`) with the GIL released.

use crate::args;
use crate::errors::{raise, raise_with, ErrorKind};
use crate::machine::RunReport;
use crate::nki::{nki_error, Core, Tile};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};
use std::sync::{Arc, Mutex};
use tpb_nki::call::{intern, Arg, Args};
use tpb_nki::{act_func, alu_op, Cmp, Label, NkiEngine, NkiError, Operand, ReduceCmd};
use tpb_sim::engines::EngineId;

/// What kind of value a parameter takes (the `Kind` of its Python type,
/// `tpb.nki._types`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tile,
    Operand,
    Alu,
    Cmp,
    Act,
    Bool,
    Int,
    Float,
    Pattern,
    Ints,
    Axes,
    ReduceCmd,
    Engine,
    Choice,
    Name,
}

impl Kind {
    /// Whether a value of this kind is a singleton worth remembering by identity.
    fn memoized(self) -> bool {
        matches!(
            self,
            Kind::Alu | Kind::Cmp | Kind::Act | Kind::ReduceCmd | Kind::Engine | Kind::Choice
        )
    }

    const ALL: [(&'static str, Kind, &'static str); 15] = [
        ("tile", Kind::Tile, "a tile"),
        ("operand", Kind::Operand, "a number or a (P, 1) tile"),
        (
            "alu",
            Kind::Alu,
            "an ALU operator (nl.add, numpy.multiply or a name)",
        ),
        (
            "cmp",
            Kind::Cmp,
            "a comparison (nl.greater_equal, numpy.equal or a name)",
        ),
        (
            "act",
            Kind::Act,
            "an activation function (nl.exp, numpy.tanh or a name)",
        ),
        ("bool", Kind::Bool, "True or False"),
        ("int", Kind::Int, "an int"),
        ("float", Kind::Float, "a number"),
        ("pattern", Kind::Pattern, "[step, num] pairs"),
        ("ints", Kind::Ints, "a list of ints"),
        ("axes", Kind::Axes, "an int or a list of ints"),
        (
            "reduce_cmd",
            Kind::ReduceCmd,
            "a reduce_cmd member or its name",
        ),
        ("engine", Kind::Engine, "an engine member or its name"),
        ("choice", Kind::Choice, "an enumeration member or its name"),
        ("name", Kind::Name, "a str"),
    ];

    fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.iter().find(|k| k.0 == s).map(|k| k.1)
    }

    fn text(self) -> &'static str {
        Kind::ALL.iter().find(|k| k.1 == self).map_or("?", |k| k.0)
    }

    fn what(self) -> &'static str {
        Kind::ALL.iter().find(|k| k.1 == self).map_or("?", |k| k.2)
    }
}

struct Param {
    name: &'static str,
    kind: Kind,
    optional: bool,
}

/// One NKI call's native entry: `lowering(origin, *args)` with the arguments in the
/// definition's parameter order.
#[pyclass(module = "tpb._tpb", name = "Lowering", frozen)]
pub struct Lowering {
    call: &'static tpb_nki::Lowering,
    qualname: String,
    params: Vec<Param>,
    names: Vec<&'static str>,
    /// The last origin seen and its shared text (a loop's calls come from one line).
    origin: Mutex<Option<(Py<PyString>, Arc<str>)>>,
    /// Per parameter, the last operator or enumeration member converted and its value:
    /// `nl.multiply` or `engine.unknown` is the same object call after call.
    memo: Mutex<Vec<Option<Seen>>>,
}

/// An argument object and the value it converted to.
type Seen = (Py<PyAny>, Arg);

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// The name of an operator argument: a str, or a callable's `__name__`.
fn operator_name(obj: &Bound<'_, PyAny>) -> Option<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_cow().ok().map(|c| c.into_owned());
    }
    if obj.cast::<Tile>().is_ok() {
        return None;
    }
    obj.getattr("__name__").ok()?.extract::<String>().ok()
}

/// The name of an enumeration argument: a str, an enum member's `name`, or an int (NKI's
/// member number).
fn member_name(obj: &Bound<'_, PyAny>) -> Option<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_cow().ok().map(|c| c.into_owned());
    }
    if obj.is_instance_of::<PyBool>() {
        return None;
    }
    if obj.is_instance_of::<PyInt>() && !obj.hasattr("name").unwrap_or(false) {
        return obj.extract::<i64>().ok().map(|n| n.to_string());
    }
    obj.getattr("name").ok()?.extract::<String>().ok()
}

/// The queue an `engine=` name puts a call on (`None`: the compiler's choice).
fn label_engine(e: NkiEngine) -> Option<EngineId> {
    match e {
        NkiEngine::Vector => Some(EngineId::Dve),
        NkiEngine::Gpsimd => Some(EngineId::Pool),
        NkiEngine::Scalar => Some(EngineId::Act),
        NkiEngine::Tensor => Some(EngineId::Pe),
        _ => None,
    }
}

/// What a call's arguments set on the core besides the values: its label.
#[derive(Default)]
struct CallLabel {
    name: Option<Arc<str>>,
    engine: Option<EngineId>,
}

impl Lowering {
    fn usage(&self, param: &str, detail: impl std::fmt::Display) -> PyErr {
        let call = self.qualname.clone();
        let parameter = param.to_string();
        raise_with(
            ErrorKind::Usage,
            format!("{}: {param}: {detail}", self.qualname),
            move |kw| {
                kw.set_item("call", call)?;
                kw.set_item("parameter", parameter)
            },
        )
    }

    fn kind_error(&self, p: &Param, obj: &Bound<'_, PyAny>) -> PyErr {
        let what = if obj.is_none() {
            "None".to_string()
        } else {
            type_name(obj)
        };
        let call = self.qualname.clone();
        let parameter = p.name.to_string();
        raise_with(
            ErrorKind::Kind,
            format!(
                "{}: {}: expected {}, not {what}",
                self.qualname,
                p.name,
                p.kind.what()
            ),
            move |kw| {
                kw.set_item("call", call)?;
                kw.set_item("parameter", parameter)
            },
        )
    }

    /// `obj` as a tile of `core` (the call's first tile sets it).
    fn tile(
        &self,
        p: &Param,
        obj: &Bound<'_, PyAny>,
        core: &mut Option<Py<Core>>,
    ) -> PyResult<tpb_nki::Tile> {
        let t = obj.cast::<Tile>().map_err(|_| self.kind_error(p, obj))?;
        let t = t.get();
        let py = obj.py();
        match core {
            None => *core = Some(t.core.clone_ref(py)),
            Some(c) if !c.bind(py).is(t.core.bind(py)) => {
                return Err(self.usage(p.name, "belongs to another Core than the call's first tile"))
            }
            Some(_) => {}
        }
        Ok(t.tile.clone())
    }

    fn number(&self, p: &Param, obj: &Bound<'_, PyAny>) -> PyResult<f64> {
        if obj.is_instance_of::<PyBool>() {
            return Err(self.kind_error(p, obj));
        }
        if obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() {
            return args::float(obj, p.name)
                .map_err(|_| self.usage(p.name, format!("{obj} is too large for a float")));
        }
        // NumPy scalars convert through __float__; a tile, a list or a str does not.
        if obj.cast::<Tile>().is_ok() || obj.cast::<PyString>().is_ok() {
            return Err(self.kind_error(p, obj));
        }
        obj.extract::<f64>().map_err(|_| self.kind_error(p, obj))
    }

    fn integer(&self, p: &Param, obj: &Bound<'_, PyAny>) -> PyResult<i64> {
        if obj.is_instance_of::<PyBool>()
            || obj.is_instance_of::<PyFloat>()
            || !obj.hasattr("__index__").unwrap_or(false)
        {
            return Err(self.kind_error(p, obj));
        }
        args::int::<i64>(obj, p.name).map_err(|e| self.usage(p.name, e.value(obj.py())))
    }

    fn ints(&self, p: &Param, obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
        if obj.cast::<PyString>().is_ok() || obj.try_iter().is_err() {
            return Err(self.kind_error(p, obj));
        }
        let items = obj.try_iter()?;
        items
            .enumerate()
            .map(|(k, item)| {
                let item = item?;
                if item.is_instance_of::<PyBool>() || item.is_instance_of::<PyFloat>() {
                    return Err(self.usage(
                        &format!("{}[{k}]", p.name),
                        format!("{item:?} is not an int"),
                    ));
                }
                // The common case without building the element's name for an error.
                if let Ok(Ok(v)) = item.cast::<PyInt>().map(|i| i.extract::<i64>()) {
                    return Ok(v);
                }
                args::int::<i64>(&item, &format!("{}[{k}]", p.name))
                    .map_err(|e| self.usage(p.name, e.value(obj.py())))
            })
            .collect()
    }

    fn convert(
        &self,
        p: &Param,
        obj: &Bound<'_, PyAny>,
        core: &mut Option<Py<Core>>,
        label: &mut CallLabel,
    ) -> PyResult<Arg> {
        if obj.is_none() {
            return if p.optional {
                Ok(Arg::Absent)
            } else {
                Err(self.kind_error(p, obj))
            };
        }
        Ok(match p.kind {
            Kind::Tile => Arg::Tile(self.tile(p, obj, core)?),
            Kind::Operand => {
                if obj.cast::<Tile>().is_ok() {
                    Arg::Operand(Operand::Tile(self.tile(p, obj, core)?))
                } else {
                    Arg::Operand(Operand::Imm(self.number(p, obj)?))
                }
            }
            Kind::Alu => {
                let name = operator_name(obj).ok_or_else(|| self.kind_error(p, obj))?;
                Arg::Alu(alu_op(&name).ok_or_else(|| {
                    self.usage(
                        p.name,
                        format!(
                            "unknown operator {name:?} (numpy ufunc names such as multiply, \
                             greater_equal, or ISA ALU_OP names)"
                        ),
                    )
                })?)
            }
            Kind::Cmp => {
                let name = operator_name(obj).ok_or_else(|| self.kind_error(p, obj))?;
                Arg::Cmp(Cmp::parse(&name).ok_or_else(|| {
                    self.usage(
                        p.name,
                        format!(
                            "{name:?} is not a comparison (greater, greater_equal, equal, \
                             not_equal, less, less_equal)"
                        ),
                    )
                })?)
            }
            Kind::Act => {
                let name = operator_name(obj).ok_or_else(|| self.kind_error(p, obj))?;
                Arg::Act(act_func(&name).map_err(|e| self.lowering_error(e))?)
            }
            Kind::Bool => Arg::Bool(obj.extract::<bool>().map_err(|_| self.kind_error(p, obj))?),
            Kind::Int => Arg::Int(self.integer(p, obj)?),
            Kind::Float => Arg::Float(self.number(p, obj)?),
            Kind::Pattern => {
                if obj.cast::<PyString>().is_ok() || obj.try_iter().is_err() {
                    return Err(self.kind_error(p, obj));
                }
                Arg::Pattern(args::pattern(obj, p.name).map_err(|e| {
                    let msg = e.value(obj.py()).to_string();
                    self.usage(p.name, msg.trim_start_matches("pattern: "))
                })?)
            }
            Kind::Ints => Arg::Ints(self.ints(p, obj)?),
            Kind::Axes => {
                if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
                    Arg::Ints(vec![self.integer(p, obj)?])
                } else {
                    Arg::Ints(self.ints(p, obj)?)
                }
            }
            Kind::ReduceCmd => {
                let name = member_name(obj).ok_or_else(|| self.kind_error(p, obj))?;
                Arg::ReduceCmd(ReduceCmd::parse(&name).ok_or_else(|| {
                    self.usage(
                        p.name,
                        format!(
                            "{name:?} is not one of idle, reset, reduce, reset_reduce, load_reduce"
                        ),
                    )
                })?)
            }
            Kind::Engine => {
                let name = member_name(obj).ok_or_else(|| self.kind_error(p, obj))?;
                let key = name.rsplit('.').next().unwrap_or(&name);
                let e = NkiEngine::parse(key).ok_or_else(|| {
                    self.usage(
                        p.name,
                        format!("{name:?} is not one of unknown, vector, gpsimd, scalar, tensor"),
                    )
                })?;
                label.engine = label_engine(e);
                Arg::Engine(e)
            }
            Kind::Choice => Arg::Choice(member_name(obj).ok_or_else(|| self.kind_error(p, obj))?),
            Kind::Name => {
                let s = obj
                    .cast::<PyString>()
                    .map_err(|_| self.kind_error(p, obj))?;
                label.name = Some(Arc::from(s.to_cow()?.as_ref()));
                Arg::Absent
            }
        })
    }

    /// A lowering's error as the matching `tpb` exception; argument errors name the call.
    fn lowering_error(&self, e: NkiError) -> PyErr {
        match e {
            NkiError::Shape { .. }
            | NkiError::Pack { .. }
            | NkiError::Pattern { .. }
            | NkiError::Operator { .. }
            | NkiError::Value { .. } => raise(ErrorKind::Usage, format!("{}: {e}", self.qualname)),
            other => nki_error(other),
        }
    }

    fn origin(&self, origin: Option<&Bound<'_, PyString>>) -> PyResult<Option<Arc<str>>> {
        let Some(o) = origin else {
            return Ok(None);
        };
        let last = self.origin.try_lock().ok();
        if let Some((obj, text)) = last.as_ref().and_then(|l| l.as_ref()) {
            if obj.bind(o.py()).is(o) {
                return Ok(Some(text.clone()));
            }
        }
        let text: Arc<str> = Arc::from(o.to_cow()?.as_ref());
        if let Some(mut l) = last {
            *l = Some((o.clone().unbind(), text.clone()));
        }
        Ok(Some(text))
    }
}

#[pymethods]
impl Lowering {
    /// The lowering of the NKI call `name` (`tpb_nki::call`), its arguments converted by
    /// `params`: `(parameter, kind)` pairs in order, a kind being `tile`, `operand`, `alu`,
    /// `cmp`, `act`, `bool`, `int`, `float`, `pattern`, `ints`, `axes`, `reduce_cmd`,
    /// `engine`, `choice` or `name`, with `?` when `None` is accepted. `qualname`
    /// (`nki.isa.tensor_scalar`) starts its error messages.
    #[new]
    fn new(name: &str, qualname: &str, params: Vec<(String, String)>) -> PyResult<Lowering> {
        let call = tpb_nki::lowering(name).ok_or_else(|| {
            raise(
                ErrorKind::Usage,
                format!("{qualname}: no Rust lowering is named {name:?} (tpb_nki::call)"),
            )
        })?;
        let params = params
            .iter()
            .map(|(n, k)| {
                let (text, optional) = match k.strip_suffix('?') {
                    Some(t) => (t, true),
                    None => (k.as_str(), false),
                };
                let kind = Kind::parse(text).ok_or_else(|| {
                    raise(
                        ErrorKind::Usage,
                        format!("{qualname}: parameter {n}: unknown kind {k:?}"),
                    )
                })?;
                Ok(Param {
                    name: intern(n),
                    kind,
                    optional: optional || kind == Kind::Name,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let names = params.iter().map(|p| p.name).collect();
        let memo = Mutex::new(params.iter().map(|_| None).collect());
        Ok(Lowering {
            call,
            qualname: qualname.to_string(),
            params,
            names,
            origin: Mutex::new(None),
            memo,
        })
    }

    /// The lowering's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.call.name
    }

    /// The call's qualified name (`nki.isa.tensor_scalar`).
    #[getter]
    fn qualname(&self) -> String {
        self.qualname.clone()
    }

    /// `(parameter, kind)` pairs, as registered.
    #[getter]
    fn params(&self) -> Vec<(&'static str, String)> {
        self.params
            .iter()
            .map(|p| {
                let q = if p.optional && p.kind != Kind::Name {
                    "?"
                } else {
                    ""
                };
                (p.name, format!("{}{q}", p.kind.text()))
            })
            .collect()
    }

    /// Runs the call: `origin` is the kernel's `file:line` (or `None`), `args` one per
    /// parameter in order. Returns the report of the instructions it ran.
    #[pyo3(signature = (origin, *args))]
    fn __call__(
        &self,
        py: Python<'_>,
        origin: Option<&Bound<'_, PyString>>,
        args: &Bound<'_, PyTuple>,
    ) -> PyResult<RunReport> {
        if args.len() != self.params.len() {
            return Err(raise(
                ErrorKind::Usage,
                format!(
                    "{}: the lowering takes {} arguments, not {}",
                    self.qualname,
                    self.params.len(),
                    args.len()
                ),
            ));
        }
        let mut core: Option<Py<Core>> = None;
        let mut label = CallLabel::default();
        let mut values = Vec::with_capacity(self.params.len());
        {
            // Converting may run Python code (an enum's `name`), which may let another thread
            // call this lowering: that thread skips the memo rather than wait for it.
            let mut memo = self.memo.try_lock().ok();
            for (i, (p, obj)) in self.params.iter().zip(args.iter()).enumerate() {
                let last = memo.as_mut().and_then(|m| m.get_mut(i));
                if let Some(Some((seen, value))) = last.as_deref() {
                    if seen.bind(py).is(&obj) {
                        if let Arg::Engine(e) = value {
                            label.engine = label_engine(*e);
                        }
                        values.push(value.clone());
                        continue;
                    }
                }
                let value = self.convert(p, &obj, &mut core, &mut label)?;
                if let Some(slot) = last.filter(|_| p.kind.memoized() && !obj.is_none()) {
                    *slot = Some((obj.clone().unbind(), value.clone()));
                }
                values.push(value);
            }
        }
        let core = core.ok_or_else(|| {
            raise(
                ErrorKind::Usage,
                format!(
                    "{}: the call has no tile (it needs one to find its core)",
                    self.qualname
                ),
            )
        })?;
        let origin = self.origin(origin)?;
        let mut guard = core.get().lock(py);
        let inner = &mut *guard;
        inner.set_call(Label {
            origin,
            name: label.name,
            engine: label.engine,
            approximate: None,
        });
        let call = self.call;
        let a = Args::new(&self.names, &values);
        let steps = py.detach(|| (call.lower)(inner, &a));
        drop(guard);
        Ok(RunReport::from_steps(
            &steps.map_err(|e| self.lowering_error(e))?,
        ))
    }

    fn __repr__(&self) -> String {
        format!("<tpb.Lowering {}>", self.qualname)
    }
}

/// The name of every Rust lowering (`tpb_nki::lowerings`).
#[pyfunction]
pub fn _lowerings() -> Vec<&'static str> {
    tpb_nki::lowerings().map(|l| l.name).collect()
}
