// Shared helpers of the Node and Bun suites: the vat's addresses from the
// environment suite_test.go sets, shares made with the admin token, the
// fault proxy's switches, and vats of a test's own (for SIGKILLs).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** @param {string} name */
function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this suite through go test ./clients/typescript/`);
  return v;
}

/** ws://127.0.0.1:port/capnweb of the suite's vat. */
export const url = need("SHAREVAT_CAPNWEB_URL");
/** The same vat behind the fault proxy. */
export const faultURL = need("SHAREVAT_FAULT_URL");
/** The sharevat binary. */
export const bin = need("SHAREVAT_BIN");
/** The vat's admin token. */
export const adminToken = readFileSync(need("SHAREVAT_ADMIN_TOKEN_FILE"), "utf8").trim();
const control = need("SHAREVAT_FAULT_CONTROL");

/** The fault proxy's switches (internal/faultproxy). */
export const fault = {
  /** @param {boolean} on discard what the vat sends */
  drop: (on) => post(`/drop?on=${on ? 1 : 0}`),
  /** Closes every connection through the proxy. */
  cut: () => post("/cut"),
  /** Cuts and turns every fault off. */
  reset: () => post("/reset"),
  /** The number of connections accepted so far. */
  accepted: async () => Number(await (await fetch(control + "/accepted")).text()),
};

/** @param {string} path */
async function post(path) {
  const r = await fetch(control + path, { method: "POST" });
  if (!r.ok) throw new Error(`fault control ${path}: ${r.status}`);
}

/**
 * Creates a share with the admin token through the package under test
 * and returns its owner token and id.
 * @param {{connect: (url: string) => Promise<any>}} pkg
 * @param {string} title
 * @param {string} [at] the vat's URL
 */
export async function createShare(pkg, title, at = url) {
  const conn = await pkg.connect(at);
  try {
    const admin = await conn.redeemAdmin(adminToken);
    const { owner, share } = await admin.createShare({ title });
    return { token: owner.token, grantId: owner.grantId, id: share.shareInfo.id };
  } finally {
    conn.close();
  }
}

/**
 * A text op.
 * @param {string} opId
 * @param {number} [seq]
 */
export function textOp(opId, seq = 0) {
  return { opId, seq, kind: "part", key: `part-${opId}`, body: { type: "text", text: opId } };
}

/** A free loopback port (free when asked; the vat takes it right after). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/**
 * A vat of the test's own, on a fixed port and data directory, that the
 * test may SIGKILL and start again at the same address.
 */
export class OwnVat {
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "sharevat-ts-vat-"));
    this.port = 0;
    /** @type {import("node:child_process").ChildProcess | undefined} */
    this.proc = undefined;
    this.log = "";
  }

  /** ws://127.0.0.1:port/capnweb */
  get url() {
    return `ws://127.0.0.1:${this.port}/capnweb`;
  }

  /** The vat's admin token (once started). */
  get adminToken() {
    return readFileSync(join(this.dir, "data", "admin.token"), "utf8").trim();
  }

  /** Starts the vat; resolves once it serves. */
  async start() {
    if (!this.port) this.port = await freePort();
    const proc = spawn(bin, ["serve", "--listen", `127.0.0.1:${this.port}`, "--data", join(this.dir, "data")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.proc = proc;
    await new Promise((resolve, reject) => {
      let buf = "";
      proc.stderr?.on("data", (d) => {
        buf += String(d);
        this.log += String(d);
        if (buf.includes("sharevat: serving on ")) resolve(undefined);
      });
      proc.once("exit", (code) => reject(new Error(`the vat exited (${code}) before serving:\n${buf}`)));
    });
  }

  /** SIGKILLs the vat and resolves once it is gone. */
  async kill() {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGKILL");
    await gone;
  }

  /** Kills the vat and removes its directory. */
  async dispose() {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
