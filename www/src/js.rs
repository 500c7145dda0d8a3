//! The JavaScript side of the boundary: errors and values to and from JS, which the lab
//! handle and the canvas both use (and neither owns).

use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Any error as a JavaScript Error with its words.
pub(crate) fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// A value as JSON-compatible JavaScript (maps as objects).
pub(crate) fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_err)
}

/// A JavaScript value as `T`, or an error naming `what` was read.
pub(crate) fn from_js<T: serde::de::DeserializeOwned>(
    v: JsValue,
    what: &str,
) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(v).map_err(|e| js_err(format!("{what}: {}", said(e))))
}

/// serde-wasm-bindgen's error in serde's words, as the command says them: its errors are
/// JS errors ("Error: missing field"), and it asks a value where a list belongs for its
/// iterator, which throws a TypeError for a string or a number.
pub(crate) fn said(e: serde_wasm_bindgen::Error) -> String {
    let e = e.to_string();
    if e.starts_with("TypeError") {
        return "invalid type: expected a sequence".into();
    }
    e.strip_prefix("Error: ").unwrap_or(&e).into()
}
