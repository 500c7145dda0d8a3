//! Time against work: least squares, the least-values fit, and the tick-quantized step.
//!
//! The required time of a run is its smallest timing (Krutar, "Tuning a Timer"), so each size N is run many
//! times, interleaved across sizes, and the per-N minimum is fitted. The least-values fit is
//! the line under every point with the least total excess: it maximises
//! `intercept + slope × mean(x)` under `intercept + slope × xᵢ ≤ yᵢ`, whose optimum is the
//! edge of the lower convex hull spanning mean(x), found in O(n log n) without an LP solver.
//! Subtracting a straight line from tick-quantized timings leaves a Moiré sawtooth; a step
//! function with the fitted slope and the tick's quantization leaves flat bands instead.
//! A clock too coarse for its budget to hold runs of many ticks is fitted through
//! interpolation instead: runs of a few ticks or less, each begun on an edge and ended by counting
//! reads to the next.

//!
//! `estimate.rs` holds the estimators, `experiment.rs` the timed runs, `interpolated.rs` the
//! runs timed through interpolation.

pub mod estimate;
pub mod experiment;
mod interpolated;

pub use estimate::{least_values, ols, step_fit, LeastValues, Line, Ols, Step};
pub use experiment::{measure, measure_against, FitOptions, FitPoint, FitResult, Reference};
pub use interpolated::{measure_interpolated, measure_interpolated_against};
