//! A small static file server for `cargo xtask serve` (so serving needs nothing beyond
//! Rust): GET and HEAD of files under one folder on 127.0.0.1, `index.html` for a folder,
//! the content types the page and the book use, no path outside the folder.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// Serves `dir` on `listener` until the process ends, one thread per connection.
pub fn serve_dir(listener: TcpListener, dir: PathBuf) -> Result<(), String> {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let dir = dir.clone();
        std::thread::spawn(move || {
            let _ = answer(stream, &dir);
        });
    }
    Ok(())
}

/// Reads one request and writes its response (one request per connection).
fn answer(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n",
            true,
        );
    }
    let body_wanted = method == "GET";
    match resolve(dir, target) {
        Some(path) => match fs::read(&path) {
            Ok(bytes) => respond(
                &mut stream,
                "200 OK",
                content_type(&path),
                &bytes,
                body_wanted,
            ),
            Err(_) => not_found(&mut stream, body_wanted),
        },
        None => not_found(&mut stream, body_wanted),
    }
}

fn not_found(stream: &mut TcpStream, body_wanted: bool) -> std::io::Result<()> {
    respond(
        stream,
        "404 Not Found",
        "text/plain",
        b"not found\n",
        body_wanted,
    )
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    kind: &str,
    body: &[u8],
    body_wanted: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if body_wanted {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// The file a request target names under `dir`: the query and fragment dropped, `%XX`
/// decoded, `index.html` for a folder; `None` for a path that would leave `dir`.
pub fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let decoded = percent_decode(path)?;
    let mut out = dir.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The content type of a file the page or the book serves, by extension.
fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ttf" => "font/ttf",
        "ico" => "image/x-icon",
        "txt" | "md" | "jsonl" | "csv" | "ts" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_map_into_the_folder_and_never_out_of_it() {
        let dir = Path::new("/srv/www");
        assert_eq!(
            resolve(dir, "/js/main.js?x=1#y"),
            Some(PathBuf::from("/srv/www/js/main.js"))
        );
        assert_eq!(
            resolve(dir, "/book/a%20b.html"),
            Some(PathBuf::from("/srv/www/book/a b.html"))
        );
        assert_eq!(resolve(dir, "/../etc/passwd"), None);
        assert_eq!(resolve(dir, "/book/%2e%2e/%2e%2e/x"), None);
        assert_eq!(resolve(dir, "/%zz"), None);
        assert_eq!(content_type(Path::new("a.wasm")), "application/wasm");
        assert_eq!(
            content_type(Path::new("a.mjs")),
            "text/javascript; charset=utf-8"
        );
    }
}
