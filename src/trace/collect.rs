//! Turning checked lines into the request list: arrival scaling, the backwards-time
//! check (or the stable sort), `max_requests`, ids by position, the empty-input error.

use super::scalar::Number;
use super::{TraceError, TraceOptions};
use crate::limits::{memory, MAX_TIME_US, MEMORY_LIMIT_BYTES};
use crate::Request;

/// One line's request before it gets an id and a scaled arrival.
#[derive(Debug, PartialEq)]
pub(super) struct Parsed {
    /// The time as written, and its unit.
    pub(super) time: Number,
    pub(super) unit: TimeUnit,
    pub(super) prompt_tokens: u32,
    pub(super) output_tokens: u32,
    pub(super) block_ids: Vec<u64>,
}

/// The unit of a time field, with its name for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TimeUnit {
    pub(super) us: u64,
    pub(super) name: &'static str,
}

pub(super) const MS: TimeUnit = TimeUnit {
    us: 1000,
    name: "ms",
};
pub(super) const SECONDS: TimeUnit = TimeUnit {
    us: 1_000_000,
    name: "s",
};
pub(super) const US: TimeUnit = TimeUnit { us: 1, name: "µs" };

/// Accumulates requests in file order.
pub(super) struct Collector<'a> {
    file: &'a str,
    opts: &'a TraceOptions,
    requests: Vec<Request>,
    /// The previous request's time as written, and its line.
    previous: Option<(Number, TimeUnit, u64)>,
    unsorted: bool,
    /// Bytes held by the block ids read so far.
    ids_bytes: u64,
}

impl<'a> Collector<'a> {
    pub(super) fn new(file: &'a str, opts: &'a TraceOptions) -> Self {
        Collector {
            file,
            opts,
            requests: Vec::new(),
            previous: None,
            unsorted: false,
            ids_bytes: 0,
        }
    }

    /// True once `max_requests` requests are in: stop reading.
    pub(super) fn is_full(&self) -> bool {
        self.opts
            .max_requests
            .is_some_and(|max| self.requests.len() as u64 >= u64::from(max))
    }

    /// Adds the request of line `line`, checking its arrival against the previous one
    /// and the memory the list needs (with the `text_bytes` read so far where the text
    /// stays resident, as in wasm32).
    pub(super) fn push(
        &mut self,
        line: u64,
        parsed: Parsed,
        text_bytes: u64,
    ) -> Result<(), TraceError> {
        let fail = |message: String| TraceError::at(self.file, line, message);
        let arrival_us = parsed
            .time
            .scaled_us(parsed.unit.us, self.opts.arrival_speedup)
            .filter(|&us| us < MAX_TIME_US)
            .ok_or_else(|| {
                fail(format!(
                    "time {} {} is too large: once scaled to µs (speedup {}) it must stay \
                     below the simulator's clock of 2^62 µs ({MAX_TIME_US} µs, about \
                     146,000 years)",
                    parsed.time, parsed.unit.name, self.opts.arrival_speedup
                ))
            })?;
        self.ids_bytes += 8 * parsed.block_ids.capacity() as u64;
        self.check_memory(line, text_bytes)?;
        let id = u32::try_from(self.requests.len())
            .map_err(|_| fail(format!("more than {} requests", u32::MAX)))?;
        if let Some(last) = self.requests.last() {
            if arrival_us < last.arrival_us {
                self.backwards(line, &parsed)?;
            }
        }
        self.previous = Some((parsed.time, parsed.unit, line));
        self.requests.push(Request {
            id,
            arrival_us,
            prompt_tokens: parsed.prompt_tokens,
            output_tokens: parsed.output_tokens,
            block_ids: parsed.block_ids.into(),
            session: None,
            output_block_ids: Vec::new(),
        });
        Ok(())
    }

    /// The list (with room for the next request) must fit the memory limit.
    fn check_memory(&self, line: u64, text_bytes: u64) -> Result<(), TraceError> {
        let slots = (self.requests.len() + 1).max(self.requests.capacity());
        let resident_text = if cfg!(target_arch = "wasm32") {
            text_bytes
        } else {
            0
        };
        let bytes =
            (slots * std::mem::size_of::<Request>()) as u64 + self.ids_bytes + resident_text;
        if bytes <= MEMORY_LIMIT_BYTES {
            return Ok(());
        }
        Err(TraceError::at(
            self.file,
            line,
            format!(
                "the {} requests read so far need an estimated {} in memory, more than the \
                 limit of {}: replay fewer with --des-max-requests",
                self.requests.len() + 1,
                memory::size(bytes as f64),
                memory::size(MEMORY_LIMIT_BYTES as f64)
            ),
        ))
    }

    /// A time earlier than the previous line's: an error, or noted for the final sort.
    fn backwards(&mut self, line: u64, parsed: &Parsed) -> Result<(), TraceError> {
        if self.opts.sort_arrivals {
            self.unsorted = true;
            return Ok(());
        }
        let (time, unit, previous_line) = self.previous.expect("a previous request");
        Err(TraceError::at(
            self.file,
            line,
            format!(
                "time goes backwards: {} {} here, after {} {} on line {}; \
                 sort the file by time or pass --des-sort-arrivals",
                parsed.time, parsed.unit.name, time, unit.name, previous_line
            ),
        ))
    }

    /// The requests in arrival order with ids by position, or an error if there are none.
    pub(super) fn finish(self) -> Result<Vec<Request>, TraceError> {
        let mut requests = self.requests;
        if requests.is_empty() {
            return Err(TraceError::whole(
                self.file,
                "no requests: the input is empty or has only blank lines",
            ));
        }
        if self.unsorted {
            requests.sort_by_key(|r| r.arrival_us);
            for (index, request) in requests.iter_mut().enumerate() {
                request.id = index as u32;
            }
        }
        Ok(requests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request at time 0 with `block_ids` as given (their capacity is what is counted).
    fn parsed(block_ids: Vec<u64>) -> Parsed {
        Parsed {
            time: Number::Int(0),
            unit: US,
            prompt_tokens: 12,
            output_tokens: 1,
            block_ids,
        }
    }

    #[test]
    fn the_memory_check_allows_exactly_the_limit_and_refuses_one_byte_more() {
        // The first request needs one `Request` slot plus 8 B for each of its 3 ids
        // (`vec!` allocates exactly 3), on top of the bytes of ids read before, which
        // stand here for a huge trace. Natively the limit is 4 GiB and no text is counted.
        let limit: u64 = 4 << 30;
        assert_eq!(MEMORY_LIMIT_BYTES, limit);
        let slot = std::mem::size_of::<Request>() as u64;
        let before_at_limit = limit - slot - 3 * 8;
        let opts = TraceOptions::default();
        let push_after = |ids_bytes: u64| {
            let mut collector = Collector::new("t", &opts);
            collector.ids_bytes = ids_bytes;
            let request = parsed(vec![1, 2, 3]);
            assert_eq!(request.block_ids.capacity(), 3);
            collector.push(7, request, 1000)
        };
        // slot + (limit - slot - 24) + 24 = limit: fits.
        assert_eq!(push_after(before_at_limit), Ok(()));
        // One byte more: refused, on the request's line, saying what to do.
        let err = push_after(before_at_limit + 1).unwrap_err();
        assert_eq!((err.file.as_str(), err.line), ("t", Some(7)));
        assert!(
            err.message
                .starts_with("the 1 requests read so far need an estimated ")
                && err.message.contains("more than the limit of 4 GiB")
                && err
                    .message
                    .ends_with("replay fewer with --des-max-requests"),
            "{}",
            err.message
        );
    }
}
