//! The plots' canvas: plotters' canvas backend at the screen's own pixel density.

use plotters::prelude::*;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

use crate::js::js_err;

/// A canvas drawn at the screen's own pixel density: the page sizes the canvas to its
/// column in CSS pixels times devicePixelRatio; plots are laid out in CSS pixels, and
/// the context's scale turns each into that many device pixels, so lines and text stay
/// sharp on a phone. Every call goes to the canvas backend but the size.
pub(crate) struct Sharp {
    inner: CanvasBackend,
    size: (u32, u32),
}

impl Sharp {
    pub(crate) fn on(canvas: HtmlCanvasElement) -> Result<Self, JsError> {
        let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let ratio = if ratio.is_finite() && ratio >= 1.0 {
            ratio
        } else {
            1.0
        };
        let size = (
            (f64::from(canvas.width()) / ratio).round() as u32,
            (f64::from(canvas.height()) / ratio).round() as u32,
        );
        let ctx: web_sys::CanvasRenderingContext2d = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| js_err("the canvas has no 2D context"))?;
        ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)
            .map_err(|_| js_err("the canvas cannot be scaled"))?;
        let inner = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("the canvas has no 2D context"))?;
        Ok(Self { inner, size })
    }
}

impl DrawingBackend for Sharp {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;
    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }
    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(v, s)
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &T,
        p: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_text(text, s, p)
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        s: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.inner.estimate_text_size(text, s)
    }
}
