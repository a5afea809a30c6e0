//! The built-in trace a lesson replays (`Lesson::trace`), embedded in the binary so that
//! `kvfleet lesson` and `--preset` run anywhere, without the repository's `data/`.

use kvfleet::api::ParsedTrace;
use kvfleet::lessons::Lesson;

/// The text of a built-in trace, by file name.
pub fn text(name: &str) -> Option<&'static str> {
    match name {
        "conversation_trace.jsonl" => Some(include_str!(
            "../../../data/mooncake/conversation_trace.jsonl"
        )),
        "doc_chat_trace.jsonl" => Some(include_str!("../../../data/kvfleet/doc_chat_trace.jsonl")),
        _ => None,
    }
}

/// The lesson's trace parsed with blocks of `block_size` tokens, or None for a lesson on
/// the synthetic workload.
pub fn lesson_trace(lesson: &Lesson, block_size: u32) -> Result<Option<ParsedTrace>, String> {
    if lesson.trace.is_empty() {
        return Ok(None);
    }
    let text = text(lesson.trace)
        .ok_or_else(|| format!("lesson {}: no built-in trace {}", lesson.id, lesson.trace))?;
    ParsedTrace::parse(text, lesson.trace, block_size).map(Some)
}
