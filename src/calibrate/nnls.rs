//! Least squares with sign bounds on nalgebra's SVD: Lawson and Hanson's active-set
//! method for non-negative least squares ("Solving Least Squares Problems", 1974,
//! ch. 23), with some coefficients left free (always in the passive set). The
//! least-squares steps use the SVD's minimum-norm solution, so collinear columns do not
//! break it (`fit` reports them as not identified).

use nalgebra::{DMatrix, DVector};

/// Least squares on the columns `cols` of `a`, the other coefficients 0.
pub fn subset_ls(a: &DMatrix<f64>, b: &DVector<f64>, cols: &[usize]) -> DVector<f64> {
    let mut x = DVector::zeros(a.ncols());
    if cols.is_empty() {
        return x;
    }
    let sub = a.select_columns(cols.iter());
    let svd = sub.svd(true, true);
    let largest = svd.singular_values.max();
    let eps = largest * 1e-12 * a.nrows().max(cols.len()) as f64;
    let z = svd.solve(b, eps).expect("both factors were computed");
    for (k, &j) in cols.iter().enumerate() {
        x[j] = z[k];
    }
    x
}

fn members(set: &[bool]) -> Vec<usize> {
    (0..set.len()).filter(|&j| set[j]).collect()
}

/// min |a·x − b| subject to x_j >= 0 for every `bounded` j; `a`'s columns should have
/// comparable norms (the caller scales them to 1).
pub fn nnls(a: &DMatrix<f64>, b: &DVector<f64>, bounded: &[bool]) -> DVector<f64> {
    let n = a.ncols();
    let mut passive: Vec<bool> = bounded.iter().map(|&c| !c).collect();
    let mut x = subset_ls(a, b, &members(&passive));
    let tol = 1e-12 * b.norm().max(f64::MIN_POSITIVE);
    let mut refused = vec![false; n];
    for _ in 0..3 * n + 3 {
        let w = a.tr_mul(&(b - a * &x));
        let pick = (0..n)
            .filter(|&j| bounded[j] && !passive[j] && !refused[j] && w[j] > tol)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]));
        let Some(t) = pick else { break };
        passive[t] = true;
        for _ in 0..3 * n + 3 {
            let z = subset_ls(a, b, &members(&passive));
            let low: Vec<usize> = (0..n)
                .filter(|&j| passive[j] && bounded[j] && z[j] <= 0.0)
                .collect();
            if low.is_empty() {
                x = z;
                break;
            }
            let alpha = low
                .iter()
                .map(|&j| x[j] / (x[j] - z[j]))
                .fold(f64::INFINITY, f64::min)
                .clamp(0.0, 1.0);
            x += (z - &x) * alpha;
            for j in 0..n {
                if passive[j] && bounded[j] && x[j] <= 0.0 {
                    passive[j] = false;
                    x[j] = 0.0;
                    // A column that enters and leaves at once would loop: not again.
                    refused[j] |= j == t;
                }
            }
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negative_coefficient_is_held_at_zero() {
        // y = 2·a − 1·b exactly; with b bounded, the best is b = 0 and a = the projection.
        let a = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        let b = DVector::from_row_slice(&[2.0, -1.0, 1.0]);
        let x = nnls(&a, &b, &[true, true]);
        assert_eq!(x[1], 0.0);
        // a minimises (a − 2)² + (a − 1)²: 1.5.
        assert!((x[0] - 1.5).abs() < 1e-12, "{x}");
        // Free, b comes out at −1.
        let x = nnls(&a, &b, &[true, false]);
        assert!(
            (x[0] - 2.0).abs() < 1e-12 && (x[1] + 1.0).abs() < 1e-12,
            "{x}"
        );
    }
}
