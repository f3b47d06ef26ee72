//! `./scripts/bench --peer open-webui`: aria-web and Open WebUI side by
//! side on the same fake OpenAI-compatible model ([`model`]), in the same
//! headless Chromium, alternating runs: a 100 KiB and a 1 MiB streamed
//! answer through each client's real model path (aria-web behind its
//! gateway's `--agent openai`), and a 2,000-message thread opened and
//! scrolled to the top. Writes `bench/peer-results.md`; see bench/README.md
//! ("The peer") for what makes the comparison fair or not.

mod drive;
mod http;
mod model;
mod rows;
mod seeded;
pub mod sse;
mod table;
mod webui;

use std::path::Path;
use std::time::Duration;

use drive::{Thread, Ui};

use crate::page::{COMPOSER, CONNECTED};
use crate::report::{load_average, RunInfo};
use crate::scenarios::thread::SEEDED_CHANNEL;
use crate::support::{paths, secs, Gateway, GatewayOpts};

const ARIA: Ui = Ui {
    name: "aria-web",
    composer: COMPOSER,
    ready: CONNECTED,
    busy: ".msg-assistant[data-streaming=true]",
    scroller: "[data-testid=timeline]",
};

const WEBUI: Ui = Ui {
    name: "Open WebUI",
    composer: "#chat-input",
    ready: "#chat-input",
    busy: "button[aria-label='Stop']",
    scroller: "#messages-container",
};

/// How big and how long: the real comparison, or a quick proof of the harness.
struct Plan {
    /// KiB of each streamed answer, with its runs per client.
    streams: &'static [(usize, usize)],
    thread_items: u64,
    /// Runs of the thread scenario per client, alternating.
    rounds: usize,
    stream_cap: fn(usize) -> Duration,
    top_cap: Duration,
}

const FULL: Plan = Plan {
    // One round each: Open WebUI's runs take minutes (raise for more).
    streams: &[(100, 1), (1024, 1)],
    thread_items: 2_000,
    rounds: 1,
    stream_cap: |_| secs(120),
    top_cap: Duration::from_secs(60),
};

const SMOKE: Plan = Plan {
    streams: &[(8, 1)],
    thread_items: 100,
    rounds: 1,
    stream_cap: |_| secs(60),
    top_cap: Duration::from_secs(20),
};

pub async fn run(smoke: bool, command: String, out: &Path) {
    let plan = if smoke { &SMOKE } else { &FULL };
    let model = model::ModelServer::start().await;
    eprintln!("bench: peer: fake model at {}", model.base_url());
    let bin = webui::bin();
    eprintln!("bench: peer: starting Open WebUI ({})…", bin.display());
    let webui = match webui::OpenWebUi::start(&bin, &model.base_url()).await {
        Ok(w) => w,
        Err(e) => {
            eprintln!("bench: peer: Open WebUI did not start: {e}");
            std::process::exit(1);
        }
    };
    let dist = paths::dist_dir();
    let aria_gateway = || {
        Gateway::start(GatewayOpts {
            static_dir: Some(dist.clone()),
            extra_args: [
                "--agent",
                "openai",
                "--openai-url",
                &model.base_url(),
                "--openai-model",
                sse::MODEL,
                "--openai-key",
                "x",
                "--seed-channel",
                &plan.thread_items.to_string(),
            ]
            .map(String::from)
            .to_vec(),
            ..GatewayOpts::default()
        })
    };
    let mut info = RunInfo::gather(command, String::new());

    // The same thread in Open WebUI, from the gateway's seeded channel.
    let seeded = {
        let g = aria_gateway();
        seeded::messages(&g).await
    };
    let webui_thread = match seeded {
        Ok(messages) => {
            let chat = async {
                let token = webui.session().await?;
                webui.create_chat(&token, "Long thread", &messages).await
            };
            match chat.await {
                Ok(id) => Thread {
                    url: format!("{}/c/{id}", webui.url()),
                    first: "#message-m0".into(),
                    last: format!("#message-m{}", messages.len().saturating_sub(1)),
                },
                Err(e) => fail(&format!("cannot create the chat in Open WebUI: {e}")),
            }
        }
        Err(e) => fail(&format!("cannot read the seeded thread: {e}")),
    };

    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for &(kib, rounds) in plan.streams {
        let mut aria = Vec::new();
        let mut peer = Vec::new();
        for round in 0..rounds {
            eprintln!("bench: peer: {kib} KiB stream, round {}…", round + 1);
            let g = aria_gateway();
            aria.push(drive::stream(&ARIA, &g.app_url(), kib, (plan.stream_cap)(kib)).await);
            drop(g);
            peer.push(drive::stream(&WEBUI, &webui.url(), kib, (plan.stream_cap)(kib)).await);
        }
        let scenario = format!("{} stream", size_name(kib));
        notes.extend(rows::notes(&scenario, (&aria, &peer), |r| {
            (&r.load, &r.main)
        }));
        rows.extend(rows::stream(
            &scenario,
            (plan.stream_cap)(kib),
            &aria,
            &peer,
        ));
    }
    let mut aria = Vec::new();
    let mut peer = Vec::new();
    for round in 0..plan.rounds {
        eprintln!(
            "bench: peer: {}-message thread, round {}…",
            plan.thread_items,
            round + 1
        );
        let g = aria_gateway();
        let t = Thread {
            url: format!("{}#/t/{SEEDED_CHANNEL}", g.app_url()),
            first: ".row[data-seq='1']".into(),
            last: format!(".row[data-seq='{}']", plan.thread_items),
        };
        aria.push(drive::thread(&ARIA, &t, plan.top_cap).await);
        drop(g);
        peer.push(drive::thread(&WEBUI, &webui_thread, plan.top_cap).await);
    }
    let scenario = format!("{}-message thread", plan.thread_items);
    notes.extend(rows::notes(&scenario, (&aria, &peer), |r| {
        (&r.load, &r.main)
    }));
    rows.extend(rows::thread(&scenario, plan.top_cap, &aria, &peer));
    info.load_after = load_average();
    drop(webui);

    let table = table::markdown(&rows);
    println!("\n{table}");
    let text = results_file(&info, &table, &notes);
    if let Err(e) = std::fs::write(out, text) {
        fail(&format!("cannot write {}: {e}", out.display()));
    }
    println!("bench: wrote {}", out.display());
    let broken = rows.iter().any(|r| r.aria.iter().any(Option::is_none));
    if broken {
        fail("an aria-web run did not finish (see the table)");
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("bench: peer: {msg}");
    std::process::exit(1);
}

fn size_name(kib: usize) -> String {
    if kib.is_multiple_of(1024) {
        format!("{} MiB", kib / 1024)
    } else {
        format!("{kib} KiB")
    }
}

fn results_file(info: &RunInfo, table: &str, notes: &[String]) -> String {
    let mut out = String::from("# aria-web and Open WebUI side by side\n\n");
    out.push_str(&format!(
        "Written by `{}`; bench/README.md (\"The peer\") says how it is measured and what makes it fair or not.\n\n",
        info.command
    ));
    out.push_str(&format!(
        "- Date: {}\n- Machine: {}\n- Build: {}\n- Load average before / after: {} / {}\n\n",
        info.date, info.machine, info.build, info.load_before, info.load_after
    ));
    out.push_str(table);
    out.push_str("\n## Runs\n\n");
    for n in notes {
        out.push_str(&format!("- {n}\n"));
    }
    out
}
