//! Python modules looked up once per process: `py.import` goes through `__import__` on every
//! call (about a microsecond), and one kernel call converts several dtypes and arrays.

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

#[cfg(test)]
mod tests {
    use pyo3::prelude::*;

    // The cached module is the one `import` gives, and an unknown one is an ImportError
    // each time (nothing is cached for it).
    #[test]
    fn a_cached_module_is_the_imported_one() {
        Python::initialize();
        Python::attach(|py| {
            let a = module!(py, "math").unwrap().clone();
            let b = py.import("math").unwrap();
            assert!(a.is(&b));
            for _ in 0..2 {
                let e = module!(py, "tpb_no_such_module").unwrap_err();
                assert!(e.is_instance_of::<pyo3::exceptions::PyImportError>(py));
            }
        });
    }
}
