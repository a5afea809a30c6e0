//! The fit: scale the design's columns to unit norm, solve the bounded least squares
//! (`nnls`), then the statistics: residuals, R², standard errors from σ²·(XᵀX)⁻¹ over
//! the coefficients off their bound, and the coefficients the log cannot identify (an
//! empty column, or a direction of the scaled design with no spread: SVD).

use nalgebra::{DMatrix, DVector};

use super::design::{self, Term};
use super::nnls::nnls;
use super::{Coefficient, Fit, Form, Options, Step};

/// Singular values below this share of the largest are no spread at all.
const RANK_TOL: f64 = 1e-9;
/// A null direction names the coefficients it weighs more than this (unit vector).
const NULL_WEIGHT: f64 = 0.05;

/// The bounded least-squares solution over the columns the log has.
struct Solved {
    /// The scaled design (present columns only, unit norm).
    scaled: DMatrix<f64>,
    /// The form's column of each scaled column.
    present: Vec<usize>,
    /// Each form column's norm (0: absent).
    norms: Vec<f64>,
    /// Whether each scaled column's coefficient is bounded at 0.
    bounded: Vec<bool>,
    /// The coefficients of the scaled columns.
    scaled_coef: DVector<f64>,
    /// The coefficients in the form's units, one per term (0 when absent).
    coef: Vec<f64>,
}

fn solve(x: &DMatrix<f64>, y: &DVector<f64>, terms: &[Term]) -> Result<Solved, String> {
    let norms: Vec<f64> = (0..terms.len()).map(|j| x.column(j).norm()).collect();
    let present: Vec<usize> = (0..terms.len()).filter(|&j| norms[j] > 0.0).collect();
    if x.nrows() <= present.len() {
        return Err(format!(
            "{} step(s) cannot identify {} coefficients: give at least {}",
            x.nrows(),
            present.len(),
            present.len() + 1
        ));
    }
    let scaled = x.select_columns(present.iter()) * scaling(&present, &norms);
    let bounded: Vec<bool> = present.iter().map(|&j| terms[j].bounded).collect();
    let scaled_coef = nnls(&scaled, y, &bounded);
    let mut coef = vec![0.0; terms.len()];
    for (k, &j) in present.iter().enumerate() {
        coef[j] = scaled_coef[k] / norms[j];
    }
    Ok(Solved {
        scaled,
        present,
        norms,
        bounded,
        scaled_coef,
        coef,
    })
}

/// Fits the steps in `form`; an error when there are too few steps or a bad capacity.
pub fn fit(steps: &[Step], form: Form, opts: Options) -> Result<Fit, String> {
    let capacity = check_capacity(form, opts.kv_capacity_tokens)?;
    let terms = design::terms(form);
    let scale_us = design::response_us(form);
    let rows: Vec<Vec<f64>> = steps
        .iter()
        .map(|s| design::row(form, s, capacity))
        .collect();
    let x = DMatrix::from_fn(steps.len(), terms.len(), |i, j| rows[i][j]);
    let y = DVector::from_iterator(steps.len(), steps.iter().map(|s| s.step_us / scale_us));
    let s = solve(&x, &y, terms)?;
    let fitted = &x * DVector::from_column_slice(&s.coef);
    let residuals = &y - &fitted;
    let unidentified = null_groups(&s.scaled, &s.present);
    let coefficients = coefficient_rows(terms, &s, &residuals, &unidentified);
    let ctx = Context {
        steps,
        form,
        terms,
        capacity,
        present: &s.present,
    };
    let mut warnings = ctx.missing_warnings();
    warnings.extend(unidentified.iter().map(|g| ctx.collinear_warning(g)));
    warnings.extend(bound_and_spread_warnings(
        &coefficients,
        &s.present,
        &s.bounded,
    ));
    let engine = design::engine(form, &s.coef);
    warnings.extend(engine_warnings(&engine, form, capacity, steps));
    Ok(Fit {
        form,
        steps: steps.len(),
        kv_capacity_tokens: capacity,
        coefficients,
        r2: r_squared(&y, &residuals),
        rmse_us: (residuals.norm_squared() / steps.len() as f64).sqrt() * scale_us,
        warnings,
        engine,
        measured_us: steps.iter().map(|s| s.step_us).collect(),
        predicted_us: fitted.iter().map(|v| v * scale_us).collect(),
    })
}

/// Each term's value, standard error (over the coefficients off their bound) and
/// whether the log identifies it.
fn coefficient_rows(
    terms: &[Term],
    s: &Solved,
    residuals: &DVector<f64>,
    unidentified: &[Vec<usize>],
) -> Vec<Coefficient> {
    let active: Vec<usize> = (0..s.present.len())
        .filter(|&k| !s.bounded[k] || s.scaled_coef[k] > 0.0)
        .collect();
    let se = standard_errors(&s.scaled, residuals, &active);
    terms
        .iter()
        .enumerate()
        .map(|(j, term)| {
            let k = s.present.iter().position(|&p| p == j);
            let identified = k.is_some_and(|k| !unidentified.iter().flatten().any(|&u| u == k));
            let se_j = k
                .and_then(|k| se.get(&k).copied())
                .filter(|_| identified)
                .map(|v| v / s.norms[j]);
            Coefficient {
                name: term.name.to_string(),
                unit: term.unit.to_string(),
                value: s.coef[j],
                se: se_j,
                identified,
            }
        })
        .collect()
}

fn check_capacity(form: Form, capacity: Option<f64>) -> Result<Option<f64>, String> {
    match capacity {
        Some(c) if !(c.is_finite() && c >= 1.0) => Err(format!(
            "kv capacity: expected a number of tokens >= 1, got {}",
            crate::echo::number(c)
        )),
        Some(c) if form == Form::Polynomial => Ok(Some(c)),
        _ => Ok(None),
    }
}

/// The diagonal matrix that divides each present column by its norm.
fn scaling(present: &[usize], norms: &[f64]) -> DMatrix<f64> {
    DMatrix::from_diagonal(&DVector::from_iterator(
        present.len(),
        present.iter().map(|&j| 1.0 / norms[j]),
    ))
}

/// Groups of coefficients (indices into the scaled columns) that share a direction of
/// no spread: only a combination of each group is determined.
fn null_groups(scaled: &DMatrix<f64>, present: &[usize]) -> Vec<Vec<usize>> {
    if present.is_empty() {
        return Vec::new();
    }
    let svd = scaled.clone().svd(false, true);
    let v_t = svd.v_t.expect("V was computed");
    let largest = svd.singular_values.max();
    (0..svd.singular_values.len())
        .filter(|&i| svd.singular_values[i] <= RANK_TOL * largest)
        .map(|i| {
            (0..present.len())
                .filter(|&k| v_t[(i, k)].abs() > NULL_WEIGHT)
                .collect()
        })
        .collect()
}

/// σ·sqrt(diag((XᵀX)⁻¹)) over the `active` scaled columns (σ² = RSS / (n − active)).
fn standard_errors(
    scaled: &DMatrix<f64>,
    residuals: &DVector<f64>,
    active: &[usize],
) -> std::collections::BTreeMap<usize, f64> {
    let mut out = std::collections::BTreeMap::new();
    let dof = scaled.nrows().saturating_sub(active.len());
    if active.is_empty() || dof == 0 {
        return out;
    }
    let sigma2 = residuals.norm_squared() / dof as f64;
    let svd = scaled.select_columns(active.iter()).svd(false, true);
    let v_t = svd.v_t.expect("V was computed");
    let largest = svd.singular_values.max();
    for (k, &j) in active.iter().enumerate() {
        let var: f64 = (0..svd.singular_values.len())
            .filter(|&i| svd.singular_values[i] > RANK_TOL * largest)
            .map(|i| (v_t[(i, k)] / svd.singular_values[i]).powi(2))
            .sum();
        out.insert(j, (sigma2 * var).sqrt());
    }
    out
}

fn r_squared(y: &DVector<f64>, residuals: &DVector<f64>) -> Option<f64> {
    let mean = y.mean();
    let total: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    (total > 0.0).then(|| 1.0 - residuals.norm_squared() / total)
}

/// What the warnings need to know of the log.
struct Context<'a> {
    steps: &'a [Step],
    form: Form,
    terms: &'a [Term],
    capacity: Option<f64>,
    present: &'a [usize],
}

impl Context<'_> {
    /// Coefficients with no column: what the log lacks (one warning per reason).
    fn missing_warnings(&self) -> Vec<String> {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for (j, term) in self.terms.iter().enumerate() {
            if self.present.contains(&j) {
                continue;
            }
            let no_capacity = self.form == Form::Polynomial && j >= 4 && self.capacity.is_none();
            let why = if no_capacity {
                design::NO_CAPACITY
            } else {
                term.lacks
            };
            match groups.iter_mut().find(|(w, _)| *w == why) {
                Some((_, names)) => names.push(term.name),
                None => groups.push((why, vec![term.name])),
            }
        }
        groups
            .into_iter()
            .map(|(why, names)| {
                let zero = if names.len() > 1 {
                    "each set to 0"
                } else {
                    "set to 0"
                };
                format!("{} not identified: {why}; {zero}", names.join(" and "))
            })
            .collect()
    }

    /// A group of coefficients whose columns move together in this log.
    fn collinear_warning(&self, group: &[usize]) -> String {
        let names: Vec<&str> = group
            .iter()
            .map(|&k| self.terms[self.present[k]].name)
            .collect();
        let decode_only = self
            .steps
            .iter()
            .any(|s| s.prefill_tokens == 0 && s.decode_seqs > 0);
        let prefill_only = self
            .steps
            .iter()
            .any(|s| s.prefill_tokens > 0 && s.decode_seqs == 0);
        let mut why = Vec::new();
        if !decode_only {
            why.push("the log has no decode-only steps (prefill_tokens 0, decode_seqs > 0)");
        }
        if !prefill_only {
            why.push("the log has no prefill-only steps (decode_seqs 0, prefill_tokens > 0)");
        }
        if why.is_empty() {
            why.push("their columns are proportional in this log (for example every step reads the same KV per decoding sequence)");
        }
        format!(
            "{} cannot be told apart: {}; only their combination is fitted (no standard errors)",
            names.join(" and "),
            why.join(", and ")
        )
    }
}

/// Coefficients held at their bound, and identified ones whose standard error is more
/// than half their value.
fn bound_and_spread_warnings(
    coefficients: &[Coefficient],
    present: &[usize],
    bounded: &[bool],
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, &j) in present.iter().enumerate() {
        let c = &coefficients[j];
        if !c.identified {
            continue;
        }
        if bounded[k] && c.value == 0.0 {
            out.push(format!(
                "{} held at 0: the unbounded fit would make it negative",
                c.name
            ));
        } else if let Some(se) = c.se.filter(|se| *se > 0.5 * c.value.abs()) {
            out.push(format!(
                "{} = {} ± {} {}: the log barely determines it (standard error over half its value)",
                c.name,
                significant(c.value),
                significant(se),
                c.unit
            ));
        }
    }
    out
}

/// A fitted polynomial the engine would refuse, and utilisations above 1.
fn engine_warnings(
    engine: &crate::timing::Timing,
    form: Form,
    capacity: Option<f64>,
    steps: &[Step],
) -> Vec<String> {
    let mut out = Vec::new();
    if form != Form::Polynomial {
        return out;
    }
    for (name, poly, over_u) in [
        ("prefill_poly_ms", engine.prefill_poly_ms, false),
        ("decode_poly_ms", engine.decode_poly_ms, true),
    ] {
        if let Some(rule) = crate::timing::poly_problem(poly, over_u) {
            out.push(format!(
                "the fitted {name} breaks the engine's rule: {rule}"
            ));
        }
    }
    if let Some(c) = capacity {
        let over = steps.iter().filter(|s| s.kv_tokens_read as f64 > c).count();
        if over > 0 {
            out.push(format!(
                "{over} step(s) read more KV than the capacity of {} tokens (u > 1): is it the capacity the log was measured at?",
                crate::echo::number(c)
            ));
        }
    }
    out
}

/// `x` to 4 significant digits, as a message shows it.
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return crate::echo::number(x);
    }
    let scale = libm::pow(10.0, 3.0 - libm::floor(libm::log10(x.abs())));
    crate::echo::number(libm::round(x * scale) / scale)
}
