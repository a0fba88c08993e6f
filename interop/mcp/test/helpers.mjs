// Helpers of the MCP interop suite: a share made with the sharevat CLI,
// and MCP sessions of the official TypeScript SDK over stdio (`sharevat
// mcp`, launched as an agent launches it) and over Streamable HTTP (the
// /mcp route of `sharevat serve`). go test (mcp_test.go) sets the
// environment: SHAREVAT_BIN, SHAREVAT_RPC_URL, SHAREVAT_MCP_URL,
// SHAREVAT_ADMIN_TOKEN_FILE.
import { execFile } from "node:child_process";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const bin = need("SHAREVAT_BIN");
export const rpcURL = need("SHAREVAT_RPC_URL");
export const mcpURL = need("SHAREVAT_MCP_URL");
const adminTokenFile = need("SHAREVAT_ADMIN_TOKEN_FILE");

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this suite with go test in interop/mcp`);
  return v;
}

/** Creates a share with the CLI and returns its owner token. */
export function createShare(title) {
  const env = { ...process.env, SHAREVAT_URL: rpcURL, SHAREVAT_TOKEN_FILE: adminTokenFile };
  delete env.SHAREVAT_TOKEN;
  return new Promise((resolve, reject) => {
    execFile(bin, ["create", "--title", title, "--json", "--timeout", "20s"], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`sharevat create: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout).token);
    });
  });
}

/** Opens an MCP session over stdio: `sharevat mcp` with the token in its environment. */
export async function stdioSession(token) {
  const env = { ...process.env, SHAREVAT_URL: rpcURL, SHAREVAT_TOKEN: token };
  delete env.SHAREVAT_TOKEN_FILE;
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env, stderr: "pipe" });
  const client = new Client({ name: "sharevat-interop", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

/** Opens an MCP session over Streamable HTTP with token as its bearer token. */
export async function httpSession(token) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpURL), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "sharevat-interop", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

/** The two transports, for suites that run on both. */
export const transports = { stdio: stdioSession, http: httpSession };

/** Calls a tool that must succeed and returns its structured content. */
export async function ok(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name} failed: ${res.content?.[0]?.text}`);
  assert.ok(res.structuredContent, `${name} answered no structured content`);
  return res.structuredContent;
}

/** Calls a tool that must fail and returns its error text ("<code>: <message>"). */
export async function toolError(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  assert.equal(res.isError, true, `${name} succeeded: ${JSON.stringify(res.structuredContent)}`);
  const text = res.content[0].text;
  assert.match(text, /^[a-zA-Z]+: /, "a tool error starts with its wire code");
  return text;
}
