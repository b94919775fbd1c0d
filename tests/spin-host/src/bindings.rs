//! Host-side bindings generated from the repository's `wit/` folder.

/// `fermyon:spin@2.0.0` sqlite, key-value and variables (`wit/deps/spin@2.0.0/`).
pub mod spin {
    wasmtime::component::bindgen!({
        world: "host",
        path: "../../wit/deps/spin@2.0.0",
        imports: { default: async | trappable },
        with: {
            "fermyon:spin/sqlite.connection": crate::sqlite::SqliteConnection,
            "fermyon:spin/key-value.store": crate::key_value::KvStore,
        },
    });
}

/// The `fermyon:spin-cron@2.0.0` world (`wit/spin-cron.wit`): the export
/// `handle-cron-event` and the types-only `cron-types` interface.
pub mod cron {
    wasmtime::component::bindgen!({
        world: "spin-cron",
        path: "../../wit/spin-cron.wit",
        exports: { default: async },
    });
}
