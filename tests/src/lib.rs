//! Shared helpers for the end-to-end scenarios under `tests/tests/`.
