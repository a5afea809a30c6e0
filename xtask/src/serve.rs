//! `cargo xtask serve [--port N]`: build the page and the book, then serve www/ on 127.0.0.1.

use crate::util::root;
use std::net::TcpListener;

const DEFAULT_PORT: u16 = 8000;

pub fn serve(args: &[String]) -> Result<(), String> {
    let wanted = parse_port(args)?;
    crate::build::build(false)?;
    crate::book::build_book(false)?;
    let port = pick_port(wanted)?;
    if port != wanted {
        println!("xtask serve: port {wanted} is busy, using {port}");
    }
    let www = root().join("www");
    if !www.join("index.html").exists() {
        println!("xtask serve: warning: www/index.html does not exist yet");
    }
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!(
        "\nServing the playground at http://127.0.0.1:{port}/ and the book at \
         http://127.0.0.1:{port}/book/   (Ctrl-C stops)\n"
    );
    crate::static_server::serve_dir(listener, www)
}

fn parse_port(args: &[String]) -> Result<u16, String> {
    let mut port = DEFAULT_PORT;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = match a.as_str() {
            "--port" | "-p" => it.next().cloned(),
            s if s.starts_with("--port=") => Some(s["--port=".len()..].to_string()),
            other => {
                return Err(format!(
                    "unknown argument `{other}` (usage: serve [--port N])"
                ))
            }
        };
        let value = value.ok_or("--port needs a value, e.g. --port 8080")?;
        port = value
            .parse()
            .map_err(|_| format!("--port must be a number from 1 to 65535, got `{value}`"))?;
        if port == 0 {
            return Err("--port must be from 1 to 65535, got 0".into());
        }
    }
    Ok(port)
}

/// `wanted` if it can be bound on 127.0.0.1, else a free port chosen by the OS.
fn pick_port(wanted: u16) -> Result<u16, String> {
    if TcpListener::bind(("127.0.0.1", wanted)).is_ok() {
        return Ok(wanted);
    }
    let l = TcpListener::bind(("127.0.0.1", 0)).map_err(|e| format!("no free port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}
