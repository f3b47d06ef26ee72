// Runs the app the way a first visit does, in headless Chromium, and
// writes the wasm-split profile of which functions ran (scripts/
// split-profile): start, connect, a turn of each common kind (markdown,
// tools with commentary, reasoning, a streamed answer), a new thread and
// back, two more threads; a reload, which starts again with history; and
// a link to a message through another address (`?gateway=…#/t/<id>/<seq>`,
// as shared links and other gateways' users open the app), asked about,
// remembered, then opened again. Whatever this does not run goes to the
// deferred part.
//
//   node scripts/lib/profile-workload.js URL OUT
// The page must run the instrumented wasm (`wasm-split --instrument`).

"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require(path.join(__dirname, "..", "..", "tools", "lighthouse", "node_modules", "puppeteer-core"));

const [url, out] = process.argv.slice(2);
const TURNS = ["hello", "/demo tools", "/demo reasoning", "/demo stream 20"];

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
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => document.documentElement.dataset.booted === "true", { timeout: 30000 });
    await page.waitForSelector("#composer-input:not([disabled])", { timeout: 30000 });
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
    const firstThread = await page.evaluate(() => location.hash);
    await page.click("[data-testid='new-thread']");
    await page.waitForFunction(() => document.querySelectorAll(".msg").length === 0, { timeout: 10000 });
    await page.goBack();
    await page.waitForFunction(() => document.querySelectorAll(".msg-assistant").length > 0, { timeout: 10000 });
    // A second visit: the thread list and the open thread's history come
    // from the gateway (and the offline copy) at start.
    for (const text of ["a second thread", "a third"]) {
      await page.click("[data-testid='new-thread']");
      await page.type("#composer-input", text);
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelector(".msg-assistant footer"), { timeout: 30000 });
    }
    const visits = [await profileOf(page)];
    const started = async () => {
      await page.waitForFunction(() => document.documentElement.dataset.booted === "true", { timeout: 30000 });
      await new Promise((done) => setTimeout(done, 1500));
    };
    await page.reload();
    await started();
    await page.waitForFunction(() => document.querySelector(".msg-assistant footer"), { timeout: 30000 });
    visits.push(await profileOf(page));

    // The same gateway by another name is another address: the link asks.
    const origin = new URL(url);
    const link = `${origin.origin}/?gateway=ws://localhost:${origin.port}/ws${firstThread}/3`;
    const marked = "[data-testid=timeline] .row[data-seq='3'][aria-current=true]";
    await page.goto(link);
    await started();
    const prompt = "[data-testid=gateway-prompt][data-kind=link]";
    await page.waitForSelector(prompt, { timeout: 30000 });
    await page.click(`${prompt} input[name=remember_gateway]`);
    await page.click(`${prompt} [data-testid=gateway-accept]`);
    await page.waitForSelector(marked, { timeout: 30000 });
    visits.push(await profileOf(page));
    await page.reload();
    await started();
    await page.waitForSelector(marked, { timeout: 30000 });
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
