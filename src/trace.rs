//! Trace sources (Mooncake JSONL, workload CSV/JSONL): streaming parsers, export and analysis.
