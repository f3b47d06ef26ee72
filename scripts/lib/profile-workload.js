// Runs the app in headless Chromium and writes the wasm-split profile of
// what starting it runs (scripts/split-profile): the functions that ran in
// three visits, each followed until it shows what it opened, its window
// then resized (a phone's keyboard, a window dragged: the handlers of a
// resize may run on the first load), and then for 3 s (timers, the
// offline copy, the service worker):
// - a first visit, with no history, until its composer takes input;
// - a link to the first message of a thread with history of every common
//   kind (markdown and code, tools with commentary, reasoning), all of it
//   on screen, on the page's own gateway (`#/t/<id>/<seq>`);
// - a reload of it (settings, the offline copy and the thread list are
//   there at start).
// The turns that make that history run between the visits and are not
// profiled: sending and streaming, like everything else the visits do not
// run, are in the deferred part, which boot.js fetches as soon as the app
// has started (docs/build.md).
//
//   node scripts/lib/profile-workload.js URL OUT
// The page must run the instrumented wasm (`wasm-split --instrument`).

"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require(path.join(__dirname, "..", "..", "tools", "lighthouse", "node_modules", "puppeteer-core"));

const [url, out] = process.argv.slice(2);
const TURNS = ["hello", "/demo tools", "/demo reasoning"];
// How long each visit is followed once it shows: twice the offline
// copy's delay before it writes what a visit showed (src/ui/wiring/offline.rs).
const SETTLE_MS = 3000;
// Tall enough that the whole thread the visits open is on screen (the
// timeline mounts only the rows near the screen).
const VIEWPORT = { width: 1280, height: 2400 };

// The instrumented wasm's profile of this page: an 8-byte module hash,
// then a u32 per function, when it first ran (0: never).
const profileOf = async (page) =>
  Buffer.from(
    await page.evaluate(async () => {
      const glue = await import(document.getElementById("aria-boot").dataset.js);
      const wasm = await glue.default();
      const len = wasm.__write_profile(0, 0);
      const at = wasm.__wbindgen_malloc(len, 8);
      wasm.__write_profile(at, len);
      return Array.from(new Uint8Array(wasm.memory.buffer, at, len));
    }),
  );

(async () => {
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "split-profile-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
    headless: true,
    userDataDir: profileDir,
    defaultViewport: VIEWPORT,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  const wait = (ms) => new Promise((done) => setTimeout(done, ms));
  const settle = async (page) => {
    await page.setViewport({ ...VIEWPORT, height: VIEWPORT.height - 100 });
    await wait(100);
    await page.setViewport(VIEWPORT);
    await wait(SETTLE_MS);
  };
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => document.documentElement.dataset.booted === "true", { timeout: 30000 });
    await page.waitForSelector("#composer-input:not([disabled])", { timeout: 30000 });
    await settle(page);
    const visits = [await profileOf(page)];
    // Two other threads for the thread list, then the thread that the
    // visits open, left at once after its last answer: its offline copy
    // is written by the next visit (as after a tab closed right away).
    for (const text of ["a first thread", "a second"]) {
      await page.type("#composer-input", text);
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelector(".msg-assistant footer"), { timeout: 30000 });
      await page.click("[data-testid='new-thread']");
      await page.waitForFunction(() => document.querySelectorAll(".msg").length === 0, { timeout: 10000 });
    }
    for (const text of TURNS) {
      const answers = await page.$$eval(".msg-assistant", (all) => all.length);
      await page.type("#composer-input", text);
      await page.keyboard.press("Enter");
      await page.waitForFunction(
        (n) => document.querySelectorAll(".msg-assistant").length > n && !document.querySelector("[data-streaming='true']"),
        { timeout: 30000 },
        answers,
      );
    }
    const thread = await page.evaluate(() => location.hash);
    // A link to the first message of that thread, on the page's own
    // gateway: the whole thread from its beginning.
    const marked = "[data-testid=timeline] .row[data-seq='1'][aria-current=true]";
    await page.goto("about:blank");
    await page.goto(`${url}${thread}/1`);
    await page.waitForSelector(marked, { timeout: 30000 });
    await settle(page);
    visits.push(await profileOf(page));
    await page.reload();
    await page.waitForSelector(marked, { timeout: 30000 });
    await settle(page);
    visits.push(await profileOf(page));
    if (errors.length) throw new Error(`the page failed: ${errors.join("; ")}`);

    // The visits' profiles in one: a function ran if it ran in any.
    const profile = Buffer.from(visits[0]);
    for (let at = 8; at < profile.length; at += 4) {
      if (profile.readUInt32LE(at) === 0) {
        profile.writeUInt32LE(Math.max(...visits.map((v) => v.readUInt32LE(at))), at);
      }
    }
    fs.writeFileSync(out, profile);
  } finally {
    await browser.close();
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
})().catch((err) => {
  console.error("profile-workload:", err);
  process.exit(1);
});
