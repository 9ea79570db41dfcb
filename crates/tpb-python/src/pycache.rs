//! Python modules looked up once per process: `py.import` goes through `__import__` on every
//! call (about a microsecond), and one kernel call converts several dtypes and arrays. (This
//! crate's tests are the pytest suite, which converts through these modules throughout.)

/// `import $name`, made once per process: `&Bound<'py, PyModule>` (a `PyResult`).
macro_rules! module {
    ($py:expr, $name:literal) => {{
        static MODULE: pyo3::sync::PyOnceLock<pyo3::Py<pyo3::types::PyModule>> =
            pyo3::sync::PyOnceLock::new();
        let py = $py;
        MODULE
            .get_or_try_init(py, || {
                pyo3::types::PyModule::import(py, $name).map(pyo3::Bound::unbind)
            })
            .map(|m| m.bind(py))
    }};
}

pub(crate) use module;
