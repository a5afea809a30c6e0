//! Seeded randomness: one seed forks an independent xoshiro256++ stream per subsystem,
//! and samplers built only on `libm`, so native and wasm draw bit-identical numbers.
//! `Rng` implements `rand_core`'s `RngCore` and `SeedableRng`, so any sampler written
//! against those traits can draw from the same streams.

/// A xoshiro256++ generator seeded through SplitMix64.
#[derive(Clone, Debug)]
pub struct Rng {
    state: [u64; 4],
}

/// One step of SplitMix64: a good 64-bit mixer for seeds and hashes.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Named streams, one per subsystem, so that adding draws to one never shifts another.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// Inter-arrival times.
    Arrivals = 1,
    /// Prompt and output lengths.
    Lengths = 2,
    /// Which prefix each request uses.
    Prefixes = 3,
    /// The `random` router.
    Router = 4,
    /// Session-affinity draws.
    Affinity = 5,
    /// The `random` decode-replica pick of a disaggregated fleet.
    DecodeRouter = 6,
    /// Ties between equally good replicas (drawn only when there is a tie).
    Ties = 7,
    /// The shapes and noise of a generated step log (`calibrate::sample`).
    StepLog = 8,
    /// The arrivals, lengths and noise of a generated request log
    /// (`calibrate::request_sample`).
    RequestLog = 9,
}

impl Rng {
    /// The generator for one subsystem `stream` under the run's `seed`.
    pub fn fork(seed: u64, stream: Stream) -> Rng {
        Rng::expand(seed ^ (stream as u64).wrapping_mul(0xA076_1D64_78BD_642F))
    }

    /// The state from one 64-bit value: SplitMix64 applied again and again, from the
    /// mixed value on (the expansion every stream and `seed_from_u64` use).
    fn expand(value: u64) -> Rng {
        let mut x = splitmix64(value);
        let mut state = [0u64; 4];
        for slot in &mut state {
            x = splitmix64(x);
            *slot = x;
        }
        Rng { state }
    }

    /// The generator of `stream` for router replica `nth`: router 0 draws exactly what
    /// `fork(seed, stream)` draws, each other router its own independent stream.
    pub fn fork_nth(seed: u64, stream: Stream, nth: u32) -> Rng {
        if nth == 0 {
            return Rng::fork(seed, stream);
        }
        Rng::fork(
            splitmix64(seed ^ (nth as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93)),
            stream,
        )
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1], never zero (safe under `ln`).
    pub fn next_open_f64(&mut self) -> f64 {
        1.0 - self.next_f64()
    }

    /// Uniform integer in [0, n), n > 0 (Lemire's multiply, unbiased enough for n << 2^64).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform integer in [lo, hi] inclusive.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        lo + self.below(hi - lo + 1)
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.next_open_f64())
    }

    /// Standard normal (Box-Muller, one of the pair).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.next_open_f64();
        let u2 = self.next_f64();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * core::f64::consts::PI * u2)
    }

    /// Gamma(shape, scale) by Marsaglia and Tsang (with the boost for shape < 1).
    pub fn gamma(&mut self, shape: f64, scale: f64) -> f64 {
        if shape < 1.0 {
            let boost = libm::pow(self.next_open_f64(), 1.0 / shape);
            return self.gamma(shape + 1.0, scale) * boost;
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / libm::sqrt(9.0 * d);
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = self.next_open_f64();
            if libm::log(u) < 0.5 * x * x + d - d * v + d * libm::log(v) {
                return d * v * scale;
            }
        }
    }
}

impl rand_core::RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        (Rng::next_u64(self) >> 32) as u32
    }

    fn next_u64(&mut self) -> u64 {
        Rng::next_u64(self)
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        rand_core::impls::fill_bytes_via_next(self, dst)
    }
}

impl rand_core::SeedableRng for Rng {
    /// The four state words, little-endian (as `rand_xoshiro::Xoshiro256PlusPlus` reads
    /// them). An all-zero state would draw only zeros: it becomes `seed_from_u64(0)`.
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> Rng {
        let mut state = [0u64; 4];
        for (slot, bytes) in state.iter_mut().zip(seed.chunks_exact(8)) {
            *slot = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        }
        if state == [0; 4] {
            return Rng::expand(0);
        }
        Rng { state }
    }

    /// This crate's own expansion (not `rand_core`'s default PCG32 one): every stream of
    /// `fork` is `seed_from_u64` of the seed mixed with the stream's number, so the draws
    /// for a given `--seed` never change.
    fn seed_from_u64(value: u64) -> Rng {
        Rng::expand(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::fork(7, Stream::Arrivals);
        let mut b = Rng::fork(7, Stream::Arrivals);
        let mut c = Rng::fork(7, Stream::Lengths);
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn sampler_means_are_right() {
        let mut r = Rng::fork(1, Stream::Arrivals);
        let n = 200_000;
        let exp_mean = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((exp_mean - 2.0).abs() < 0.03, "{exp_mean}");
        for shape in [0.25, 1.0, 4.0] {
            let g_mean = (0..n).map(|_| r.gamma(shape, 2.0 / shape)).sum::<f64>() / n as f64;
            assert!((g_mean - 2.0).abs() < 0.05, "shape {shape}: {g_mean}");
        }
        let below_max = (0..1000).map(|_| r.below(10)).max().unwrap();
        assert_eq!(below_max, 9);
    }
}
