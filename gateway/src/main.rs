//! `aria-gateway`: the CLI around [`aria_gateway::serve`].

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::str::FromStr;

use aria_gateway::{
    load_or_create_token, seed_channel, seed_images, serve, Cli, Config, FileLimits,
    IMAGES_CHANNEL, SEEDED_CHANNEL,
};
use clap::Parser;
use tracing_subscriber::filter::LevelFilter;

#[tokio::main]
async fn main() -> ExitCode {
    // Logs go to stderr: stdout carries only the "listening on" line that
    // scripts and other crates' tests wait for.
    let level = std::env::var("RUST_LOG")
        .ok()
        .and_then(|l| LevelFilter::from_str(&l).ok())
        .unwrap_or(LevelFilter::INFO);
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_max_level(level)
        .init();

    let cli = Cli::parse();
    if let Some(items) = cli.seed.seed_channel {
        let started = std::time::Instant::now();
        match seed_channel(&cli.data_dir, items, cli.seed.seed_forks) {
            Ok(true) => {
                // The bench reads `per_sec`: the log's bulk append rate,
                // search index included.
                let secs = started.elapsed().as_secs_f64();
                let per_sec = (items as f64 / secs.max(1e-9)).round();
                tracing::info!(
                    items,
                    channel = SEEDED_CHANNEL,
                    secs,
                    per_sec,
                    "seeded a channel"
                );
            }
            Ok(false) => tracing::info!(channel = SEEDED_CHANNEL, "seeded channel already exists"),
            Err(e) => {
                eprintln!("aria-gateway: cannot seed {SEEDED_CHANNEL}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(count) = cli.seed.seed_images {
        match seed_images(&cli.data_dir, count, FileLimits::from(cli.files.clone())) {
            Ok(true) => tracing::info!(count, channel = IMAGES_CHANNEL, "seeded images"),
            Ok(false) => tracing::info!(channel = IMAGES_CHANNEL, "seeded images already exist"),
            Err(e) => {
                eprintln!("aria-gateway: cannot seed {IMAGES_CHANNEL}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let generate_token = cli.generate_token;
    let mut config = Config::from(cli);
    if generate_token && config.token.is_none() {
        match stored_token(&config.data_dir) {
            Ok(token) => config.token = Some(token),
            Err(e) => {
                eprintln!(
                    "aria-gateway: cannot make or read the token in {}: {e}",
                    config.data_dir.display()
                );
                return ExitCode::FAILURE;
            }
        }
    }
    let server = match serve(config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("aria-gateway: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("aria-gateway listening on {}", server.url());
    // Best effort: a closed stdout must not stop the gateway.
    let _ = std::io::stdout().flush();

    wait_for_stop_signal().await;
    tracing::info!("shutting down");
    if let Err(e) = server.shutdown().await {
        eprintln!("aria-gateway: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `--generate-token`: the data dir's token, shown only when just made
/// (on stderr: stdout stays the one "listening on" line).
fn stored_token(data_dir: &Path) -> std::io::Result<String> {
    let stored = load_or_create_token(data_dir)?;
    if stored.created {
        eprintln!(
            "aria-gateway: new token (stored in {}): {}",
            stored.path.display(),
            stored.token
        );
    } else {
        tracing::info!(file = %stored.path.display(), "using the stored token");
    }
    Ok(stored.token)
}

/// Ctrl-C, or SIGTERM on Unix (what service managers and `kill` send).
async fn wait_for_stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
