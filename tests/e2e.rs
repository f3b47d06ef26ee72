//! Browser end-to-end tests: the real gateway serving the real `dist/`, in
//! headless Chromium. `./scripts/test` builds both first; to run these alone:
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e                      # every suite
//! cargo test --test e2e -- e2e_a11y::          # one suite
//! ```
//!
//! Every suite is a module of this one binary (one link instead of one per
//! suite); each keeps its own folder of tests (`tests/e2e_a11y/`, …), and
//! the tests of one binary take turns on the browser (`support::exclusive`).
//!
//! The harness lives in `tests/support/` (see its module docs).
#![cfg(not(target_arch = "wasm32"))]

mod support;

// Each suite names its folder: rustfmt does not find the files of an
// inline module in a test root without it (rustc would).
#[path = "e2e"]
mod e2e {
    mod chat;
    mod deferred_code;
    mod harness;
    mod rehearsal;
    mod timeline;
}

// Accessibility: axe-core finds no violation in any state of
// the app, in both themes; a whole visit works with the keyboard alone;
// screen readers hear finished answers once and failures at once; reduced
// motion and 200 % text are honoured.
#[path = "e2e_a11y"]
mod e2e_a11y {
    pub(crate) mod axe_states;
    pub(crate) mod keyboard;
    mod live_regions;
    mod motion_and_zoom;
}

// Browser tests of approvals (§9) against the scripted fake gateway
// (`support::fake_gateway`, which resolves requests like the real one):
// the card and each answer, several devices, reloads and drops while a
// request waits, timeouts and Stop, hostile text, the page title, system
// notifications while the tab is hidden, and the progress-draft line;
// and against the real gateway's `/demo approval` scenarios (`demo.rs`),
// what the agent does after each answer. A real Hermes run with an
// approval is in `e2e_hermes.rs`.
//
// A hidden tab is emulated in the page itself: the test overrides
// `document.visibilityState` (and `document.hidden`) with a getter and
// fires `visibilitychange`, which is exactly what the app reads; the
// notification permission is granted through chromedriver's
// `permissions` endpoint, and `window.Notification` is wrapped to record
// what the app shows (see `e2e_approvals/helpers.rs`). Nothing in the app
// is compiled differently for tests.
#[path = "e2e_approvals"]
mod e2e_approvals {
    mod answers;
    mod attention;
    mod demo;
    mod devices;
}

// Branches (§12) in the browser against the reference gateway and its
// demo agent: steering a thread and every device following it.
//
// | File | Proves |
// |---|---|
// | `steer.rs` | edit a middle message, regenerate twice, back to the first answer and to the first version with the branch below restored; a second device follows each switch; a reload keeps the path; disabled with "Stop the agent first" while a turn runs |
// | `offers.rs` | a search hit on another branch says so and opens with "Show this branch" (only that click switches); a deep link to an item off the path does the same |
// | `away.rs` | a device away while the path changed reloads by `branch_rev` when back: the new path whole, nothing of the old one, nothing twice |
// | `keys.rs` | IME Enter (real composition events) never sends from the composer or the edit box, a blur ends a composition; Up edits the last message, Alt+R regenerates, the arrows by keyboard keep the focus; axe finds nothing on the new controls |
// | `refused.rs` | the edit box lists the message's files, each removable by a named button; an edit the gateway refuses opens again with what was typed, the files taken off and the reason (tied to the field, focused); sent again, the box opens later on the message as it is |
#[path = "e2e_branches"]
mod e2e_branches {
    mod away;
    mod helpers;
    mod keys;
    mod offers;
    mod refused;
    mod steer;
}

// Offline reading in the browser: the real client and the real gateway
// behind a TCP proxy (the network), the page served by a static server so
// that it still loads with the gateway gone.
//
// | File | Proves |
// |---|---|
// | `reading.rs` | threads opened are kept in IndexedDB; with the gateway stopped a reload shows them, marked offline and sanitized; a message typed then is sent once when it is back, nothing shown twice; "Clear offline copy" leaves nothing to show |
#[path = "e2e_offline"]
mod e2e_offline {
    mod reading;
}

// The installable app shell: the service worker
// precaches the hashed build, the shell loads with the gateway gone, and a
// new build takes over on the next load and says so; with the offline
// copy, a whole visit with the gateway stopped (read, type, sent once it is
// back); and the first paint, the static frame of index.html that the app
// replaces in place. 127.0.0.1 is a
// secure context, so the gateway's own origin gets the worker.
#[path = "e2e_pwa"]
mod e2e_pwa {
    mod builds;
    mod first_paint;
    mod offline_shell;
    mod offline_visit;
    mod update;
}

// Resilience and security tests in the browser: the real client against
// a real gateway behind a TCP proxy that plays the network (cuts, dead
// paths, restarts), or against a scripted fake gateway that sends hostile
// content and malformed frames.
//
// | File | Proves |
// |---|---|
// | `supervisor.rs` | backoff with jitter, status and "retry now", heartbeat, handshake timeout, unauthorized / wrong protocol stop retrying |
// | `pending_sends.rs` | offline sends are pending, survive a reload, are sent exactly once; rejected sends show the error and retry |
// | `resume.rs` | a running turn resumes live after a dropped socket, a gateway killed and restarted, a page reload |
// | `hostile.rs` | hostile text is inert everywhere it is shown; nothing remote is fetched |
// | `csp.rs` | the Content-Security-Policy is strict and a full turn runs without a violation |
// | `adversarial.rs` | malformed, out-of-order, huge and bursty frames: no panic, state intact, UI responsive |
// | `markdown_module.rs` | the markdown module is fetched after the app's wasm; without it answers show as text |
#[path = "e2e_resilience"]
mod e2e_resilience {
    mod adversarial;
    mod csp;
    mod hostile;
    mod markdown_module;
    mod pending_sends;
    mod resume;
    mod supervisor;
}

// Files (§13) in the browser against the reference gateway and its demo
// agent. Files reach the page as real `File`s: from disk through DevTools'
// `DOM.setFileInputFiles`, or built in the page and handed over in a real
// `DataTransfer` (picker, paste, drop).
//
// | File | Proves |
// |---|---|
// | `attach.rs` | picker from disk, paste, drop (with its zone), progress in bytes and percent, Cancel, limits refused with a sentence, the digest without SubtleCrypto; a message with files is sent once, and history shows them after a reload |
// | `thread.rs` | the agent's files (`/demo files`): thumbnail at its header size, a chip that saves opaque bytes; the image dialog walked by arrow keys, Escape, focus back; an image's `blob:` URL revoked when its row goes; a photo turned by its Exif orientation (upright box, red on top); axe over each state |
// | `hostile.rs` | an SVG with script named `.png` and an HTML/JPEG polyglot never run and fetch nothing; hostile names show short and plain |
// | `phone.rs` | at 390 px, the draft's chips (long names) and the thread's thumbnails (one wider than the phone) fit: nothing scrolls sideways, every chip and thumbnail ends inside the viewport |
// | `resume.rs` | an upload cut by a dropped connection or a reload goes on from the gateway's offset (the draft's files kept in IndexedDB) and the message is sent once |
#[path = "e2e_files"]
mod e2e_files {
    mod attach;
    mod helpers;
    mod hostile;
    mod phone;
    mod resume;
    mod thread;
}

// Browser tests of search and of opening any item in place, against the
// scripted fake gateway (§6 `around`, §10
// search from its logs), and against the reference gateway.
//
// | File | Proves |
// |---|---|
// | `search.rs` | hits as you type, words marked, hostile snippets inert text, More results, arrow keys + Enter open a hit in place, Escape clears, "unavailable" on a gateway without search |
// | `real_gateway.rs` | the reference gateway (FTS5, `around`, a seeded 5,000-item thread): a hit opens its item in place, Jump to latest, a hostile message searched stays text |
// | `jump.rs` | a deep link into a 5,000-item thread shows the item marked after one `around` round trip; two-way paging shows every seq once, in order; live frames wait for Jump to latest; a gateway that ignores `around` falls back with a notice |
#[path = "e2e_search"]
mod e2e_search {
    mod jump;
    mod real_gateway;
    mod search;
}

// Browser tests of the client's side of token safety: a token goes only to
// the gateway it was saved for, a crafted `?gateway=` link waits for the
// user's yes (and then gets no token), a token over plain `ws://` to
// another machine needs a yes too, and the app refuses to run in a frame.
//
// | File | Proves |
// |---|---|
// | `links.rs` | links to another gateway (ws:, http:, upper case, localhost, encoded, with a deep link) ask first; that gateway never sees the saved token; no keeps the page's own gateway; the dialog is a real modal |
// | `tokens.rs` | a v1 global token migrates to its gateway; Settings list each token with its gateway; Forget removes it |
// | `plaintext.rs` | a token to a non-loopback `ws://` host waits for a yes; the badge says "not encrypted" |
// | `frame.rs` | inside another origin's frame the app says why and does not connect |
#[path = "e2e_security"]
mod e2e_security {
    mod frame;
    mod links;
    mod plaintext;
    mod tokens;
}

// Browser tests of threads: auto-thread relocation,
// the thread list's order and badges, the thread menu by right-click,
// long-press (touch) and keyboard, rename/pin/mark read/copy link/delete,
// deep links with back/forward, two browser sessions on one gateway,
// export from the menu and keyboard shortcuts.
#[path = "e2e_threads"]
mod e2e_threads {
    mod auto_thread;
    mod export;
    mod menu;
    mod sessions;
    mod shortcuts;
    mod sidebar;
}

// Browser tests of what the agent's work looks like: reasoning,
// tool cards, commentary, typing, footers, plans and nested sub-agent
// calls, each value of each display setting against the gateway's demo
// scenarios, and settings persistence.
// The harness's scripted gateway (`support::fake_gateway`, with a scripted
// turn) stands in where the demo agent has no scenario (long reasoning, a
// malformed inline prefix, tool previews that differ from their commands).
//
// `screenshot_of_a_demo_all_turn` saves `<target>/e2e-artifacts/demo-all.png`;
// with `ARIA_UPDATE_SCREENSHOT=1` it rewrites docs/screenshot.png instead.
#[path = "e2e_transparency"]
mod e2e_transparency {
    mod long_answer;
    mod plans;
    mod progress;
    mod reasoning;
    mod settings;
    mod streaming;
    mod tools;
}

mod e2e_code;

mod e2e_diagrams;

mod e2e_math;

mod e2e_mobile;
